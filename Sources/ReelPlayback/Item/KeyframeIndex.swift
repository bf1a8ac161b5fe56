import Foundation
import ReelAV
import ReelAsset
import ReelCore

/// The keyframe times of one source track, read once from its packets (no decoding, and
/// for MP4 no parsing):
/// what a seek with a tolerance may land on to start showing pictures at once.
enum KeyframeIndex {
    /// The presentation times of `track`'s keyframes, in order.
    /// An image sequence's keyframes (every picture) are timed at `imageSequenceFrameRate`.
    static func times(of url: URL, trackID: Int, imageSequenceFrameRate: Double? = nil) throws(ReelError) -> [MediaTime] {
        let asset = try Asset(url: url, imageSequenceFrameRate: imageSequenceFrameRate)
        guard let track = asset.track(withTrackID: trackID) else {
            throw ReelError(.invalidArgument, "has no track \(trackID)", subject: url.path)
        }
        let demuxer = try Demuxer(path: url.path, probing: false, frameRate: imageSequenceFrameRate)
        // An MP4's samples carry their keyframe flags and times: no parser need read their bytes.
        demuxer.readPacketsAsStored()
        for stream in demuxer.streams where stream.index != track.streamIndex {
            demuxer.setDiscarded(true, streamIndex: stream.index)
        }
        let timeBase = demuxer.streams[track.streamIndex].timeBase
        let packet = try Packet()
        var times: [MediaTime] = []
        while try demuxer.read(into: packet) {
            guard packet.streamIndex == track.streamIndex, packet.isKeyframe,
                  packet.presentationTimestamp != FFmpeg.noTimestamp else { continue }
            times.append(timeBase.time(packet.presentationTimestamp))
        }
        return times.sorted()
    }
}

public import Foundation
import ReelAV
public import ReelAsset
public import ReelCore

/// Joins recordings of the same camera end to end into one file, the way a short-video
/// app saves its held segments: the video's packets are copied (nothing decoded or
/// encoded), each segment shown by an edit-list entry of its own (what its edit list hid
/// stays hidden), and the audio is re-encoded as one continuous stream, each segment's cut to
/// exactly the length of its pictures. So the sound neither drifts from the pictures
/// (each file's own AAC priming would add 21 ms a join to a copy) nor clicks: each join
/// gets a 2.5 ms fade out and in.
public enum SegmentMerge {
    /// Samples faded at each side of a join.
    static let declick = 120

    /// Writes `segments`, in order, to `url` and returns the joined length.
    /// - Parameters:
    ///   - segments: The recordings to join, in order, with the same video parameters.
    ///   - url: The file to write.
    ///   - fileType: The container.
    ///   - ranges: Each segment's picture range, where the file cannot say it: FFmpeg reads a
    ///     fragmented file's track duration as its end time, so fragments cut from the middle of
    ///     a recording (`reel record --replay-buffer`) give their ranges from their segment
    ///     reports. Nil: each file's own video track range.
    /// - Returns: The merged length: the sum of the segments' picture lengths.
    /// - Throws: ``ReelError``: `.unsupported` naming the segment and parameter when the
    ///   videos differ (use an export preset then), or a read or write failure. The output
    ///   appears only when complete.
    @discardableResult
    public static func write(_ segments: [URL], to url: URL, fileType: FileType = .mp4,
                             ranges: [MediaTimeRange]? = nil) throws(ReelError) -> MediaTime {
        guard !segments.isEmpty else { throw ReelError(.invalidArgument, "there are no segments to merge", subject: url.path) }
        struct Part {
            let asset: Asset
            let demuxer: Demuxer
            let video: AssetTrack
            let audio: AssetTrack?
        }
        var parts: [Part] = []
        for (index, segment) in segments.enumerated() {
            let asset = try Asset(url: segment)
            guard let video = asset.tracks(withMediaType: .video).first else {
                throw ReelError(.invalidData, "segment \(index + 1) has no video", subject: segment.path)
            }
            let part = Part(asset: asset, demuxer: try Demuxer(path: segment.path, probing: false), video: video,
                            audio: asset.tracks(withMediaType: .audio).first)
            if let first = parts.first, let difference = part.demuxer.parameterDifference(
                stream: video.streamIndex, from: first.demuxer, stream: first.video.streamIndex) {
                throw ReelError(.unsupported, "segment \(index + 1)'s video has \(difference) of segment 1's; it cannot be copied",
                                subject: segment.path)
            }
            parts.append(part)
        }
        let channels = min(max(parts.compactMap(\.audio).map(\.channelCount).max() ?? 0, 0), 2)
        let partial = TemporaryOutput(beside: url)
        let temporary = partial.url
        defer { partial.release() }
        var end = MediaTime.zero
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: fileType.muxerName)
            let first = parts[0]
            let videoOut = try muxer.addStream(copying: first.demuxer, streamIndex: first.video.streamIndex)
            if !first.video.preferredTransform.isIdentity {
                try muxer.setDisplayMatrix(first.video.preferredTransform, streamIndex: videoOut)
            }
            let lane = channels > 0 ? try AudioEncodingLane(channels: channels, muxer: muxer) : nil
            muxer.setMetadata("creation_time", Date.ISO8601FormatStyle().format(Date()))
            // The index goes in front once the edit lists are in it (MovieIndex), not through +faststart.
            try muxer.writeHeader(options: MovieIndex.movieTimescaleOptions(
                videoTimeBase: first.demuxer.streams[first.video.streamIndex].timeBase, for: fileType.muxerName))
            let copier = try VideoCopyLane(muxer: muxer, streamIndex: videoOut)
            for (index, part) in parts.enumerated() {
                let start = end
                let range = ranges.flatMap { index < $0.count ? $0[index] : nil } ?? part.video.timeRange
                end = start + range.duration
                // Each segment shows what its own edit list shows, nothing it hides.
                try copier.copy(from: part.demuxer, stream: part.video.streamIndex, range: range, at: start)
                if index == parts.count - 1 {
                    // Nothing follows the last picture to hold it, so it ends where the file says
                    // it does: a fragmented file's last picture may read one frame long where its
                    // segment report counted the frames dropped after it. The sound ends there too.
                    let shown = copier.finishTimeline()
                    if shown > start, shown < end { end = shown }
                }
                if let lane {
                    let first = Self.sampleIndex(start), last = Self.sampleIndex(end)
                    let samples = try audio(of: part.asset, track: part.audio, from: range.start,
                                            count: Int(last - first), channels: channels,
                                            fadeIn: index > 0, fadeOut: index < parts.count - 1)
                    try lane.append(try AudioBuffer.float(channels: samples, sampleRate: 48000))
                }
            }
            try lane?.finish()
            try muxer.finish()
            try copier.writeEdits(to: temporary.path, indexFirst: fileType.isISOBaseMedia)
            // Picture and sound both over the joined pictures, checked as the edit lists show them.
            try ExportCheck(both: MediaTimeRange(start: .zero, duration: end), hasAudio: lane != nil).verify(temporary, as: url)
            try AssetWriter.moveIntoPlace(temporary, destination: url)
        } catch {
            partial.discard()
            throw error.about(url.path)
        }
        return end
    }

    /// The sample at `time` of the joined file: rounding the joins' absolute times keeps
    /// rounding from adding up.
    private static func sampleIndex(_ time: MediaTime) -> Int64 { Int64((time.seconds * 48000).rounded()) }

    /// `count` samples of the track from `origin` (the first picture's time; silence where
    /// it has none), placed by their timestamps, with the join fades.
    private static func audio(of asset: Asset, track: AssetTrack?, from origin: MediaTime, count: Int, channels: Int, fadeIn: Bool,
                              fadeOut: Bool) throws(ReelError) -> [[Float]] {
        var planes = [[Float]](repeating: [Float](repeating: 0, count: count), count: channels)
        if let track {
            let reader = try AssetReader(asset: asset)
            let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(
                sampleFormat: .floatPlanar, sampleRate: 48000, channelCount: channels))
            try reader.add(output)
            try reader.startReading()
            while let sample = try output.copyNextSampleBuffer(), let buffer = sample.audioBuffer {
                let offset = Int(((sample.presentationTime - origin).seconds * 48000).rounded())
                for channel in 0..<channels {
                    let values = buffer.floatSamples(channel: min(channel, buffer.format.channelCount - 1))
                    for (i, value) in values.enumerated() where offset + i >= 0 && offset + i < count {
                        planes[channel][offset + i] = value
                    }
                }
                if offset >= count { break }
            }
        }
        let ramp = min(declick, count / 2)
        for channel in 0..<channels {
            for i in 0..<ramp {
                let gain = Float(i) / Float(ramp)
                if fadeIn { planes[channel][i] *= gain }
                if fadeOut { planes[channel][count - 1 - i] *= gain }
            }
        }
        return planes
    }
}

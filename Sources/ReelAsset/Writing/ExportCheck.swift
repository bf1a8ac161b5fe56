package import Foundation
import ReelAV
package import ReelCore

/// What an export meant to write, checked against what it wrote before the file is put in
/// place: each stream's first and last presented instants, read from the packets' timestamps
/// (no decoding), against the planned ranges (the sum of the segments the export laid out).
///
/// It fails, naming the stream and the difference, when picture and sound disagree by more
/// than one audio frame relative to the plan, or a stream's start or end is off the plan by
/// more than one of its frames (a video frame; an audio frame for a file without picture).
/// That is the tolerance of honest rounding: an export that keeps time never trips it, and
/// a drift, a lost tail or an overrunning last frame does, in the user's hands, at the cost
/// of reading the output's packet headers once.
package struct ExportCheck: Sendable {
    /// Where the picture should be on the output's timeline, or nil when none is planned.
    package var video: MediaTimeRange?
    /// Where the sound should be, or nil when none is planned.
    package var audio: MediaTimeRange?

    /// A plan of picture and sound both over `range` (an export of a composition).
    package init(both range: MediaTimeRange, hasVideo: Bool = true, hasAudio: Bool) {
        video = hasVideo ? range : nil
        audio = hasAudio ? range : nil
    }

    /// A plan with each stream's own range (a copy of a file whose tracks differ in length).
    package init(video: MediaTimeRange?, audio: MediaTimeRange?) {
        self.video = video
        self.audio = audio
    }

    /// Measures the file at `written` and compares it with the plan.
    /// - Parameters:
    ///   - written: the finished file, under its temporary name.
    ///   - destination: the name the user gave, for the message.
    /// - Throws: ``ReelError`` (`.invalidData`) about `destination`, naming the stream and the
    ///   difference, when the file disagrees with the plan; a read error of the file.
    package func verify(_ written: URL, as destination: URL) throws(ReelError) {
        // For measuring what an export writes despite a disagreement (the sync bench does).
        if ProcessInfo.processInfo.environment["REEL_EXPORT_CHECK"] == "off" { return }
        let demuxer = try Demuxer(path: written.path, probing: false)
        demuxer.readPacketsAsStored()
        let extents = try demuxer.packetExtents()
        let streams = demuxer.streams
        let editListed = demuxer.formatName.hasPrefix("mov,")
        func first(_ type: MediaType) -> (StreamInfo, PacketExtent?)? {
            streams.first { $0.mediaType == type }.map { stream in
                let extent = extents.indices.contains(stream.index) ? extents[stream.index] : nil
                return (stream, extent.map { editListed ? Self.presented($0, by: stream) : $0 })
            }
        }
        let picture = first(.video), sound = first(.audio)
        let path = destination.path
        let videoFrame = picture.flatMap { Self.frameDuration(of: $0.0, extent: $0.1) }
        let audioFrame = sound.flatMap { Self.frameDuration(of: $0.0, extent: $0.1) }
        let slack = MediaTime(value: 1, timescale: 1000)  // timestamps rounded to the containers' ticks

        for (name, planned, found, frame) in [("video", video, picture, videoFrame), ("audio", audio, sound, audioFrame)] {
            guard let planned else { continue }
            guard let found, let extent = found.1 else {
                throw ReelError(.invalidData, "the export planned \(name) over \(Self.describe(planned)) but wrote none",
                                subject: path, operation: "export check")
            }
            // The duration is held to a video frame when there is picture, else to an audio frame.
            let tolerance = (videoFrame ?? frame ?? .zero) + slack
            for (edge, want, got) in [("starts", planned.start, extent.start), ("ends", planned.end, extent.end)] {
                let off = got - want
                guard Self.magnitude(off) > tolerance else { continue }
                throw ReelError(.invalidData,
                                "the \(name) \(edge) at \(Self.seconds(got)) s, \(Self.milliseconds(off)) ms \(off > .zero ? "after" : "before") the planned \(Self.seconds(want)) s (more than one frame, \(Self.milliseconds(tolerance - slack)) ms)",
                                subject: path, operation: "export check")
            }
        }
        // Picture and sound against each other, relative to the plan: one audio frame.
        if let video, let audio, let v = picture?.1, let a = sound?.1 {
            let tolerance = (audioFrame ?? .zero) + slack
            for (edge, plannedGap, gap) in [("starts", audio.start - video.start, a.start - v.start),
                                            ("ends", audio.end - video.end, a.end - v.end)] {
                let off = gap - plannedGap
                guard Self.magnitude(off) > tolerance else { continue }
                throw ReelError(.invalidData,
                                "picture and sound disagree: the audio \(edge) \(Self.milliseconds(off)) ms \(off > .zero ? "after" : "before") the video (video \(Self.seconds(v.start))–\(Self.seconds(v.end)) s, audio \(Self.seconds(a.start))–\(Self.seconds(a.end)) s), more than one audio frame (\(Self.milliseconds(tolerance - slack)) ms)",
                                subject: path, operation: "export check")
            }
        }
    }

    /// What a player shows of an MP4 or QuickTime stream: its packets from the timeline's
    /// start, ended where the edit list ends the track. Packets an edit list hides before its
    /// start (the frames a copy starting between keyframes needs, AAC priming) come out before
    /// 0 and are never shown. The last picture of an export whose end falls between two
    /// frames is stored whole, and the edit list cuts it at the end (the stream's duration).
    private static func presented(_ extent: PacketExtent, by stream: StreamInfo) -> PacketExtent {
        var shown = extent
        shown.start = max(extent.start, .zero)
        guard stream.duration.isNumeric, stream.duration > .zero else { return shown }
        shown.end = min(extent.end, shown.start + stream.duration)
        return shown
    }

    /// A frame's duration: the stream's base frame rate for video, else its longest packet.
    private static func frameDuration(of stream: StreamInfo, extent: PacketExtent?) -> MediaTime? {
        if stream.mediaType == .video, stream.baseFrameRate.isPositive, stream.baseFrameRate.numerator <= 1000 {
            let base = MediaTime(value: Int64(stream.baseFrameRate.denominator), timescale: stream.baseFrameRate.numerator)
            return max(base, extent?.longestPacket ?? .zero)
        }
        return extent?.longestPacket
    }

    private static func magnitude(_ time: MediaTime) -> MediaTime { time < .zero ? .zero - time : time }
    private static func seconds(_ time: MediaTime) -> String { String(format: "%.3f", time.seconds) }
    private static func milliseconds(_ time: MediaTime) -> String { String(format: "%.1f", abs(time.seconds) * 1000) }
    private static func describe(_ range: MediaTimeRange) -> String { "\(seconds(range.start))–\(seconds(range.end)) s" }
}

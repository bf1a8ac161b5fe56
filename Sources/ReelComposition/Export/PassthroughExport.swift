import Foundation
import ReelAV
import ReelAsset
import ReelCore

/// The passthrough preset: the clips' video packets copied into one file, nothing decoded
/// or encoded, each clip shown by an edit-list entry of its own; the sound mixed from the
/// composition (its audio mix included) and encoded once, as one stream cut to the
/// pictures.
///
/// Why the sound is encoded rather than copied: every AAC clip starts with 1024 priming
/// samples and ends with padding, which its own edit list hides. Copied, each join would
/// keep one clip's padding and the next one's priming (5–11 ms later per join, +316 ms
/// after 59 joins). Per-clip audio edit-list entries would hide them for a player that
/// honours them to the sample, but FFmpeg's reader (ffprobe, and the browsers built on it)
/// trims only the first entry to the sample and keeps or drops whole 21 ms packets at the
/// others, so the sound would still wander. One stream encoded from the decoded sound has
/// one priming, hidden by the muxer's edit list, and ends where the pictures do.
///
/// Only clips laid end to end at normal speed can be copied, and only when their coding
/// parameters agree; the error otherwise names the clip and the parameter (04_quasar's
/// width of 1276, say, which the ffmpeg concat demuxer silently mislabels as 1280). A
/// clip's range may start and end anywhere: the copy starts at the keyframe before it and
/// the edit list hides the rest.
enum PassthroughExport {
    struct Clip {
        let segment: CompositionTrackSegment
        let demuxer: Demuxer
        let video: Int
        let shows: MediaTimeRange
        let transform: ReelCore.AffineTransform
    }

    /// How the index gets in front of the media (`shouldOptimizeForNetworkUse`). The number of
    /// samples is known before the first is copied, so the index's size is bounded: room for
    /// it is kept at the front (`moov_size`) and the file is written once, where `+faststart`
    /// would write it all and then copy it all again behind the index. `samples` lists the
    /// count of every copied stream of every clip, `edits` the edit-list entries to come;
    /// an unknown (0) count or an index too large for the option gives nil: the index is
    /// written last and moved in front after.
    static func indexFirstOptions(samples: [Int], edits: Int = 0) -> [String: String]? {
        guard !samples.isEmpty, samples.allSatisfy({ $0 > 0 }) else { return nil }
        // Per sample the tables take at most stts 8, ctts 8, stsc 12, co64 8, stsz 4, stss 4,
        // sdtp 1 and sbgp 8 bytes; an edit-list entry 20; the fixed boxes of a track, the
        // metadata and the codec set-up fit well inside the base.
        // Counts come from the files' headers: a total past what the muxer takes (an int) moves
        // the index in front after instead.
        let total = samples.reduce(0) { $0 > Int(Int32.max) ? $0 : $0 + min($1, Int(Int32.max)) }
        let size = 16_384 + 64 * min(total, Int(Int32.max)) + 20 * min(max(edits, 0), 1 << 20)
        guard size <= Int(Int32.max) else { return nil }
        return ["moov_size": String(size)]
    }

    /// Notes about what was left out, for the caller to show.
    static func export(_ composition: MutableComposition, audioMix: AudioMix?, to url: URL, fileType: FileType,
                       optimizeForNetwork: Bool) throws(ReelError) -> [String] {
        let segments = composition.tracks(withMediaType: .video).flatMap(\.segments).filter { !$0.isEmpty }
            .sorted { $0.timeMapping.target.start < $1.timeMapping.target.start }
        guard !segments.isEmpty else { throw ReelError(.invalidArgument, "the composition has no video", subject: "passthrough") }
        var clips: [Clip] = []
        var end = MediaTime.zero
        var channels = 0
        for (index, segment) in segments.enumerated() {
            let name = "clips[\(index)]"
            guard let source = segment.sourceURL else { continue }
            guard segment.timeMapping.source.duration == segment.timeMapping.target.duration else {
                throw ReelError(.unsupported, "plays at another speed; passthrough copies only normal-speed clips",
                                subject: "\(name) \(source.path)")
            }
            guard segment.timeMapping.target.start >= end else {
                throw ReelError(.unsupported, "overlaps the clip before (a transition); passthrough cannot mix pictures",
                                subject: "\(name) \(source.path)")
            }
            end = segment.timeMapping.target.end
            let asset = try Asset(url: source)
            guard let video = asset.track(withTrackID: segment.sourceTrackID) else {
                throw ReelError(.invalidArgument, "has no track \(segment.sourceTrackID)", subject: "\(name) \(source.path)")
            }
            let demuxer = try Demuxer(path: source.path, probing: false)
            demuxer.readPacketsAsStored()
            if let first = clips.first, first.transform != video.preferredTransform {
                throw ReelError(.unsupported,
                                "is turned \(video.rotation)° where clips[0] is turned \(Int(first.transform.rotationDegrees.rounded()))°; one file has one rotation, so use a sized preset",
                                subject: "\(name) \(source.path)")
            }
            channels = max(channels, asset.tracks(withMediaType: .audio).map(\.channelCount).max() ?? 0)
            clips.append(Clip(segment: segment, demuxer: demuxer, video: video.streamIndex, shows: video.timeRange, transform: video.preferredTransform))
        }
        let first = clips[0]
        for (index, clip) in clips.enumerated().dropFirst() {
            if let difference = clip.demuxer.parameterDifference(stream: clip.video, from: first.demuxer, stream: first.video) {
                throw ReelError(.unsupported,
                                "its video has \(difference) of clips[0]; passthrough needs identical streams, so use a sized preset",
                                subject: "clips[\(index)] \(clip.demuxer.path)")
            }
        }
        let hasAudio = composition.tracks(withMediaType: .audio).contains { $0.segments.contains { !$0.isEmpty } }
        channels = hasAudio ? min(max(channels, 1), 2) : 0

        let partial = TemporaryOutput(beside: url)
        let temporary = partial.url
        defer { partial.release() }
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: fileType.muxerName)
            let videoOut = try muxer.addStream(copying: first.demuxer, streamIndex: first.video)
            if !first.transform.isIdentity { try muxer.setDisplayMatrix(first.transform, streamIndex: videoOut) }
            let lane = channels > 0 ? try AudioEncodingLane(channels: channels, muxer: muxer) : nil
            muxer.setMetadata("creation_time", Date.ISO8601FormatStyle().format(Date()))
            let audioPackets = lane == nil ? [] : [Int(min(max(end.seconds, 0), 1e9) * 48000 / 1024) + 8]
            let reserve = optimizeForNetwork && fileType.isISOBaseMedia
                ? indexFirstOptions(samples: clips.map { $0.demuxer.streams[$0.video].frameCount } + audioPackets,
                                    edits: 2 * clips.count + 2) : nil
            try muxer.writeHeader(options: (reserve ?? [:]).merging(MovieIndex.movieTimescaleOptions(
                videoTimeBase: first.demuxer.streams[first.video].timeBase, for: fileType.muxerName)) { $1 })
            let copier = try VideoCopyLane(muxer: muxer, streamIndex: videoOut)
            let mixer = AudioRenderer(composition: composition, mix: audioMix, channels: max(channels, 1))
            var nextSample: Int64 = 0
            func sound(until time: MediaTime) throws(ReelError) {
                guard let lane else { return }
                let last = time.multiplied(byRatio: 48000, divisor: 1).convertScale(1).value
                while nextSample < last {
                    let count = Int(min(4096, last - nextSample))
                    try lane.append(try mixer.render(startSample: nextSample, count: count))
                    nextSample += Int64(count)
                }
            }
            for clip in clips {
                try copier.copy(from: clip.demuxer, stream: clip.video, range: clip.segment.timeMapping.source,
                                at: clip.segment.timeMapping.target.start, trackRange: clip.shows) { (time) throws(ReelError) in try sound(until: time) }
            }
            let timelineEnd = copier.finishTimeline()
            try sound(until: timelineEnd)
            try lane?.finish()
            try muxer.finish()
            try copier.writeEdits(to: temporary.path, indexFirst: optimizeForNetwork && fileType.isISOBaseMedia)
            // Checked as the edit lists show it: picture and sound over the timeline.
            try ExportPlans.passthrough(end: timelineEnd, withAudio: lane != nil).verify(temporary, as: url)
            try AssetWriter.moveIntoPlace(temporary, destination: url)
        } catch {
            partial.discard()
            throw error.renamingSubject(temporary.path, to: url.path)
        }
        return []
    }
}

import Foundation
import ReelAV
import ReelAsset
import ReelCore

/// The passthrough preset: the clips' packets copied into one file, timestamps moved to
/// the composition's timeline, nothing decoded or encoded. Only whole clips laid end to
/// end at normal speed can be copied, and only when their coding parameters agree; the
/// error otherwise names the clip and the parameter (04_quasar's width of 1276, say,
/// which the ffmpeg concat demuxer silently mislabels as 1280).
enum PassthroughExport {
    struct Clip {
        let segment: CompositionTrackSegment
        let demuxer: Demuxer
        let video: Int
        let audio: Int?
        let transform: ReelCore.AffineTransform
    }

    /// How the index gets in front of the media (`shouldOptimizeForNetworkUse`). The number of
    /// samples is known before the first is copied, so the index's size is bounded: room for
    /// it is kept at the front (`moov_size`) and the file is written once, where `+faststart`
    /// would write it all and then copy it all again behind the index. `samples` lists the
    /// count of every copied stream of every clip; an unknown (0) count falls back to `+faststart`.
    static func indexFirstOptions(samples: [Int]) -> [String: String] {
        guard !samples.isEmpty, samples.allSatisfy({ $0 > 0 }) else { return ["movflags": "+faststart"] }
        // Per sample the tables take at most stts 8, ctts 8, stsc 12, co64 8, stsz 4, stss 4,
        // sdtp 1 and sbgp 8 bytes; the fixed boxes of a track, the metadata and the codec set-up
        // fit well inside the base.
        return ["moov_size": String(16_384 + 64 * samples.reduce(0, +))]
    }

    /// Notes about what was left out (audio that not every clip has).
    static func export(_ composition: MutableComposition, to url: URL, fileType: FileType,
                       optimizeForNetwork: Bool) throws(ReelError) -> [String] {
        var notes: [String] = []
        let segments = composition.tracks(withMediaType: .video).flatMap(\.segments).filter { !$0.isEmpty }
            .sorted { $0.timeMapping.target.start < $1.timeMapping.target.start }
        guard !segments.isEmpty else { throw ReelError(.invalidArgument, "the composition has no video", subject: "passthrough") }
        var clips: [Clip] = []
        var end = MediaTime.zero
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
            guard segment.timeMapping.source.start == .zero else {
                throw ReelError(.unsupported, "is trimmed at its start; passthrough copies whole clips from a keyframe",
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
            clips.append(Clip(segment: segment, demuxer: demuxer, video: video.streamIndex,
                              audio: asset.tracks(withMediaType: .audio).first?.streamIndex,
                              transform: video.preferredTransform))
        }
        let first = clips[0]
        for (index, clip) in clips.enumerated().dropFirst() {
            if let difference = clip.demuxer.parameterDifference(stream: clip.video, from: first.demuxer, stream: first.video) {
                throw ReelError(.unsupported,
                                "its video has \(difference) of clips[0]; passthrough needs identical streams, so use a sized preset",
                                subject: "clips[\(index)] \(clip.demuxer.path)")
            }
        }
        var withAudio = clips.allSatisfy { $0.audio != nil }
        if withAudio, let firstAudio = first.audio {
            for clip in clips.dropFirst() where clip.demuxer.parameterDifference(
                stream: clip.audio ?? 0, from: first.demuxer, stream: firstAudio) != nil {
                withAudio = false
            }
        }
        if !withAudio, clips.contains(where: { $0.audio != nil }) {
            notes.append("audio left out: not every clip has audio of the same kind")
        }

        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent).reel-\(UUID().uuidString.prefix(8)).\(url.pathExtension)")
        InProgressFiles.add(temporary)
        defer { InProgressFiles.remove(temporary) }
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: fileType.muxerName)
            let videoOut = try muxer.addStream(copying: first.demuxer, streamIndex: first.video)
            if !first.transform.isIdentity { try muxer.setDisplayMatrix(first.transform, streamIndex: videoOut) }
            let audioOut = withAudio ? try first.audio.map { (index) throws(ReelError) in
                try muxer.addStream(copying: first.demuxer, streamIndex: index) } : nil
            muxer.setMetadata("creation_time", Date.ISO8601FormatStyle().format(Date()))
            let sampleCounts = clips.flatMap { clip in
                ([clip.video] + (withAudio ? [clip.audio].compactMap { $0 } : [])).map { clip.demuxer.streams[$0].frameCount }
            }
            try muxer.writeHeader(options: optimizeForNetwork && fileType.isISOBaseMedia
                ? indexFirstOptions(samples: sampleCounts) : [:])
            let packet = try Packet()
            var join = StreamJoin()
            for clip in clips {
                join.beginClip()
                let offset = clip.segment.timeMapping.target.start - clip.segment.timeMapping.source.start
                for stream in clip.demuxer.streams.indices where stream != clip.video && stream != clip.audio {
                    clip.demuxer.setDiscarded(true, streamIndex: stream)
                }
                while try clip.demuxer.read(into: packet) {
                    let index = packet.streamIndex
                    if index == clip.video {
                        try muxer.writeCopy(packet, streamIndex: videoOut, source: clip.demuxer.streams[index].timeBase, offset: offset,
                                             join: &join)
                    } else if let audioOut, index == clip.audio {
                        try muxer.writeCopy(packet, streamIndex: audioOut, source: clip.demuxer.streams[index].timeBase, offset: offset,
                                             join: &join)
                    }
                }
            }
            try muxer.finish()
            try ExportPlans.passthrough(clips.map(\.segment), withAudio: audioOut != nil)?.verify(temporary, as: url)
            try AssetWriter.moveIntoPlace(temporary, destination: url)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error.renamingSubject(temporary.path, to: url.path)
        }
        return notes
    }
}

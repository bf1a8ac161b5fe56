public import Foundation
import ReelAV
public import ReelAsset
public import ReelCore

/// The three kinds of work of a chunked export, each of which may run in a process (or on
/// a machine) of its own: a chunk of the picture, the sound of the whole timeline, and the
/// join. See ``ChunkPlan``.
///
/// Why the sound is rendered once rather than with each chunk: every AAC stream starts
/// with priming and ends with padding, so chunks that each carried their own sound would
/// drift a few milliseconds at every join (+96 ms after three joins, measured). One sound
/// for the whole timeline has one priming, hidden by its edit list, and is copied into the
/// joined file as it is.
public enum ChunkedExport {
    /// The smart render plan a chunked export of `session` should cut and render its chunks
    /// by (``ChunkPlan/make(for:request:gopSeconds:smart:)``), or nil when the chunks should
    /// render every frame: ``ExportSession/smartRender`` is off, the export is one smart
    /// render does not take (HEVC, WebM, passthrough…), or nothing could be copied.
    /// - Parameter session: The whole export.
    /// - Returns: The whole timeline's plan, or nil.
    /// - Throws: ``ReelError`` when a source cannot be read.
    public static func smartPlan(for session: ExportSession) throws(ReelError) -> SmartRenderPlan? {
        guard session.admitsSmartRender else { return nil }
        let plan = try SmartRenderPlan.make(for: session)
        return plan.copiesAnything ? plan : nil
    }

    /// Renders `chunk` of what `session` exports, picture only, to `url`: its frames are
    /// those of the whole timeline at the same times (its timestamps start at zero), its
    /// first frame an IDR frame and its GOPs closed, `plan.framesPerGOP` frames each. When
    /// the plan is smart (``ChunkPlan/smart``), the chunk is the whole timeline's smart
    /// render over its frames instead: the sources' untouched GOPs copied, the rest rendered
    /// as the whole render renders it. The file appears only when complete.
    /// - Throws: ``ReelError`` as ``ExportSession/export(progressHandler:)``; for a smart
    ///   plan, `.invalidData` when the sources no longer give the plan's smart render.
    public static func renderChunk(_ chunk: ChunkPlan.Chunk, of session: ExportSession, plan: ChunkPlan, to url: URL,
                                   progressHandler: (@Sendable (Double) -> Void)? = nil) throws(ReelError) {
        if plan.smart {
            try renderSmartChunk(chunk, of: session, plan: plan, to: url, progressHandler: progressHandler)
            return
        }
        let part = ExportSession(composition: session.composition, preset: session.preset)
        part.videoComposition = session.videoComposition
        part.audioMix = session.audioMix
        part.outputURL = url
        part.outputFileType = .mp4
        part.timeRange = chunk.range
        part.includesAudio = false
        part.keyFrameInterval = plan.framesPerGOP
        part.shouldOptimizeForNetworkUse = false
        try part.exportSynchronously(progressHandler: progressHandler)
    }

    /// A smart chunk: the whole timeline's smart render plan, made again here (the same
    /// sources give the same plan), written over the chunk's frames.
    private static func renderSmartChunk(_ chunk: ChunkPlan.Chunk, of session: ExportSession, plan: ChunkPlan, to url: URL,
                                         progressHandler: (@Sendable (Double) -> Void)?) throws(ReelError) {
        let plain = session.videoComposition == nil ? ExportSession.plainVideoComposition(of: session.composition) : nil
        let video = session.videoComposition ?? plain?.video ?? VideoComposition(propertiesOf: session.composition)
        try video.validate(for: session.composition)
        let smart = try SmartRenderPlan.make(for: session)
        let first = ChunkPlan.frames(in: chunk.range.start, of: plan.frameDuration)
        guard smart.copiesAnything, smart.frameCount == plan.frameCount, smart.frameDuration == plan.frameDuration,
              plan.frameDuration * Int64(first) == chunk.range.start else {
            throw ReelError(.invalidData, "the sources no longer give the smart render this job was planned for (plan it again)",
                            subject: url.path)
        }
        let (width, height) = session.preset.outputSize(for: video.renderSize)
        try RenderMemory.check(width: width, height: height)
        let settings = SmartRenderSplicer.Settings(width: width, height: height, quality: session.preset.quality, fileType: .mp4,
                                                   optimizeForNetwork: false, transform: plain?.displayMatrix)
        try SmartRenderSplicer.write(smart, composition: session.composition, video: video, audioMix: session.audioMix,
                                     pitch: session.audioTimePitchAlgorithm, settings: settings, frames: first..<(first + chunk.frameCount),
                                     to: url, isCancelled: { false }, progress: { progressHandler?($0) })
    }

    /// Whether `session`'s composition has sound for `renderSound(of:to:)` to render.
    public static func hasSound(_ session: ExportSession) -> Bool { ExportSession.hasSound(session.composition) }

    /// Renders the sound of the whole timeline of `session` (its audio mix and pitch
    /// algorithm applied) to `url`: AAC, 48 kHz stereo, in an MP4 of its own, exactly as
    /// long as the composition. The file appears only when complete.
    /// - Throws: ``ReelError`` `.invalidArgument` when the composition has no sound; a
    ///   read or write failure.
    public static func renderSound(of session: ExportSession, to url: URL,
                                   progressHandler: (@Sendable (Double) -> Void)? = nil) throws(ReelError) {
        guard hasSound(session) else {
            throw ReelError(.invalidArgument, "the composition has no sound to render", subject: url.path)
        }
        let duration = session.composition.duration
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        writer.shouldOptimizeForNetworkUse = false
        let input = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(
            codec: .aac, sampleRate: AudioRenderer.sampleRate, channelCount: 2))
        try writer.add(input)
        let renderer = AudioRenderer(composition: session.composition, mix: session.audioMix, pitch: session.audioTimePitchAlgorithm)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        writer.exportCheck = ExportCheck(video: nil, audio: MediaTimeRange(start: .zero, duration: duration))
        let rate = Int64(AudioRenderer.sampleRate)
        let last = duration.multiplied(byRatio: rate, divisor: 1).convertScale(1).value
        var next: Int64 = 0
        do throws(ReelError) {
            while next < last {
                let count = Int(min(4096, last - next))
                let block = try renderer.render(startSample: next, count: count)
                try input.append(SampleBuffer(audioBuffer: block, presentationTime: MediaTime(value: next, timescale: Int32(rate))))
                next += Int64(count)
                progressHandler?(Double(next) / Double(max(last, 1)))
            }
            writer.endSession(atSourceTime: duration)
            try writer.finishSynchronously()
        } catch {
            writer.cancelWriting()
            throw error
        }
    }

    /// Joins the rendered chunks of `plan` (`chunkFiles[i]` holds `plan.chunks[i]`) by stream
    /// copy, in timeline order, and muxes the sound (from `renderSound(of:to:)`) beside
    /// them, copied too: nothing is decoded or encoded. The index goes in front of the media
    /// (moov first); the output is checked (picture and sound over the plan's duration) and
    /// appears only when complete.
    /// - Throws: ``ReelError`` naming the chunk file that is missing, has a length other
    ///   than planned, or coding parameters other than the first chunk's; a read or write failure.
    public static func join(_ plan: ChunkPlan, chunkFiles: [URL], sound: URL?, to url: URL, fileType: FileType) throws(ReelError) {
        guard !plan.chunks.isEmpty, chunkFiles.count == plan.chunks.count else {
            throw ReelError(.invalidArgument, "the plan has \(plan.chunks.count) chunks but \(chunkFiles.count) files were given",
                            subject: url.path)
        }
        struct Part {
            let demuxer: Demuxer
            let stream: Int
            let shows: MediaTimeRange
            let target: MediaTime
            let frames: Int
            let transform: ReelCore.AffineTransform
        }
        var parts: [Part] = []
        let order = plan.chunks.indices.sorted { plan.chunks[$0].range.start < plan.chunks[$1].range.start }
        let slack = MediaTime(value: 1, timescale: 1000)
        for index in order {
            let chunk = plan.chunks[index], file = chunkFiles[index]
            let asset = try Asset(url: file)
            guard let video = asset.tracks(withMediaType: .video).first else {
                throw ReelError(.invalidData, "chunk \(index) has no video", subject: file.path)
            }
            let shown = video.timeRange
            guard abs((shown.duration - chunk.range.duration).seconds) <= slack.seconds else {
                throw ReelError(.invalidData, "chunk \(index) lasts \(shown.duration.seconds) s, not the planned \(chunk.range.duration.seconds) s",
                                subject: file.path)
            }
            let demuxer = try Demuxer(path: file.path, probing: false)
            if let first = parts.first, let difference = demuxer.parameterDifference(stream: video.streamIndex, from: first.demuxer,
                                                                                      stream: first.stream) {
                throw ReelError(.unsupported, "chunk \(index)'s video has \(difference) of the first chunk's; they cannot be joined",
                                subject: file.path)
            }
            parts.append(Part(demuxer: demuxer, stream: video.streamIndex, shows: shown, target: chunk.range.start,
                              frames: chunk.frameCount, transform: video.preferredTransform))
        }
        var soundSource: (demuxer: Demuxer, stream: Int)?
        if let sound {
            let demuxer = try Demuxer(path: sound.path, probing: false)
            guard let stream = demuxer.streams.first(where: { $0.mediaType == .audio }) else {
                throw ReelError(.invalidData, "the sound file has no audio", subject: sound.path)
            }
            for other in demuxer.streams where other.index != stream.index { demuxer.setDiscarded(true, streamIndex: other.index) }
            soundSource = (demuxer, stream.index)
        }

        let partial = TemporaryOutput(beside: url)
        let temporary = partial.url
        defer { partial.release() }
        do throws(ReelError) {
            let first = parts[0]
            let muxer = try Muxer(path: temporary.path, formatName: fileType.muxerName)
            let videoOut = try muxer.addStream(copying: first.demuxer, streamIndex: first.stream)
            // Smart chunks whose parameter sets come in band (avc3) keep saying so.
            if first.demuxer.streams[first.stream].codecTag == "avc3" { muxer.setCodecTag("avc3", streamIndex: videoOut) }
            if !first.transform.isIdentity { try muxer.setDisplayMatrix(first.transform, streamIndex: videoOut) }
            let audioOut = try soundSource.map { (source) throws(ReelError) in try muxer.addStream(copying: source.demuxer, streamIndex: source.stream) }
            muxer.setMetadata("creation_time", Date.ISO8601FormatStyle().format(Date()))
            let audioPackets = soundSource.map { [$0.demuxer.streams[$0.stream].frameCount] } ?? []
            let reserve = fileType.isISOBaseMedia
                ? PassthroughExport.indexFirstOptions(samples: parts.map(\.frames) + audioPackets, edits: 2) : nil
            try muxer.writeHeader(options: (reserve ?? [:]).merging(MovieIndex.movieTimescaleOptions(
                videoTimeBase: first.demuxer.streams[first.stream].timeBase, for: fileType.muxerName)) { $1 })
            let output = muxer.timeBase(ofStream: videoOut)
            // The sound's packets, copied up to each picture's time so that the file interleaves.
            let packet = try Packet(), soundPacket = try Packet()
            var held = false
            var exhausted = soundSource == nil
            var join = StreamJoin()
            func sound(until time: MediaTime) throws(ReelError) {
                guard let source = soundSource, let audioOut else { return }
                let base = source.demuxer.streams[source.stream].timeBase
                while !exhausted {
                    if !held {
                        guard try source.demuxer.read(into: soundPacket) else {
                            exhausted = true
                            return
                        }
                        guard soundPacket.streamIndex == source.stream else { continue }
                        held = true
                    }
                    let stamp = soundPacket.decodeTimestamp != FFmpeg.noTimestamp ? soundPacket.decodeTimestamp
                        : soundPacket.presentationTimestamp
                    if time.isNumeric, base.time(stamp) >= time { return }
                    try muxer.writeCopy(soundPacket, streamIndex: audioOut, source: base, offset: .zero, join: &join)
                    held = false
                }
            }
            // Each chunk's packets moved to its place on the timeline, all by the same encoder
            // delay (the B-frame reordering every chunk starts with), so that decode times stay
            // positive and the chunks follow one another in the media exactly as on the timeline.
            var delay: MediaTime?
            var lastDecode = Int64.min
            for (number, part) in parts.enumerated() {
                let base = part.demuxer.streams[part.stream].timeBase
                for stream in part.demuxer.streams.indices { part.demuxer.setDiscarded(stream != part.stream, streamIndex: stream) }
                var count = 0
                while try part.demuxer.read(into: packet) {
                    guard packet.streamIndex == part.stream, packet.presentationTimestamp != FFmpeg.noTimestamp else { continue }
                    let shown = base.time(packet.presentationTimestamp)
                    let decoded = packet.decodeTimestamp != FFmpeg.noTimestamp ? base.time(packet.decodeTimestamp) : shown
                    let lead = delay ?? max(.zero, shown - decoded)
                    delay = lead
                    let shift = part.target + lead
                    let decode = output.timestamp(decoded + shift)
                    guard decode > lastDecode else {
                        throw ReelError(.invalidData, "chunk \(order[number])'s decode times overlap the chunk before it; it cannot be joined",
                                        subject: chunkFiles[order[number]].path)
                    }
                    lastDecode = decode
                    try sound(until: decoded + part.target)
                    // The demuxer may leave durations out; the muxer needs the last one (the edit list ends the timeline).
                    let ticks = output.timestamp(packet.durationTicks > 0 ? base.time(packet.durationTicks) : plan.frameDuration)
                    packet.setTimestamps(presentation: output.timestamp(shown + shift), decode: decode)
                    packet.setDuration(ticks)
                    packet.clearDiscarded()
                    packet.setStreamIndex(videoOut)
                    try muxer.writeRaw(packet)
                    count += 1
                }
                guard count == part.frames || part.frames <= 0 else {
                    throw ReelError(.invalidData, "chunk \(order[number]) holds \(count) frames, not the planned \(part.frames)",
                                    subject: chunkFiles[order[number]].path)
                }
            }
            try sound(until: .positiveInfinity)
            try muxer.finish()
            // One edit-list entry shows the whole timeline: the media from the first picture on.
            let shown = EditListEntry(start: .zero, end: plan.duration, mediaStart: delay ?? .zero)
            try MovieIndex.rewrite(temporary.path, edits: [videoOut: [shown]], indexFirst: fileType.isISOBaseMedia)
            try ExportCheck(both: MediaTimeRange(start: .zero, duration: plan.duration), hasAudio: soundSource != nil)
                .verify(temporary, as: url)
            try AssetWriter.moveIntoPlace(temporary, destination: url)
        } catch {
            partial.discard()
            throw error.renamingSubject(temporary.path, to: url.path)
        }
    }
}

import Foundation
import ReelAV
import ReelAsset
import ReelCore

/// Writes a ``SmartRenderPlan``: copied ranges are the sources' packets, untouched; each
/// rendered range is encoded by an encoder of its own that starts on an IDR frame and is
/// drained at the range's end, so that it holds closed GOPs and ends exactly before the next
/// copied GOP (which starts on an IDR frame itself). The sound is rendered once for the
/// whole timeline, as a full export renders it.
///
/// The rendered pictures are encoded to match the copied stream: H.264 with the first
/// copied source's profile, level, colour description and frame rate. x264 configured so
/// writes the same sequence and picture parameter sets as an x264 source, and then the
/// stream has one set, in its `avcC` box, as a plain `avc1` stream. When the sets differ
/// (another encoder made the source), each part carries its own in the stream, in front of
/// its first IDR picture, and the track is tagged `avc3`, whose sample entry says that
/// parameter sets may come in the stream (ISO/IEC 14496-15); FFmpeg and Chromium decode
/// the new set at each splice.
///
/// Decode times are laid on one grid: the n-th packet of a range that starts at frame s is
/// decoded at frame s + n, and every picture is shown `delay` frames later than its time
/// (the most any part reorders), which the edit list hides.
enum SmartRenderSplicer {
    struct Settings {
        var width: Int
        var height: Int
        var quality: Double
        var fileType: FileType
        var optimizeForNetwork: Bool
        var transform: ReelCore.AffineTransform?
    }

    /// Writes `plan` to `url`; the file appears only when complete.
    ///
    /// With `frames`, only those output frames are written, picture only, timed from the
    /// first of them: a chunk of a chunked export (``ChunkedExport``). Everything the chunks
    /// must share to be joined by copying (the reference parameter sets, in-band sets or not,
    /// the reordering delay, the encoder's settings) is decided from the whole plan, so each
    /// chunk holds the packets the whole render writes for its frames. A chunk may only start
    /// and end where ``SmartRenderPlan/cutFrames`` allows (never inside a copied GOP); one
    /// that starts later than frame 0 carries the parameter sets in band at its start when
    /// the stream has them in band at all.
    /// - Throws: ``ReelError``: `.unsupported` when a source cannot be spliced (no `avcC`,
    ///   another NAL length size, more reordering than planned), `.invalidArgument` when
    ///   `frames` cuts a copied GOP, `.cancelled`, or a read or write failure; nothing is left
    ///   under the output's name.
    static func write(_ plan: SmartRenderPlan, composition: MutableComposition, video: VideoComposition, audioMix: AudioMix?,
                      pitch: AudioTimePitchAlgorithm, settings: Settings, frames part: Swift.Range<Int>? = nil, to url: URL,
                      isCancelled: () -> Bool, progress: (Double) -> Void) throws(ReelError) {
        guard let firstCopy = plan.ranges.first(where: { $0.action == .copy }), let firstSource = firstCopy.source else {
            throw ReelError(.invalidArgument, "the plan copies nothing", subject: url.path)
        }
        let origin = part?.lowerBound ?? 0, end = part?.upperBound ?? plan.frameCount
        guard origin >= 0, origin < end, end <= plan.frameCount else {
            throw ReelError(.invalidArgument, "frames \(origin)..<\(end) are not inside the plan's \(plan.frameCount)", subject: url.path)
        }
        var demuxers: [String: Demuxer] = [:]
        func demuxer(_ source: URL) throws(ReelError) -> Demuxer {
            if let open = demuxers[source.path] { return open }
            let opened = try Demuxer(path: source.path, probing: false)
            demuxers[source.path] = opened
            return opened
        }
        let reference = try demuxer(firstSource)
        guard let coding = reference.videoCoding(ofStream: firstCopy.streamIndex),
              let referenceSets = AVCConfiguration(avcC: coding.extradata) else {
            throw ReelError(.unsupported, "has no avcC set-up data to splice with", subject: firstSource.path)
        }
        let fd = plan.frameDuration
        guard fd.value > 0, fd.value <= Int64(Int32.max) else {
            throw ReelError(.unsupported, "a frame duration of \(fd) cannot be an encoder time base", subject: url.path)
        }
        let shownDuration = end == plan.frameCount ? plan.duration - fd * Int64(origin) : fd * Int64(end - origin)
        let pieces = try Self.pieces(of: plan, frames: origin..<end, for: url)
        // The most any copied part reorders (frames a picture is shown after its decode slot).
        var copiedDelay = 0
        for range in plan.ranges where range.action == .copy {
            for (n, frame) in range.packetFrames.enumerated() { copiedDelay = max(copiedDelay, range.firstFrame + n - frame) }
        }
        var configuration = VideoEncoderConfiguration(encoderName: "libx264", width: settings.width, height: settings.height,
                                                      pixelFormat: .yuv420p, timeBase: Rational(Int32(fd.value), fd.timescale))
        configuration.frameRate = Rational(fd.timescale, Int32(fd.value))
        configuration.crf = settings.quality
        configuration.preset = "medium"
        configuration.profile = coding.x264Profile
        if coding.level > 0 { configuration.options["level"] = String(coding.level) }
        configuration.options["color_primaries"] = String(coding.colorPrimaries)
        configuration.options["color_trc"] = String(coding.colorTransfer)
        configuration.options["colorspace"] = String(coding.colorSpace)
        configuration.options["color_range"] = String(coding.colorRange)
        // As every export sets it (AssetWriter: x264's threaded lookahead picks frame types
        // from however many frames have arrived). It is not enough to make rendered ranges the
        // same bytes from run to run: two single smart renders of a 10-minute timeline at load
        // 14 still decoded differently in 1603 of its 2440 rendered frames (copied ones always
        // agree); the cause is not found yet.
        configuration.options["x264-params"] = "sync-lookahead=0"
        // x264 shows a picture at most 2 frames after its decode slot (B-pyramid); its B-frames
        // stay on even where the copied parts happen to have none, since x264 writes the
        // reordering it may use into the SPS, which should be the source's.
        let rendersBFrames = coding.x264Profile != "baseline"
        let delay = max(copiedDelay, plan.ranges.contains { $0.action == .render } && rendersBFrames ? 2 : 0)
        // The parameter sets x264 writes, from an encoder opened with a global header.
        func sets(of configuration: VideoEncoderConfiguration) throws(ReelError) -> AVCConfiguration {
            var probe = configuration
            probe.globalHeader = true
            return AVCConfiguration(annexB: try Encoder(video: probe).extradata)
        }
        var sameSets = try sets(of: configuration).parameterSets == referenceSets.parameterSets
        // x264 writes its CRF into the PPS: at the source's own CRF the sets are the source's,
        // and the rendered frames get the copied ones' quality.
        if !sameSets, let qp = referenceSets.pictureInitialQP, Double(qp) != configuration.crf {
            var matching = configuration
            matching.crf = Double(qp)
            if try sets(of: matching).parameterSets == referenceSets.parameterSets {
                configuration = matching
                sameSets = true
            }
        }
        var distinctSources = Set<[UInt8]>()
        for range in plan.ranges where range.action == .copy {
            guard let source = range.source, let sets = AVCConfiguration(avcC: try demuxer(source).videoCoding(
                ofStream: range.streamIndex)?.extradata ?? []) else { continue }
            guard sets.lengthSize == referenceSets.lengthSize else {
                throw ReelError(.unsupported, "stores NAL lengths in \(sets.lengthSize) bytes, not \(referenceSets.lengthSize)",
                                subject: source.path)
            }
            distinctSources.insert(sets.parameterSets.flatMap { $0 + [0xFF, 0xFF] })
        }
        let inBand = !sameSets || distinctSources.count > 1

        let partial = TemporaryOutput(beside: url)
        let temporary = partial.url
        defer { partial.release() }
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: settings.fileType.muxerName)
            let videoOut = try muxer.addStream(copying: reference, streamIndex: firstCopy.streamIndex)
            if inBand { muxer.setCodecTag("avc3", streamIndex: videoOut) }
            if let transform = settings.transform, !transform.isIdentity { try muxer.setDisplayMatrix(transform, streamIndex: videoOut) }
            let hasSound = part == nil && ExportSession.hasSound(composition)
            let lane = hasSound ? try AudioEncodingLane(channels: 2, muxer: muxer) : nil
            muxer.setMetadata("creation_time", Date.ISO8601FormatStyle().format(Date()))
            let audioPackets = lane == nil ? [] : [Int(min(max(plan.duration.seconds, 0), 1e9) * 48000 / 1024) + 8]
            let reserve = settings.optimizeForNetwork
                ? PassthroughExport.indexFirstOptions(samples: [end - origin] + audioPackets, edits: 2) : nil
            try muxer.writeHeader(options: (reserve ?? [:]).merging(MovieIndex.movieTimescaleOptions(
                videoTimeBase: reference.streams[firstCopy.streamIndex].timeBase, for: settings.fileType.muxerName)) { $1 })
            let output = muxer.timeBase(ofStream: videoOut)
            let frameTicks = max(1, output.timestamp(fd))
            let mixer = AudioRenderer(composition: composition, mix: audioMix, pitch: pitch)
            var nextSample: Int64 = 0
            func sound(until time: MediaTime) throws(ReelError) {
                guard let lane else { return }
                let last = min(time, plan.duration).multiplied(byRatio: 48000, divisor: 1).convertScale(1).value
                while nextSample < last {
                    let count = Int(min(4096, last - nextSample))
                    try lane.append(try mixer.render(startSample: nextSample, count: count))
                    nextSample += Int64(count)
                }
            }
            /// Writes a packet decoded in slot `slot` and shown at frame `frame`.
            func place(_ packet: Packet, slot: Int, frame: Int) throws(ReelError) {
                guard frame + delay >= slot else {
                    throw ReelError(.unsupported, "frame \(frame) would be shown before it is decoded (reordered more than \(delay) frames)",
                                    subject: url.path)
                }
                try sound(until: fd * Int64(frame))
                packet.setTimestamps(presentation: output.timestamp(fd * Int64(frame - origin + delay)),
                                     decode: output.timestamp(fd * Int64(slot - origin)))
                packet.setDuration(frameTicks)
                packet.clearDiscarded()
                packet.setStreamIndex(videoOut)
                packet.clearPosition()
                try muxer.writeRaw(packet)
            }

            // Sources decode on threads of their own while frames are composed and encoded, as in a full export.
            let readAhead = settings.width * settings.height > RenderMemory.largeFrameArea ? 3 : 8
            let renderer = try VideoRenderer(composition: composition, videoComposition: video, outputWidth: settings.width,
                                             outputHeight: settings.height, readAhead: readAhead)
            defer { renderer.close() }
            let scaler = Scaler()
            let packet = try Packet()
            // The parameter sets the decoder holds after the last packet written: a chunk after
            // the first cannot know the chunk before's, so it states its own.
            var current = origin > 0 ? [] : referenceSets.parameterSets
            var done = 0
            let total = max(end - origin, 1)
            for piece in pieces {
                let range = piece.range
                if isCancelled() { throw ReelError(.cancelled, "the export was cancelled", subject: url.path) }
                switch range.action {
                case .copy:
                    guard let source = range.source else { continue }
                    let input = try demuxer(source)
                    let sets = AVCConfiguration(avcC: input.videoCoding(ofStream: range.streamIndex)?.extradata ?? [])?.parameterSets ?? current
                    for index in input.streams.indices { input.setDiscarded(index != range.streamIndex, streamIndex: index) }
                    guard try input.seek(streamIndex: range.streamIndex, to: range.sourceStart ?? .zero) else {
                        throw ReelError(.invalidData, "has no keyframe at \(range.sourceStart?.seconds ?? 0) s to copy from", subject: source.path)
                    }
                    var n = 0
                    var found = false
                    while n < piece.limit, try input.read(into: packet) {
                        guard packet.streamIndex == range.streamIndex, packet.presentationTimestamp != FFmpeg.noTimestamp else { continue }
                        let dts = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
                        if !found {
                            guard dts >= range.firstDecodeTimestamp else { continue }
                            guard dts == range.firstDecodeTimestamp else {
                                throw ReelError(.invalidData, "the packet planned at \(range.sourceStart?.seconds ?? 0) s is not there on reading",
                                                subject: source.path)
                            }
                            found = true
                        }
                        // The packets before a chunk's first frame are read past, not written.
                        guard n >= piece.skip else {
                            n += 1
                            continue
                        }
                        if n == piece.skip, inBand, sets != current {
                            try packet.setPayload(referenceSets.lengthPrefixed(sets) + packet.payload)
                            current = sets
                        }
                        try place(packet, slot: range.firstFrame + n, frame: range.packetFrames[n])
                        n += 1
                        done += 1
                        progress(Double(done) / Double(total))
                        if isCancelled() { throw ReelError(.cancelled, "the export was cancelled", subject: url.path) }
                    }
                    guard n == piece.limit else {
                        throw ReelError(.invalidData, "ended after \(n) of the \(piece.limit) packets planned from \(range.sourceStart?.seconds ?? 0) s",
                                        subject: source.path)
                    }
                case .render:
                    try renderer.seek(to: range.timeRange.start)
                    let encoder = try Encoder(video: configuration)
                    let picture = try encoder.makeVideoFrame()
                    var n = 0
                    func drain() throws(ReelError) {
                        while try encoder.receive(into: packet) == .produced {
                            let frame = Int(clamping: packet.presentationTimestamp)
                            var units = AVCConfiguration.annexBUnits(packet.payload)
                            let setsHere = units.filter { [7, 8].contains(($0.first ?? 0) & 0x1F) }
                            if !inBand || setsHere.isEmpty {
                                units.removeAll { [7, 8].contains(($0.first ?? 0) & 0x1F) }
                            } else {
                                current = setsHere
                            }
                            try packet.setPayload(referenceSets.lengthPrefixed(units))
                            try place(packet, slot: range.firstFrame + n, frame: frame)
                            n += 1
                        }
                    }
                    for frame in range.firstFrame..<(range.firstFrame + range.frameCount) {
                        if isCancelled() { throw ReelError(.cancelled, "the export was cancelled", subject: url.path) }
                        let rendered = try renderer.frame(at: fd * Int64(frame))
                        try picture.makeWritable()
                        try scaler.convert(rendered, into: picture)
                        picture.presentationTimestamp = Int64(frame)
                        while try encoder.send(picture) == .needsInput { try drain() }
                        try drain()
                        done += 1
                        progress(Double(done) / Double(total))
                    }
                    _ = try encoder.send(nil)
                    try drain()
                    guard n == range.frameCount else {
                        throw ReelError(.invalidState, "the encoder gave \(n) pictures for \(range.frameCount) frames", subject: url.path)
                    }
                }
            }
            try sound(until: plan.duration)
            try lane?.finish()
            try muxer.finish()
            let shown = EditListEntry(start: .zero, end: shownDuration, mediaStart: fd * Int64(delay))
            try MovieIndex.rewrite(temporary.path, edits: [videoOut: [shown]], indexFirst: settings.optimizeForNetwork)
            let check = part == nil ? ExportCheck(both: MediaTimeRange(start: .zero, duration: plan.duration), hasAudio: lane != nil)
                : ExportCheck(video: MediaTimeRange(start: .zero, duration: shownDuration), audio: nil)
            try check.verify(temporary, as: url)
            try AssetWriter.moveIntoPlace(temporary, destination: url)
        } catch {
            partial.discard()
            throw error.renamingSubject(temporary.path, to: url.path)
        }
    }

    /// A part of the plan to write: a range (rendered ranges that touch merged into one, as
    /// one encode: one seek of the sources, one encoder), and for a copy the packets of it to
    /// write, `skip..<limit` (all of them unless a chunk's edge falls inside it).
    struct Piece {
        var range: SmartRenderPlan.Range
        var skip = 0
        var limit = 0
    }

    /// The plan's ranges over `frames`, rendered ones that touch merged, cut at its edges.
    /// - Throws: ``ReelError`` `.invalidArgument` when an edge falls inside a copied GOP.
    static func pieces(of plan: SmartRenderPlan, frames: Swift.Range<Int>, for url: URL) throws(ReelError) -> [Piece] {
        var merged: [SmartRenderPlan.Range] = []
        for range in plan.ranges {
            if range.action == .render, var last = merged.last, last.action == .render,
               last.firstFrame + last.frameCount == range.firstFrame {
                last.frameCount += range.frameCount
                last.timeRange = MediaTimeRange(start: last.timeRange.start, end: range.timeRange.end)
                merged[merged.count - 1] = last
            } else {
                merged.append(range)
            }
        }
        var pieces: [Piece] = []
        for range in merged {
            let from = max(range.firstFrame, frames.lowerBound), to = min(range.firstFrame + range.frameCount, frames.upperBound)
            guard from < to else { continue }
            switch range.action {
            case .render:
                var clipped = range
                clipped.firstFrame = from
                clipped.frameCount = to - from
                let start = from == range.firstFrame ? range.timeRange.start : plan.frameDuration * Int64(from)
                let stop = to == range.firstFrame + range.frameCount ? range.timeRange.end : plan.frameDuration * Int64(to)
                clipped.timeRange = MediaTimeRange(start: start, end: stop)
                pieces.append(Piece(range: clipped))
            case .copy:
                let skip = from - range.firstFrame, limit = to - range.firstFrame
                for edge in [skip, limit] where edge != 0 && edge != range.frameCount && !range.gopStarts.contains(edge) {
                    throw ReelError(.invalidArgument, "frame \(range.firstFrame + edge) lies inside a GOP copied from \(range.source?.lastPathComponent ?? "a source"): a smart chunk starts and ends only where a GOP or a rendered run does",
                                    subject: url.path)
                }
                pieces.append(Piece(range: range, skip: skip, limit: limit))
            }
        }
        return pieces
    }
}

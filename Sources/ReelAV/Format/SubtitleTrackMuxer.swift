import CFFmpeg
package import ReelCore

/// Copies a movie's streams into a new file and adds a soft subtitle track: `mov_text`
/// (3GPP timed text, what MP4 and QuickTime players show as a subtitle track), encoded
/// by FFmpeg's encoder from ASS events, one sample per cue (the muxer fills the gaps
/// between cues with empty samples).
package enum SubtitleTrackMuxer {
    /// One cue: milliseconds on the movie's timeline, and its text as an ASS event's text.
    package struct Cue: Sendable {
        package var start: Int64
        package var end: Int64
        package var assText: String

        package init(start: Int64, end: Int64, assText: String) {
            self.start = start
            self.end = end
            self.assText = assText
        }
    }

    /// Writes `output`: every stream of `movie` copied, then a `mov_text` track of `cues`.
    /// - Parameters:
    ///   - movie: The rendered movie (MP4 or MOV).
    ///   - output: The file to write.
    ///   - formatName: `mp4` or `mov`.
    ///   - header: An ASS script header (styles), which the encoder reads.
    ///   - cues: In time order.
    ///   - language: An ISO 639-2 code for the track (`und` when unknown).
    /// - Throws: ``ReelError`` with FFmpeg's message, about `output` or `movie`.
    package static func write(movie: String, to output: String, formatName: String, header: String, cues: [Cue],
                              language: String = "und") throws(ReelError) {
        let demuxer = try Demuxer(path: movie, probing: false)
        let muxer = try Muxer(path: output, formatName: formatName)
        var streamMap: [Int: Int] = [:]
        for stream in demuxer.streams where stream.mediaType == .video || stream.mediaType == .audio {
            streamMap[stream.index] = try muxer.addStream(copying: demuxer, streamIndex: stream.index)
        }
        let encoder = try TextEncoder(header: header)
        guard let subtitleStream = avformat_new_stream(muxer.context, nil) else {
            throw ReelError(.outOfMemory, "cannot add a stream", subject: output, operation: "avformat_new_stream")
        }
        try FFmpeg.check(avcodec_parameters_from_context(subtitleStream.pointee.codecpar, encoder.context),
                         "avcodec_parameters_from_context", subject: output)
        subtitleStream.pointee.time_base = AVRational(num: 1, den: 1000)
        av_dict_set(&subtitleStream.pointee.metadata, "language", language, 0)
        let subtitleIndex = Int(subtitleStream.pointee.index)
        do {
            try muxer.writeHeader(options: ["movflags": "+faststart"])
            let subtitleBase = muxer.timeBase(ofStream: subtitleIndex)
            var next = 0
            func writeCues(through milliseconds: Int64) throws(ReelError) {
                while next < cues.count, cues[next].start <= milliseconds {
                    let packet = try encoder.encode(cues[next])
                    packet.setStreamIndex(subtitleIndex)
                    packet.rescale(from: Rational(1, 1000), to: subtitleBase)
                    try muxer.writeRaw(packet)
                    next += 1
                }
            }
            let packet = try Packet()
            while try demuxer.read(into: packet) {
                defer { packet.reset() }
                guard let target = streamMap[packet.streamIndex] else { continue }
                let source = demuxer.streams[packet.streamIndex].timeBase
                let dts = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
                if dts != FFmpeg.noTimestamp { try writeCues(through: av_rescale_q(dts, source.av, AVRational(num: 1, den: 1000))) }
                packet.setStreamIndex(target)
                packet.pointer.pointee.pos = -1
                packet.rescale(from: source, to: muxer.timeBase(ofStream: target))
                try muxer.writeRaw(packet)
            }
            try writeCues(through: Int64.max)
            try muxer.finish()
        } catch {
            muxer.abandon()
            throw error
        }
    }
}

/// FFmpeg's `mov_text` encoder, opened with an ASS header.
private final class TextEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(header: String) throws(ReelError) {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT) else {
            throw ReelError(.unsupported, "this FFmpeg has no mov_text encoder", operation: "avcodec_find_encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw ReelError(.outOfMemory, "cannot allocate an encoder", operation: "avcodec_alloc_context3")
        }
        self.context = context
        context.pointee.time_base = AVRational(num: 1, den: 1000)
        let bytes = Array(header.utf8)
        guard let copy = av_mallocz(bytes.count + 1) else {
            throw ReelError(.outOfMemory, "cannot allocate the subtitle header", operation: "av_mallocz")
        }
        copy.copyMemory(from: bytes, byteCount: bytes.count)
        context.pointee.subtitle_header = copy.assumingMemoryBound(to: UInt8.self)
        context.pointee.subtitle_header_size = Int32(bytes.count)
        try FFmpeg.check(avcodec_open2(context, codec, nil), "avcodec_open2 mov_text")
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&doomed)
    }

    /// A packet of one cue, its times in milliseconds.
    func encode(_ cue: SubtitleTrackMuxer.Cue) throws(ReelError) -> Packet {
        var subtitle = AVSubtitle()
        subtitle.start_display_time = 0
        subtitle.end_display_time = UInt32(clamping: cue.end - cue.start)
        subtitle.pts = cue.start * 1000
        guard let rects = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.stride),
              let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.stride) else {
            throw ReelError(.outOfMemory, "cannot allocate a subtitle", operation: "av_mallocz")
        }
        let rectPointer = rect.assumingMemoryBound(to: AVSubtitleRect.self)
        rectPointer.pointee.type = SUBTITLE_ASS
        rectPointer.pointee.ass = av_strdup("0,0,Default,,0,0,0,,\(cue.assText)")
        rects.assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self).pointee = rectPointer
        subtitle.rects = rects.assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self)
        subtitle.num_rects = 1
        defer { avsubtitle_free(&subtitle) }
        let size = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(context, $0.baseAddress, Int32($0.count), &subtitle) }
        try FFmpeg.check(size, "avcodec_encode_subtitle mov_text")
        let packet = try Packet()
        try FFmpeg.check(av_new_packet(packet.pointer, size), "av_new_packet")
        buffer.withUnsafeBytes { bytes in
            if let data = packet.pointer.pointee.data, let base = bytes.baseAddress {
                data.update(from: base.assumingMemoryBound(to: UInt8.self), count: Int(size))
            }
        }
        packet.setTimestamps(presentation: cue.start, decode: cue.start)
        packet.setDuration(cue.end - cue.start)
        return packet
    }
}

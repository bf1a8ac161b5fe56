import CFFmpeg
package import ReelCore

/// An open decoder for one stream of a ``Demuxer``: `avcodec_alloc_context3`,
/// `avcodec_parameters_to_context`, `avcodec_open2`; freed in `deinit`.
/// Decodes with frame and slice threads on every core unless told otherwise.
package final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    package let timeBase: Rational
    package let streamIndex: Int

    /// - Parameter threads: decoding threads; 0 lets FFmpeg use every core.
    /// - Throws: ``ReelError`` `.unsupported` when this FFmpeg has no decoder for the codec.
    package init(demuxer: Demuxer, streamIndex: Int, threads: Int = 0) throws(ReelError) {
        guard let parameters = demuxer.codecParameters(ofStream: streamIndex) else {
            throw ReelError(.invalidArgument, "no stream \(streamIndex)", subject: demuxer.path)
        }
        let codecName = FFmpeg.string(avcodec_get_name(parameters.pointee.codec_id)) ?? "unknown"
        // VP9 with alpha (WebM's alpha_mode 1) carries the alpha as a second stream in each
        // block's additions: FFmpeg's own vp9 decoder drops it, libvpx's decodes it (yuva420p).
        let wantsAlpha = parameters.pointee.codec_id == AV_CODEC_ID_VP9
            && demuxer.streams.first(where: { $0.index == streamIndex })?.metadata.first(where: {
                $0.key.lowercased() == "alpha_mode" })?.value == "1"
        let alphaDecoder = wantsAlpha ? avcodec_find_decoder_by_name("libvpx-vp9") : nil
        guard let codec = alphaDecoder ?? avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw ReelError(.unsupported, "this FFmpeg has no decoder for \(codecName)", subject: demuxer.path,
                            operation: "avcodec_find_decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw ReelError(.outOfMemory, "cannot allocate a decoder", operation: "avcodec_alloc_context3")
        }
        self.context = context
        self.streamIndex = streamIndex
        timeBase = demuxer.streams[streamIndex].timeBase
        try FFmpeg.check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context",
                         subject: demuxer.path)
        context.pointee.pkt_timebase = timeBase.av
        context.pointee.thread_count = Int32(threads)
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        try FFmpeg.check(avcodec_open2(context, codec, nil), "avcodec_open2", subject: demuxer.path)
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&doomed)
    }

    /// Feeds a packet, or nil to start draining. `.needsInput` here means the decoder is
    /// full: receive frames first, then send the same packet again.
    package func send(_ packet: Packet?) throws(ReelError) -> CodecResult {
        let result = avcodec_send_packet(context, packet?.pointer)
        if result == FFmpeg.again { return .needsInput }
        if result == FFmpeg.endOfFile { return .endOfStream }
        try FFmpeg.check(result, "avcodec_send_packet")
        return .produced
    }

    /// Takes the next decoded frame into `frame`.
    package func receive(into frame: Frame) throws(ReelError) -> CodecResult {
        frame.reset()
        let result = avcodec_receive_frame(context, frame.pointer)
        if result == FFmpeg.again { return .needsInput }
        if result == FFmpeg.endOfFile { return .endOfStream }
        try FFmpeg.check(result, "avcodec_receive_frame")
        return .produced
    }

    /// Whether the next packets sent are dropped by the decoder when nothing refers to their
    /// picture (`skip_frame = AVDISCARD_NONREF`): H.264's non-reference B-frames, which no
    /// other frame is predicted from, so leaving them out changes no other picture. Set it
    /// before each ``send(_:)``: frame threads take it with each packet.
    package var skipsNonReferenceFrames: Bool {
        get { context.pointee.skip_frame == AVDISCARD_NONREF }
        set { context.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    /// Forgets buffered frames, after a seek. `avcodec_flush_buffers`.
    package func flush() { avcodec_flush_buffers(context) }
}

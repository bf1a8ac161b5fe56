import CFFmpeg
package import ReelCore

/// An open encoder: `avcodec_find_encoder_by_name`, `avcodec_alloc_context3`, the
/// settings, `avcodec_open2`; freed in `deinit`. Frames go in with ``send(_:)``,
/// packets come out with ``receive(into:)``; nil drains it.
package final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>
    package let timeBase: Rational

    /// Opens a video encoder.
    /// - Throws: ``ReelError`` `.unsupported` when this FFmpeg lacks the encoder, or with
    ///   FFmpeg's message when it rejects the settings.
    package init(video configuration: VideoEncoderConfiguration) throws(ReelError) {
        let (codec, context) = try Self.allocate(configuration.encoderName)
        self.codec = codec
        self.context = context
        timeBase = configuration.timeBase
        let format = configuration.pixelFormat.av
        guard format != AV_PIX_FMT_NONE else {
            throw ReelError(.unsupported, "unknown pixel format '\(configuration.pixelFormat)'")
        }
        context.pointee.width = Int32(configuration.width)
        context.pointee.height = Int32(configuration.height)
        context.pointee.pix_fmt = format
        context.pointee.time_base = configuration.timeBase.av
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        if let rate = configuration.frameRate, rate.isPositive { context.pointee.framerate = rate.av }
        if let bitRate = configuration.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        if let gop = configuration.keyFrameInterval { context.pointee.gop_size = Int32(gop) }
        if let quality = configuration.quality {
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = Int32(quality) * FF_QP2LAMBDA
        }
        if configuration.fullRange { context.pointee.color_range = AVCOL_RANGE_JPEG }
        if format.isYUVFormat, !format.isFullRangeYUV {
            // Tagged with the colours the pictures were converted with (ColorMatrix's rule at the
            // encoder's height, as the Scaler converts them), so that players read them back the
            // same: BT.709 HD, BT.601 (smpte170m) SD. Options naming the tags (a smart render
            // writing its source's) win, in avcodec_open2.
            let matrix = ColorMatrix(height: configuration.height)
            context.pointee.colorspace = matrix == .bt709 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
            context.pointee.color_primaries = matrix == .bt709 ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M
            context.pointee.color_trc = matrix == .bt709 ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M
            context.pointee.color_range = configuration.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        }
        context.pointee.thread_count = Int32(configuration.threads)
        if configuration.globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var options: [String: String] = configuration.options
        if let crf = configuration.crf { options["crf"] = String(crf) }
        if let preset = configuration.preset { options["preset"] = preset }
        if let profile = configuration.profile { options["profile"] = profile }
        try open(options: options, describing: configuration.encoderName)
    }

    /// Opens an audio encoder, in the first of float-planar, float or 16-bit the codec takes.
    package init(audio configuration: AudioEncoderConfiguration) throws(ReelError) {
        let (codec, context) = try Self.allocate(configuration.encoderName)
        self.codec = codec
        self.context = context
        timeBase = Rational(1, Int32(configuration.sampleRate))
        context.pointee.sample_rate = Int32(configuration.sampleRate)
        context.pointee.time_base = timeBase.av
        var layout = configuration.channelLayout.av
        try FFmpeg.check(av_channel_layout_copy(&context.pointee.ch_layout, &layout), "av_channel_layout_copy")
        av_channel_layout_uninit(&layout)
        context.pointee.sample_fmt = Self.preferredSampleFormat(codec)
        if let bitRate = configuration.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        if configuration.globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(options: [:], describing: configuration.encoderName)
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&doomed)
    }

    private static func allocate(_ name: String) throws(ReelError)
        -> (UnsafePointer<AVCodec>, UnsafeMutablePointer<AVCodecContext>) {
        FFmpeg.prepare()
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw ReelError(.unsupported, "this FFmpeg has no '\(name)' encoder", operation: "avcodec_find_encoder_by_name")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw ReelError(.outOfMemory, "cannot allocate an encoder", operation: "avcodec_alloc_context3")
        }
        return (codec, context)
    }

    private func open(options: [String: String], describing name: String) throws(ReelError) {
        var dictionary: OpaquePointer?
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        FFmpeg.clearLog()
        let result = avcodec_open2(context, codec, &dictionary)
        if result < 0 {
            var error = FFmpeg.error(result, "avcodec_open2")
            error.message = "cannot open the \(name) encoder: \(error.message)"
            throw error
        }
        if let leftover = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX),
           let key = FFmpeg.string(leftover.pointee.key) {
            throw ReelError(.invalidArgument, "the \(name) encoder has no option '\(key)'", operation: "avcodec_open2")
        }
    }

    private static func preferredSampleFormat(_ codec: UnsafePointer<AVCodec>) -> AVSampleFormat {
        guard let list = codec.pointee.sample_fmts else { return AV_SAMPLE_FMT_FLTP }
        var formats: [AVSampleFormat] = []
        var index = 0
        while list[index] != AV_SAMPLE_FMT_NONE {
            formats.append(list[index])
            index += 1
        }
        for wanted in [AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16] where formats.contains(wanted) {
            return wanted
        }
        return formats.first ?? AV_SAMPLE_FMT_FLTP
    }

    /// Samples per frame the audio encoder wants, or 0 when any count will do.
    package var frameSize: Int {
        if codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0 { return 0 }
        return Int(context.pointee.frame_size)
    }

    /// The sample layout the audio encoder takes.
    package var audioFormat: AudioFormat {
        let name = FFmpeg.string(av_get_sample_fmt_name(context.pointee.sample_fmt)) ?? "fltp"
        let channels = Int(context.pointee.ch_layout.nb_channels)
        return AudioFormat(sampleFormat: SampleFormat(rawValue: name), sampleRate: Int(context.pointee.sample_rate),
                           channelLayout: .default(channels: channels))
    }

    /// The context's own channel layout, in place: a pointer into FFmpeg's allocation (which
    /// lives as long as this encoder), not one escaped from `withUnsafeMutablePointer`, whose
    /// pointer is valid only inside its closure.
    var channelLayoutPointer: UnsafeMutablePointer<AVChannelLayout>? {
        context.pointer(to: \.ch_layout)
    }

    var pixelFormat: AVPixelFormat { context.pointee.pix_fmt }
    package var width: Int { Int(context.pointee.width) }
    package var height: Int { Int(context.pointee.height) }

    /// Feeds a frame, or nil to drain. `.needsInput` here means "receive packets first".
    package func send(_ frame: Frame?) throws(ReelError) -> CodecResult {
        if let picture = frame?.pointer, context.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            // Some encoders write the frame's tags rather than the context's (ProRes's frame
            // header, which decoders then believe over the container): the picture is in the
            // stream's colours, so it carries the stream's tags.
            picture.pointee.colorspace = context.pointee.colorspace
            picture.pointee.color_primaries = context.pointee.color_primaries
            picture.pointee.color_trc = context.pointee.color_trc
            picture.pointee.color_range = context.pointee.color_range
        }
        let result = avcodec_send_frame(context, frame?.pointer)
        if result == FFmpeg.again { return .needsInput }
        if result == FFmpeg.endOfFile { return .endOfStream }
        try FFmpeg.check(result, "avcodec_send_frame")
        return .produced
    }

    /// Takes the next packet into `packet`.
    package func receive(into packet: Packet) throws(ReelError) -> CodecResult {
        packet.reset()
        let result = avcodec_receive_packet(context, packet.pointer)
        if result == FFmpeg.again { return .needsInput }
        if result == FFmpeg.endOfFile { return .endOfStream }
        try FFmpeg.check(result, "avcodec_receive_packet")
        return .produced
    }

    /// Makes a frame for this video encoder's size and format.
    package func makeVideoFrame() throws(ReelError) -> Frame {
        let frame = try Frame()
        try frame.allocatePicture(width: width, height: height, format: context.pointee.pix_fmt)
        return frame
    }

    /// Makes a frame of `samples` samples in this audio encoder's format.
    package func makeAudioFrame(samples: Int) throws(ReelError) -> Frame {
        guard let layout = channelLayoutPointer else {
            throw ReelError(.invalidState, "the audio encoder has no channel layout", operation: "makeAudioFrame")
        }
        let frame = try Frame()
        try frame.allocateAudio(samples: samples, format: context.pointee.sample_fmt,
                                sampleRate: Int(context.pointee.sample_rate), layout: layout)
        return frame
    }
}

import CFFmpeg
package import ReelCore

/// An output file being written, in FFmpeg's order: `avformat_alloc_output_context2`,
/// streams added from open encoders, `avio_open`, `avformat_write_header`, interleaved
/// packets, `av_write_trailer`, `avio_closep`. `deinit` frees whatever was reached.
package final class Muxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    private var encoderTimeBases: [Int: Rational] = [:]
    private var headerWritten = false
    private var ioOpen = false
    /// The byte stream written to instead of a file, kept alive as long as the muxer.
    private var byteStream: MuxerByteStream?

    /// - Parameter formatName: FFmpeg's muxer name: `mp4`, `mov`, `ipod` (m4v), `webm`, `matroska`, `image2`.
    package init(path: String, formatName: String) throws(ReelError) {
        FFmpeg.prepare()
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_alloc_output_context2(&allocated, nil, formatName, path),
                         "avformat_alloc_output_context2", subject: path)
        guard let allocated else {
            throw ReelError(.unsupported, "no '\(formatName)' muxer", subject: path)
        }
        context = allocated
        self.path = path
    }

    /// A muxer whose bytes go to `stream` instead of a file.
    /// - Parameters:
    ///   - formatName: FFmpeg's muxer name.
    ///   - stream: Receives the bytes with the muxer's markers.
    ///   - name: What errors name as their subject.
    package convenience init(formatName: String, stream: MuxerByteStream, name: String) throws(ReelError) {
        try self.init(path: name, formatName: formatName)
        byteStream = stream
        context.pointee.pb = stream.io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    deinit {
        if ioOpen { avio_closep(&context.pointee.pb) }
        if byteStream != nil { context.pointee.pb = nil }
        avformat_free_context(context)
    }

    /// Whether the format wants codec headers out of band (`AVFMT_GLOBALHEADER`):
    /// encoders must then be opened with a global header.
    package var wantsGlobalHeader: Bool {
        (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0
    }

    /// Adds a stream carrying `encoder`'s output and returns its index.
    package func addStream(for encoder: Encoder, codecTag: String? = nil) throws(ReelError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw ReelError(.outOfMemory, "cannot add a stream", subject: path, operation: "avformat_new_stream")
        }
        try FFmpeg.check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context),
                         "avcodec_parameters_from_context", subject: path)
        stream.pointee.time_base = encoder.timeBase.av
        if let codecTag, codecTag.utf8.count == 4 {
            let bytes = Array(codecTag.utf8).map(UInt32.init)
            stream.pointee.codecpar.pointee.codec_tag = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
        }
        encoderTimeBases[Int(stream.pointee.index)] = encoder.timeBase
        return Int(stream.pointee.index)
    }

    /// Writes `transform` as the stream's display matrix (16.16 fixed point, the track matrix of MP4).
    package func setDisplayMatrix(_ transform: AffineTransform, streamIndex: Int) throws(ReelError) {
        guard let stream = context.pointee.streams[streamIndex] else { return }
        guard let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * MemoryLayout<Int32>.size) else {
            throw ReelError(.outOfMemory, "cannot add the display matrix", subject: path, operation: "av_stream_new_side_data")
        }
        let matrix = UnsafeMutableRawPointer(data).bindMemory(to: Int32.self, capacity: 9)
        func fixed(_ value: Double, _ unit: Double = 65536) -> Int32 { Int32(clamping: Int64((value * unit).rounded())) }
        let values: [Int32] = [fixed(transform.a), fixed(transform.b), 0,
                               fixed(transform.c), fixed(transform.d), 0,
                               fixed(transform.tx), fixed(transform.ty), 1 << 30]
        for (index, value) in values.enumerated() { matrix[index] = value }
    }

    /// Sets a container metadata tag (`creation_time`, `title`, `location`…).
    package func setMetadata(_ key: String, _ value: String) {
        av_dict_set(&context.pointee.metadata, key, value, 0)
    }

    /// Sets a stream metadata tag (`language`, `handler_name`…).
    package func setMetadata(_ key: String, _ value: String, streamIndex: Int) {
        guard let stream = context.pointee.streams[streamIndex] else { return }
        av_dict_set(&stream.pointee.metadata, key, value, 0)
    }

    /// Opens the file and writes the header, with muxer options such as `movflags`.
    /// - Throws: ``ReelError`` when the file cannot be created or the muxer refuses an option.
    package func writeHeader(options: [String: String] = [:]) throws(ReelError) {
        if byteStream == nil, context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try FFmpeg.check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", subject: path)
            ioOpen = true
        }
        var dictionary: OpaquePointer?
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        try FFmpeg.check(avformat_write_header(context, &dictionary), "avformat_write_header", subject: path)
        headerWritten = true
        if let leftover = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX),
           let key = FFmpeg.string(leftover.pointee.key) {
            throw ReelError(.invalidArgument, "the muxer has no option '\(key)'", subject: path)
        }
    }

    /// The time base the muxer chose for a stream (it may differ from the encoder's).
    package func timeBase(ofStream index: Int) -> Rational {
        Rational(context.pointee.streams[index]?.pointee.time_base ?? AVRational(num: 1, den: 1))
    }

    /// Writes an encoded packet of stream `streamIndex`, its timestamps in the encoder's
    /// time base. `av_interleaved_write_frame` takes the packet's payload.
    package func write(_ packet: Packet, streamIndex: Int) throws(ReelError) {
        packet.setStreamIndex(streamIndex)
        guard let encoderTimeBase = encoderTimeBases[streamIndex] else {
            throw ReelError(.invalidArgument, "stream \(streamIndex) has no encoder", subject: path)
        }
        packet.rescale(from: encoderTimeBase, to: timeBase(ofStream: streamIndex))
        try FFmpeg.check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame", subject: path)
    }

    /// Writes a packet whose timestamps are already in the stream's time base.
    package func writeRaw(_ packet: Packet) throws(ReelError) {
        try FFmpeg.check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame", subject: path)
    }

    /// Writes the trailer (the moov box of an MP4) and closes the file.
    package func finish() throws(ReelError) {
        guard headerWritten else { return }
        headerWritten = false
        try FFmpeg.check(av_write_trailer(context), "av_write_trailer", subject: path)
        byteStream?.flush()
        if ioOpen {
            ioOpen = false
            try FFmpeg.check(avio_closep(&context.pointee.pb), "avio_closep", subject: path)
        }
    }

    /// Pushes buffered bytes to the file, so that what was written survives a crash.
    package func flush() {
        if let io = context.pointee.pb { avio_flush(io) }
    }

    /// Closes the file without a trailer, for a cancelled or failed write.
    package func abandon() {
        headerWritten = false
        if ioOpen {
            ioOpen = false
            avio_closep(&context.pointee.pb)
        }
    }
}

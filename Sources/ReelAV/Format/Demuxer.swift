import CFFmpeg
package import ReelCore

/// An open input file: `avformat_open_input` and `avformat_find_stream_info` on
/// creation, `avformat_close_input` in `deinit`. Reads packets in file order.
package final class Demuxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    package let streams: [StreamInfo]

    /// Opens `path` and reads enough of it to describe every stream.
    /// - Parameter probing: whether to decode the first frames to fill in what the header
    ///   leaves out (`avformat_find_stream_info`). An ISO BMFF header (MP4, MOV) describes
    ///   its streams fully, so a reader that has the asset already can pass false there.
    /// - Parameter frameRate: for an image sequence (`f-%04d.png`), the frames a second its
    ///   pictures play at (image2's `framerate`, as ``ImageSequence/rational(_:)`` writes it); 25
    ///   when nil. Ignored for a file.
    /// - Throws: ``ReelError`` with FFmpeg's message, about `path`.
    package init(path: String, probing: Bool = true, frameRate: Double? = nil) throws(ReelError) {
        FFmpeg.prepare()
        FFmpeg.clearLog()
        var opened: UnsafeMutablePointer<AVFormatContext>?
        // A numbered PNG series (`f-%04d.png`) is read by image2 from its first number, at the
        // rate its opener gives; its frames are counted here, since image2 stops at a gap.
        let sequence = try ImageSequence(pattern: path)
        let frames = try sequence?.scan()
        if let sequence, let frames {
            guard let format = av_find_input_format("image2") else {
                throw ReelError(.unsupported, "this FFmpeg has no image2 input for image sequences", subject: path)
            }
            let rate = ImageSequence.rational(frameRate)
            var dictionary: OpaquePointer?
            av_dict_set(&dictionary, "framerate", "\(rate.numerator)/\(rate.denominator)", 0)
            av_dict_set(&dictionary, "start_number", "\(frames.first)", 0)
            av_dict_set(&dictionary, "pattern_type", "sequence", 0)
            defer { av_dict_free(&dictionary) }
            try FFmpeg.check(avformat_open_input(&opened, sequence.demuxerPath, format, &dictionary), "avformat_open_input",
                             subject: path)
        } else {
            try FFmpeg.check(avformat_open_input(&opened, path, nil, nil), "avformat_open_input", subject: path)
        }
        guard let context = opened else {
            throw ReelError(.ffmpeg, "the file could not be opened", subject: path, operation: "avformat_open_input")
        }
        let headerSuffices = !probing && (FFmpeg.string(context.pointee.iformat?.pointee.name) ?? "").hasPrefix("mov,")
        let found = headerSuffices ? 0 : avformat_find_stream_info(context, nil)
        if found < 0 {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&doomed)
            throw FFmpeg.error(found, "avformat_find_stream_info", subject: path)
        }
        self.context = context
        self.path = path
        var streams = (0..<Int(context.pointee.nb_streams)).compactMap { index in
            context.pointee.streams[index].map { Self.describe($0, index: index) }
        }
        if let frames {
            for index in streams.indices where streams[index].mediaType == .video { streams[index].frameCount = frames.count }
        }
        self.streams = streams
    }

    /// Opens a live device through libavdevice: `name` as the input format (`pulse`,
    /// `alsa`, `x11grab`, `video4linux2`) gets `url` and the private `options`.
    /// - Throws: ``ReelError`` with FFmpeg's message, about `subject`.
    package init(device url: String, inputFormat name: String, options: [String: String], subject: String) throws(ReelError) {
        FFmpeg.prepare()
        try FFmpeg.registerDevices()
        FFmpeg.clearLog()
        guard let format = av_find_input_format(name) else {
            throw ReelError(.unsupported, "this FFmpeg has no \(name) input", subject: subject, operation: "av_find_input_format")
        }
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        var opened: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_open_input(&opened, url, format, &dictionary), "avformat_open_input", subject: subject)
        guard let context = opened else {
            throw ReelError(.ffmpeg, "the device could not be opened", subject: subject, operation: "avformat_open_input")
        }
        self.context = context
        path = subject
        streams = (0..<Int(context.pointee.nb_streams)).compactMap { index in
            context.pointee.streams[index].map { Self.describe($0, index: index) }
        }
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&doomed)
    }

    /// The container's duration, or invalid when it does not say.
    package var duration: MediaTime {
        let value = context.pointee.duration
        guard value != FFmpeg.noTimestamp, value >= 0 else { return .invalid }
        return MediaTime(value: value, timescale: Int32(AV_TIME_BASE))
    }

    /// The container's start time, or zero.
    package var startTime: MediaTime {
        let value = context.pointee.start_time
        guard value != FFmpeg.noTimestamp else { return .zero }
        return MediaTime(value: value, timescale: Int32(AV_TIME_BASE))
    }

    /// FFmpeg's name of the container format (`mov,mp4,m4a,3gp,3g2,mj2`).
    package var formatName: String { FFmpeg.string(context.pointee.iformat?.pointee.name) ?? "unknown" }

    /// Container bit rate, or 0.
    package var bitRate: Int64 { context.pointee.bit_rate }

    /// Container-level metadata tags.
    package var metadata: [String: String] { Self.dictionary(context.pointee.metadata) }

    /// The size of the file in bytes, or -1 when unknown.
    package var fileSize: Int64 {
        guard let io = context.pointee.pb else { return -1 }
        return avio_size(io)
    }

    /// The end of the last byte the container's index points at, when the index places
    /// samples beyond the end of the file: the file was cut short. Nil for a whole file
    /// or a container without an index.
    package var indexedEndBeyondFile: Int64? {
        let size = fileSize
        guard size > 0 else { return nil }
        var end: Int64 = 0
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index] else { continue }
            let count = avformat_index_get_entries_count(stream)
            guard count > 0, let last = avformat_index_get_entry(stream, count - 1) else { continue }
            end = max(end, last.pointee.pos + Int64(last.pointee.size))
        }
        return end > size ? end : nil
    }

    /// Reads the next packet into `packet`. Returns false at the end of the file.
    /// - Throws: ``ReelError`` for a read error (a damaged file), about the path.
    package func read(into packet: Packet) throws(ReelError) -> Bool {
        packet.reset()
        let result = av_read_frame(context, packet.pointer)
        if result == FFmpeg.endOfFile { return false }
        try FFmpeg.check(result, "av_read_frame", subject: path)
        return true
    }

    /// Seeks so that the next packets of `streamIndex` start at the last keyframe at or
    /// before `time`. `avformat_seek_file` with a maximum timestamp of `time`.
    /// - Returns: false when the stream has no keyframe to start from at all (a track that
    ///   lists no samples): there is nothing to read there.
    @discardableResult
    package func seek(streamIndex: Int, to time: MediaTime) throws(ReelError) -> Bool {
        let stream = streams[streamIndex]
        let target = stream.timeBase.timestamp(time, method: .roundTowardNegativeInfinity)
        guard target != FFmpeg.noTimestamp else { return true }
        let result = avformat_seek_file(context, Int32(streamIndex), Int64.min, target, target, 0)
        // -1 (EPERM) is FFmpeg's generic search finding no keyframe anywhere.
        if result == FFmpeg.code(errno: EPERM), let av = context.pointee.streams[streamIndex],
           avformat_index_get_entries_count(av) == 0 {
            return false
        }
        try FFmpeg.check(result, "avformat_seek_file", subject: path)
        return true
    }

    /// Packets exactly as the container stores them, for copying: no parser runs over their
    /// bytes and no timestamp is inferred (`AVFMT_FLAG_NOPARSE | AVFMT_FLAG_NOFILLIN`).
    /// An ISO BMFF sample is already one frame with its times, and parsing every H.264
    /// sample to find frame boundaries it already has was most of a passthrough merge's
    /// work. Only for MP4 and MOV; other containers need their parsers.
    package func readPacketsAsStored() {
        guard formatName.hasPrefix("mov,") else { return }
        context.pointee.flags |= AVFMT_FLAG_NOPARSE | AVFMT_FLAG_NOFILLIN
    }

    /// Tells the demuxer to skip the packets of streams no one reads.
    package func setDiscarded(_ discarded: Bool, streamIndex: Int) {
        context.pointee.streams[streamIndex]?.pointee.discard = discarded ? AVDISCARD_ALL : AVDISCARD_DEFAULT
    }

    /// The codec parameters of a stream, for opening a decoder or copying to a muxer.
    func codecParameters(ofStream index: Int) -> UnsafeMutablePointer<AVCodecParameters>? {
        context.pointee.streams[index]?.pointee.codecpar
    }

    // MARK: - Describing streams

    static func describe(_ stream: UnsafeMutablePointer<AVStream>, index: Int) -> StreamInfo {
        let parameters = stream.pointee.codecpar.pointee
        let timeBase = Rational(stream.pointee.time_base)
        let metadata = dictionary(stream.pointee.metadata)
        let codecID = parameters.codec_id
        var layoutName: String?
        var layout = parameters.ch_layout
        if layout.nb_channels > 0 {
            var buffer = [CChar](repeating: 0, count: 64)
            if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                layoutName = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        let mediaType: MediaType = switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
        return StreamInfo(
            index: index,
            mediaType: mediaType,
            codecName: FFmpeg.string(avcodec_get_name(codecID)) ?? "unknown",
            profileName: FFmpeg.string(avcodec_profile_name(codecID, parameters.profile)),
            codecTag: fourCC(parameters.codec_tag),
            timeBase: timeBase,
            startTime: timeBase.time(stream.pointee.start_time),
            duration: stream.pointee.duration > 0 ? timeBase.time(stream.pointee.duration) : .invalid,
            frameCount: Int(max(stream.pointee.nb_frames, 0)),
            averageFrameRate: Rational(stream.pointee.avg_frame_rate),
            baseFrameRate: Rational(stream.pointee.r_frame_rate),
            width: Int(parameters.width),
            height: Int(parameters.height),
            sampleAspectRatio: Rational(parameters.sample_aspect_ratio),
            pixelFormatName: mediaType == .video && parameters.format >= 0
                ? FFmpeg.string(av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format))) : nil,
            sampleRate: Int(parameters.sample_rate),
            channelCount: Int(layout.nb_channels),
            channelLayoutName: layoutName,
            sampleFormatName: mediaType == .audio && parameters.format >= 0
                ? FFmpeg.string(av_get_sample_fmt_name(AVSampleFormat(rawValue: parameters.format))) : nil,
            bitRate: parameters.bit_rate,
            language: metadata["language"],
            displayMatrix: displayMatrix(of: stream),
            isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0,
            metadata: metadata,
            activeFrameDuration: mediaType == .video ? activeFrameDuration(of: stream, timeBase: timeBase) : .invalid)
    }

    /// ``StreamInfo/activeFrameDuration`` from the index entries' decode timestamps (an MP4's
    /// stts): what the frames really do, where `r_frame_rate` only guesses from the timestamps'
    /// granularity. A burst of 10 fps between long pauses gives 0.1 s; a 30 fps recording
    /// with timestamps jittered on a 1/120 s grid gives 1/30 s.
    static func activeFrameDuration(of stream: UnsafeMutablePointer<AVStream>, timeBase: Rational) -> MediaTime {
        let count = Int(avformat_index_get_entries_count(stream))
        let listed = Int(max(stream.pointee.nb_frames, 0))
        guard count >= 3, listed > 0, count * 10 >= listed * 9, timeBase.isPositive else { return .invalid }
        var stamps: [Int64] = []
        stamps.reserveCapacity(count)
        for index in 0..<Int32(clamping: count) {
            if let entry = avformat_index_get_entry(stream, index) { stamps.append(entry.pointee.timestamp) }
        }
        stamps.sort()
        var gaps: [Int64] = []
        gaps.reserveCapacity(stamps.count)
        for (a, b) in zip(stamps, stamps.dropFirst()) {
            let (gap, overflow) = b.subtractingReportingOverflow(a)
            if !overflow, gap > 0 { gaps.append(gap) }
        }
        guard gaps.count >= 2 else { return .invalid }
        let median = gaps.sorted()[gaps.count / 2]
        let kept = gaps.filter { $0 <= 2 * median }
        let total = kept.reduce(0.0) { $0 + Double($1) }
        let seconds = total / Double(kept.count) * Double(timeBase.numerator) / Double(timeBase.denominator)
        // 1 to 1000 frames a second; outside that the index is damaged.
        guard seconds.isFinite, seconds >= 0.001, seconds <= 1 else { return .invalid }
        return MediaTime(seconds: seconds, preferredTimescale: 90000)
    }

    /// The display matrix side data as a transform: 16.16 fixed point for a, b, c, d,
    /// tx, ty, in the same row-vector layout as `CGAffineTransform`.
    static func displayMatrix(of stream: UnsafeMutablePointer<AVStream>) -> AffineTransform? {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
              size >= 9 * MemoryLayout<Int32>.size else { return nil }
        let m = UnsafeRawPointer(data).bindMemory(to: Int32.self, capacity: 9)
        let unit = 65536.0
        return AffineTransform(a: Double(m[0]) / unit, b: Double(m[1]) / unit,
                               c: Double(m[3]) / unit, d: Double(m[4]) / unit,
                               tx: Double(m[6]) / unit, ty: Double(m[7]) / unit)
    }

    static func dictionary(_ dictionary: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            if let key = FFmpeg.string(next.pointee.key), let value = FFmpeg.string(next.pointee.value) {
                result[key] = value
            }
            entry = next
        }
        return result
    }

    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xFF) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import CFFmpeg
package import ReelCore

/// An owned `AVFrame`: decoded pictures or samples. Reused across decodes;
/// `av_frame_unref` between uses, `av_frame_free` in `deinit`.
package final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    package init() throws(ReelError) {
        guard let frame = av_frame_alloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    package func reset() { av_frame_unref(pointer) }

    package var width: Int { Int(pointer.pointee.width) }
    package var height: Int { Int(pointer.pointee.height) }
    package var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    package var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    package var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }

    /// The decoder's best guess at the presentation timestamp, in the stream's time base.
    package var bestEffortTimestamp: Int64 {
        let best = pointer.pointee.best_effort_timestamp
        return best != FFmpeg.noTimestamp ? best : pointer.pointee.pts
    }

    package var presentationTimestamp: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// Whether an encoder must make this picture a keyframe (`pict_type` I; with the
    /// encoder's `forced-idr`, an IDR picture); false leaves the choice to the encoder.
    package var isForcedKeyframe: Bool {
        get { pointer.pointee.pict_type == AV_PICTURE_TYPE_I }
        set { pointer.pointee.pict_type = newValue ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE }
    }

    /// Duration of the packet the frame came from, in the stream's time base, or 0.
    package var packetDuration: Int64 { pointer.pointee.pkt_duration }

    /// FFmpeg's pixel-format name, for video frames.
    package var pixelFormatName: String? {
        FFmpeg.string(av_get_pix_fmt_name(AVPixelFormat(rawValue: pointer.pointee.format)))
    }

    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }
    var sampleFormat: AVSampleFormat { AVSampleFormat(rawValue: pointer.pointee.format) }

    /// Whether the picture uses full-range ("JPEG") levels rather than video range.
    var isFullRange: Bool { pointer.pointee.color_range == AVCOL_RANGE_JPEG }

    /// The YCbCr matrix the picture is tagged with (BT.709, or BT.601 as `smpte170m` or
    /// `bt470bg`), or nil when it is untagged or tagged with another (``ColorMatrix``'s rule
    /// by height then holds).
    var taggedMatrix: ColorMatrix? {
        switch pointer.pointee.colorspace {
        case AVCOL_SPC_BT709: .bt709
        case AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT470BG: .bt601
        default: nil
        }
    }

    var dataPointers: [UnsafeMutablePointer<UInt8>?] {
        withUnsafeBytes(of: pointer.pointee.data) { Array($0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)) }
    }

    var lineSizes: [Int32] {
        withUnsafeBytes(of: pointer.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
    }

    /// Gives the frame its own buffers for a picture of this size and format.
    func allocatePicture(width: Int, height: Int, format: AVPixelFormat) throws(ReelError) {
        reset()
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = format.rawValue
        try FFmpeg.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// Gives the frame its own buffers for `samples` samples of this layout and format.
    func allocateAudio(samples: Int, format: AVSampleFormat, sampleRate: Int,
                       layout: UnsafePointer<AVChannelLayout>) throws(ReelError) {
        reset()
        pointer.pointee.nb_samples = Int32(samples)
        pointer.pointee.format = format.rawValue
        pointer.pointee.sample_rate = Int32(sampleRate)
        try FFmpeg.check(av_channel_layout_copy(&pointer.pointee.ch_layout, layout), "av_channel_layout_copy")
        try FFmpeg.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// Makes the buffers writable (copying them if the codec still holds a reference).
    package func makeWritable() throws(ReelError) {
        try FFmpeg.check(av_frame_make_writable(pointer), "av_frame_make_writable")
    }
}

extension Frame {
    /// A new frame referencing the same buffers (no pixel copy). `av_frame_clone`.
    package func clone() throws(ReelError) -> Frame {
        let copy = try Frame()
        try FFmpeg.check(av_frame_ref(copy.pointer, pointer), "av_frame_ref")
        return copy
    }
}

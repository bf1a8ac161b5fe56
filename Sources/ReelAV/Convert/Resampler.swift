import CFFmpeg
package import ReelCore

/// Converts audio between sample formats, rates and channel layouts with
/// libswresample (`swr_alloc_set_opts2`, `swr_convert`), keeping its delay line
/// across calls so that a stream resamples without clicks.
package final class Resampler {
    private var context: OpaquePointer?
    package let output: AudioFormat
    private var input: (format: AVSampleFormat, rate: Int32, channels: Int32)?

    package init(output: AudioFormat) throws(ReelError) {
        guard output.sampleFormat.av != AV_SAMPLE_FMT_NONE, output.sampleFormat.bytesPerSample > 0 else {
            throw ReelError(.unsupported, "unknown sample format '\(output.sampleFormat)'")
        }
        guard output.sampleRate > 0, output.sampleRate <= 768_000, output.channelCount > 0, output.channelCount <= 64 else {
            throw ReelError(.invalidArgument, "audio of \(output.channelCount) channels at \(output.sampleRate) Hz")
        }
        self.output = output
    }

    deinit { swr_free(&context) }

    private func configure(format: AVSampleFormat, rate: Int32, layout: UnsafeMutablePointer<AVChannelLayout>) throws(ReelError) {
        if let input, input.format == format, input.rate == rate, input.channels == layout.pointee.nb_channels,
           context != nil { return }
        swr_free(&context)
        var outLayout = output.channelLayout.av
        defer { av_channel_layout_uninit(&outLayout) }
        try FFmpeg.check(swr_alloc_set_opts2(&context, &outLayout, output.sampleFormat.av, Int32(output.sampleRate),
                                             layout, format, rate, 0, nil), "swr_alloc_set_opts2")
        try FFmpeg.check(swr_init(context), "swr_init")
        input = (format, rate, layout.pointee.nb_channels)
    }

    /// Converts a decoded frame. The result may be a little shorter or longer than the
    /// input when the rate changes; the remainder comes with the next call or ``flush()``.
    package func convert(_ frame: Frame) throws(ReelError) -> AudioBuffer {
        try configure(format: frame.sampleFormat, rate: Int32(frame.sampleRate), layout: &frame.pointer.pointee.ch_layout)
        let inputs = frame.dataPointers.map { UnsafePointer($0) }
        return try run(inputs: inputs, count: frame.sampleCount)
    }

    /// Converts a buffer of another format.
    package func convert(_ buffer: AudioBuffer) throws(ReelError) -> AudioBuffer {
        var layout = buffer.format.channelLayout.av
        defer { av_channel_layout_uninit(&layout) }
        try configure(format: buffer.format.sampleFormat.av, rate: Int32(buffer.format.sampleRate), layout: &layout)
        return try buffer.planes.withContiguousPlanePointers { pointers throws(ReelError) in
            try run(inputs: pointers, count: buffer.frameCount)
        }
    }

    /// What is left in the delay line, at the end of a stream.
    package func flush() throws(ReelError) -> AudioBuffer? {
        guard context != nil else { return nil }
        let buffer = try run(inputs: nil, count: 0)
        return buffer.frameCount > 0 ? buffer : nil
    }

    private func run(inputs: [UnsafePointer<UInt8>?]?, count: Int) throws(ReelError) -> AudioBuffer {
        let capacity = max(Int(swr_get_out_samples(context, Int32(count))), 0) + 32
        let planeCount = output.planeCount
        let planeBytes = capacity * output.bytesPerFrameInPlane
        let storage = UnsafeMutableRawPointer.allocate(byteCount: planeBytes * planeCount, alignment: 64)
        defer { storage.deallocate() }
        var outputs: [UnsafeMutablePointer<UInt8>?] = (0..<planeCount).map {
            (storage + $0 * planeBytes).assumingMemoryBound(to: UInt8.self)
        }
        let converted: Int32 = outputs.withUnsafeMutableBufferPointer { out in
            guard var sources = inputs else { return swr_convert(context, out.baseAddress, Int32(capacity), nil, 0) }
            return sources.withUnsafeMutableBufferPointer { input in
                swr_convert(context, out.baseAddress, Int32(capacity), input.baseAddress, Int32(count))
            }
        }
        let produced = Int(try FFmpeg.check(converted, "swr_convert"))
        let bytes = produced * output.bytesPerFrameInPlane
        let planes = (0..<planeCount).map { index in
            Array(UnsafeRawBufferPointer(start: storage + index * planeBytes, count: bytes))
        }
        return try AudioBuffer(format: output, planes: planes)
    }
}

extension [[UInt8]] {
    /// Calls `body` with a pointer to the start of every plane.
    func withContiguousPlanePointers<R, E: Error>(_ body: ([UnsafePointer<UInt8>?]) throws(E) -> R) throws(E) -> R {
        var pointers: [UnsafePointer<UInt8>?] = []
        pointers.reserveCapacity(count)
        return try withPlanes(index: 0, collected: &pointers, body)
    }

    private func withPlanes<R, E: Error>(index: Int, collected: inout [UnsafePointer<UInt8>?],
                                         _ body: ([UnsafePointer<UInt8>?]) throws(E) -> R) throws(E) -> R {
        if index == count { return try body(collected) }
        let plane = self[index]
        return try plane.withUnsafeBufferPointer { (bytes) throws(E) -> R in
            collected.append(bytes.baseAddress)
            return try withPlanes(index: index + 1, collected: &collected, body)
        }
    }
}

import CFFmpeg
package import ReelCore

extension Frame {
    /// The decoded samples as an ``AudioBuffer`` in the frame's own format, or nil for a
    /// sample format Reel's buffers do not hold.
    package func audioBuffer() throws(ReelError) -> AudioBuffer? {
        guard let name = FFmpeg.string(av_get_sample_fmt_name(sampleFormat)) else { return nil }
        let format = AudioFormat(sampleFormat: SampleFormat(rawValue: name), sampleRate: sampleRate,
                                 channelLayout: .default(channels: channelCount))
        guard format.sampleFormat.bytesPerSample > 0, format.planeCount <= 8 else { return nil }
        let bytes = sampleCount * format.bytesPerFrameInPlane
        let pointers = dataPointers
        let planes = (0..<format.planeCount).map { index in
            pointers[index].map { Array(UnsafeBufferPointer(start: $0, count: bytes)) } ?? []
        }
        return try AudioBuffer(format: format, planes: planes)
    }

    /// Copies `count` frames of `buffer` from frame `offset` into the start of this
    /// frame, whose format must equal the buffer's; sets `nb_samples` to `count`.
    package func copyAudio(from buffer: AudioBuffer, offset: Int, count: Int) throws(ReelError) {
        try makeWritable()
        let bytesPerFrame = buffer.format.bytesPerFrameInPlane
        let pointers = dataPointers
        for (index, plane) in buffer.planes.enumerated() where index < pointers.count {
            guard let target = pointers[index] else { continue }
            plane.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                target.update(from: base + offset * bytesPerFrame, count: count * bytesPerFrame)
            }
        }
        pointer.pointee.nb_samples = Int32(count)
    }
}

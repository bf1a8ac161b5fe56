/// PCM audio in memory: a format and `frameCount` frames, in one plane (interleaved)
/// or one plane per channel (planar). `AVAudioPCMBuffer`.
///
/// A value type with copy-on-write storage: audio buffers are small, and passing them
/// between threads needs no discipline.
public struct AudioBuffer: Sendable, Hashable {
    public let format: AudioFormat
    /// Number of frames (one sample per channel each).
    public private(set) var frameCount: Int
    /// One array per plane.
    public private(set) var planes: [[UInt8]]

    /// A silent buffer of `frameCount` frames.
    /// - Parameters:
    ///   - format: The samples' format, rate and channels.
    ///   - frameCount: How many frames (one sample per channel each) the buffer holds.
    /// - Throws: ``ReelError`` `.unsupported` for an unknown sample format,
    ///   `.invalidArgument` for a negative count or no channels.
    public init(format: AudioFormat, frameCount: Int) throws(ReelError) {
        guard format.sampleFormat.bytesPerSample > 0 else {
            throw ReelError(.unsupported, "sample format '\(format.sampleFormat)' is not one Reel's buffers hold")
        }
        guard frameCount >= 0, format.channelCount > 0, format.sampleRate > 0 else {
            throw ReelError(.invalidArgument,
                            "audio buffer of \(frameCount) frames, \(format.channelCount) channels at \(format.sampleRate) Hz")
        }
        self.format = format
        self.frameCount = frameCount
        let silence: UInt8 = format.sampleFormat == .uint8 ? 0x80 : 0
        planes = Array(repeating: Array(repeating: silence, count: frameCount * format.bytesPerFrameInPlane),
                       count: format.planeCount)
    }

    /// A buffer from planes already laid out for `format`.
    /// - Parameters:
    ///   - format: The samples' format, rate and channels.
    ///   - planes: The bytes: one plane per channel for a planar format, one plane otherwise.
    /// - Throws: ``ReelError`` `.invalidArgument` when the plane count or sizes do not match.
    public init(format: AudioFormat, planes: [[UInt8]]) throws(ReelError) {
        let bytesPerFrame = format.bytesPerFrameInPlane
        guard bytesPerFrame > 0, planes.count == format.planeCount,
              let first = planes.first, first.count % bytesPerFrame == 0,
              planes.allSatisfy({ $0.count == first.count }) else {
            throw ReelError(.invalidArgument, "audio planes do not match \(format)")
        }
        self.format = format
        self.planes = planes
        frameCount = first.count / bytesPerFrame
    }

    /// The buffer's length in time.
    public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(clamping: format.sampleRate)) }

    /// The samples of `channel` as floats in -1...1, whatever the storage format.
    /// - Parameter channel: The channel's index, from 0.
    /// - Returns: One float per frame, so that analysis code need not know the storage format.
    public func floatSamples(channel: Int) -> [Float] {
        guard channel >= 0, channel < format.channelCount else { return [] }
        let sampleFormat = format.sampleFormat
        let plane = sampleFormat.isPlanar ? planes[channel] : planes[0]
        // In samples: every sample of a plane, or every channelCount-th from `channel`.
        let layout = (first: sampleFormat.isPlanar ? 0 : channel, step: sampleFormat.isPlanar ? 1 : format.channelCount,
                      count: frameCount)
        // The storage format is decided once, not per sample: this runs over every sample a
        // mix, a meter or a player reads.
        return plane.withUnsafeBytes { raw in
            switch sampleFormat.rawValue {
            case "u8": Self.samples(raw, of: UInt8.self, layout) { (Float($0) - 128) / 128 }
            case "s16", "s16p": Self.samples(raw, of: Int16.self, layout) { Float($0) / 32768 }
            case "s32", "s32p": Self.samples(raw, of: Int32.self, layout) { Float($0) / 2_147_483_648 }
            case "flt", "fltp": Self.samples(raw, of: Float.self, layout) { $0 }
            case "dbl", "dblp": Self.samples(raw, of: Double.self, layout) { Float($0) }
            default: [Float](repeating: 0, count: frameCount)
            }
        }
    }

    /// `layout.count` samples of type `T` read from `raw`, `layout.step` samples apart from
    /// sample `layout.first`, each turned into a float; samples past the plane's end read 0.
    private static func samples<T>(_ raw: UnsafeRawBufferPointer, of type: T.Type, _ layout: (first: Int, step: Int, count: Int),
                                   _ convert: (T) -> Float) -> [Float] {
        let size = MemoryLayout<T>.size
        let stored = raw.count / size
        let available = stored > layout.first ? min(layout.count, (stored - layout.first + layout.step - 1) / layout.step) : 0
        return [Float](unsafeUninitializedCapacity: layout.count) { out, initialized in
            for frame in 0..<available {
                out[frame] = convert(raw.loadUnaligned(fromByteOffset: (layout.first + frame * layout.step) * size, as: T.self))
            }
            for frame in available..<layout.count { out[frame] = 0 }
            initialized = layout.count
        }
    }

    /// Drops the frames after `count` (keeps all when `count` is not smaller).
    /// - Parameter count: How many frames to keep.
    public mutating func truncate(toFrameCount count: Int) {
        guard count >= 0, count < frameCount else { return }
        let bytes = count * format.bytesPerFrameInPlane
        for index in planes.indices { planes[index].removeSubrange(bytes...) }
        frameCount = count
    }

    /// Appends the frames of `other`, which must have the same format.
    /// - Parameter other: The frames to add at the end.
    /// - Throws: ``ReelError`` `.invalidArgument` when the formats differ.
    public mutating func append(_ other: AudioBuffer) throws(ReelError) {
        guard other.format == format else {
            throw ReelError(.invalidArgument, "cannot append \(other.format) audio to \(format) audio")
        }
        for index in planes.indices { planes[index].append(contentsOf: other.planes[index]) }
        frameCount += other.frameCount
    }

    /// The frames from `start` (clamped), `count` long at most, as a new buffer.
    /// - Parameters:
    ///   - start: The first frame to take.
    ///   - count: How many frames to take at most.
    /// - Returns: A copy of those frames in this buffer's format (empty past the end).
    public func slice(from start: Int, count: Int) -> AudioBuffer {
        var copy = self
        let first = max(0, min(start, frameCount))
        let length = max(0, min(count, frameCount - first))
        let bytes = format.bytesPerFrameInPlane
        copy.planes = planes.map { Array($0[(first * bytes)..<((first + length) * bytes)]) }
        copy.frameCount = length
        return copy
    }

    /// A buffer in 32-bit float planar format from per-channel samples.
    /// - Parameters:
    ///   - channels: Each channel's samples, in −1…1, all the same length.
    ///   - sampleRate: Samples per second.
    /// - Returns: The buffer, with FFmpeg's default layout for that many channels.
    /// - Throws: ``ReelError`` `.invalidArgument` when channels differ in length or there are none.
    public static func float(channels: [[Float]], sampleRate: Int) throws(ReelError) -> AudioBuffer {
        guard let count = channels.first?.count, channels.allSatisfy({ $0.count == count }) else {
            throw ReelError(.invalidArgument, "audio channels must be non-empty and of equal length")
        }
        let format = AudioFormat.standard(sampleRate: sampleRate, channels: channels.count)
        let planes = channels.map { samples in samples.withUnsafeBytes { Array($0) } }
        return try AudioBuffer(format: format, planes: planes)
    }
}

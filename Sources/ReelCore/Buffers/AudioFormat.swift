/// The shape of PCM audio: sample format, rate and channel layout. `AVAudioFormat`.
public struct AudioFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sampleFormat: SampleFormat
    /// Samples per second per channel.
    public var sampleRate: Int
    public var channelLayout: ChannelLayout

    /// A format from its parts.
    /// - Parameters:
    ///   - sampleFormat: How each sample is stored.
    ///   - sampleRate: Samples per second per channel.
    ///   - channelLayout: The channels and their order.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channelLayout: ChannelLayout) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelLayout = channelLayout
    }

    public var channelCount: Int { channelLayout.channelCount }

    /// 32-bit float, non-interleaved: the format AVFoundation calls "standard".
    /// - Parameters:
    ///   - sampleRate: Samples per second per channel.
    ///   - channels: How many channels, laid out as ``ChannelLayout/default(channels:)`` gives.
    /// - Returns: The format Reel's mixers and filters work in.
    public static func standard(sampleRate: Int, channels: Int) -> AudioFormat {
        AudioFormat(sampleFormat: .floatPlanar, sampleRate: sampleRate, channelLayout: .default(channels: channels))
    }

    /// Number of separate buffers a buffer of this format has: one per channel when planar.
    public var planeCount: Int { sampleFormat.isPlanar ? channelCount : 1 }

    /// Bytes of one frame (one sample of every channel) within one plane.
    public var bytesPerFrameInPlane: Int { sampleFormat.bytesPerSample * (sampleFormat.isPlanar ? 1 : channelCount) }

    public var description: String { "\(sampleRate) Hz \(channelLayout) \(sampleFormat)" }
}

/// How one audio sample is stored. The raw value is FFmpeg's sample-format name.
public struct SampleFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// A sample format by FFmpeg's name (`fltp`, `s16`, …).
    /// - Parameter rawValue: The name; one Reel does not know is refused where samples are made.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Signed 16-bit, interleaved.
    public static let int16 = SampleFormat(rawValue: "s16")
    /// Signed 16-bit, one plane per channel.
    public static let int16Planar = SampleFormat(rawValue: "s16p")
    /// Signed 32-bit, interleaved.
    public static let int32 = SampleFormat(rawValue: "s32")
    /// Signed 32-bit, one plane per channel.
    public static let int32Planar = SampleFormat(rawValue: "s32p")
    /// 32-bit float, interleaved.
    public static let float = SampleFormat(rawValue: "flt")
    /// 32-bit float, one plane per channel (what AAC decodes to).
    public static let floatPlanar = SampleFormat(rawValue: "fltp")
    /// 64-bit float, interleaved.
    public static let double = SampleFormat(rawValue: "dbl")
    /// 64-bit float, one plane per channel.
    public static let doublePlanar = SampleFormat(rawValue: "dblp")
    /// Unsigned 8-bit, interleaved.
    public static let uint8 = SampleFormat(rawValue: "u8")

    /// Every format ``AudioBuffer`` can hold.
    public static let supported: [SampleFormat] = [.uint8, .int16, .int16Planar, .int32, .int32Planar,
                                                   .float, .floatPlanar, .double, .doublePlanar]

    public var isPlanar: Bool { rawValue.hasSuffix("p") }

    /// Bytes per sample, or 0 for a format Reel does not know.
    public var bytesPerSample: Int {
        switch rawValue {
        case "u8", "u8p": 1
        case "s16", "s16p": 2
        case "s32", "s32p", "flt", "fltp": 4
        case "dbl", "dblp", "s64", "s64p": 8
        default: 0
        }
    }

    public var description: String { rawValue }
}

/// The channels of audio and their order. The raw value is FFmpeg's layout name
/// (`mono`, `stereo`, `5.1`…) or, for an unnamed layout, `"N channels"`.
public struct ChannelLayout: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public var channelCount: Int

    /// A layout from its name and size.
    /// - Parameters:
    ///   - name: FFmpeg's layout name, or `"N channels"` for an unnamed one.
    ///   - channelCount: How many channels it has.
    public init(name: String, channelCount: Int) {
        self.name = name
        self.channelCount = channelCount
    }

    public static let mono = ChannelLayout(name: "mono", channelCount: 1)
    public static let stereo = ChannelLayout(name: "stereo", channelCount: 2)

    /// The usual layout for a channel count: mono, stereo, then FFmpeg's defaults.
    /// - Parameter channels: How many channels.
    /// - Returns: The layout a file with that many channels is usually written with.
    public static func `default`(channels: Int) -> ChannelLayout {
        switch channels {
        case 1: .mono
        case 2: .stereo
        case 3: ChannelLayout(name: "2.1", channelCount: 3)
        case 4: ChannelLayout(name: "4.0", channelCount: 4)
        case 5: ChannelLayout(name: "5.0(side)", channelCount: 5)
        case 6: ChannelLayout(name: "5.1(side)", channelCount: 6)
        case 8: ChannelLayout(name: "7.1", channelCount: 8)
        default: ChannelLayout(name: "\(channels) channels", channelCount: channels)
        }
    }

    public var description: String { name }
}

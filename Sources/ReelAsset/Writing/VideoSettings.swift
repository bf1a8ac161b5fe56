import ReelCore

/// How a video input encodes: codec, size, rate control and GOP. The counterpart of
/// the `AVVideoCodecKey`/`AVVideoWidthKey`/`AVVideoCompressionPropertiesKey` dictionary.
public struct VideoSettings: Sendable, Hashable {
    /// A video codec Reel can write.
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// H.264 through libx264. `AVVideoCodecType.h264`.
        case h264
        /// HEVC through libx265, tagged `hvc1` so Apple players take it. `AVVideoCodecType.hevc`.
        case hevc
        /// Apple ProRes 422 through prores_ks, for `.mov`. `AVVideoCodecType.proRes422`.
        case proRes422
        /// VP9 through libvpx, for `.webm` and `.mkv`.
        case vp9
    }

    public var codec: Codec
    /// Encoded width; even for the 4:2:0 codecs.
    public var width: Int
    /// Encoded height; even for the 4:2:0 codecs.
    public var height: Int
    /// Average bits per second. When nil, ``quality`` rules. `AVVideoAverageBitRateKey`.
    public var bitRate: Int?
    /// Constant rate factor (x264/x265/VP9): 0 is lossless, 23 is x264's default, 51 the worst.
    /// Used when ``bitRate`` is nil; nil picks the codec's default (23 for H.264, 28 for HEVC, 32 for VP9).
    public var quality: Double?
    /// Frames between keyframes. `AVVideoMaxKeyFrameIntervalKey`.
    public var keyFrameInterval: Int?
    /// Encoder profile: `high`, `main`, `baseline` for H.264 (`high` by default). `AVVideoProfileLevelKey`.
    public var profile: String?
    /// Encoder speed preset: `ultrafast` … `medium` (default) … `veryslow`.
    public var preset: String?
    /// The frame rate the source will deliver, for rate control. `AVVideoExpectedSourceFrameRateKey`.
    public var expectedFrameRate: Double?

    /// Settings for a video input; what is left nil the encoder decides.
    /// - Parameters:
    ///   - codec: The codec to encode with.
    ///   - width: The encoded width (even for the 4:2:0 codecs).
    ///   - height: The encoded height (even for the 4:2:0 codecs).
    ///   - bitRate: The average bits per second; nil lets `quality` rule.
    ///   - quality: The constant rate factor used without a bit rate.
    ///   - keyFrameInterval: Frames between keyframes.
    ///   - profile: The encoder profile (`high`, `main`, `baseline`).
    ///   - preset: The encoder's speed preset (`ultrafast` … `veryslow`).
    ///   - expectedFrameRate: The rate frames will come at, for rate control.
    public init(codec: Codec = .h264, width: Int, height: Int, bitRate: Int? = nil, quality: Double? = nil,
                keyFrameInterval: Int? = nil, profile: String? = nil, preset: String? = nil,
                expectedFrameRate: Double? = nil) {
        self.codec = codec
        self.width = width
        self.height = height
        self.bitRate = bitRate
        self.quality = quality
        self.keyFrameInterval = keyFrameInterval
        self.profile = profile
        self.preset = preset
        self.expectedFrameRate = expectedFrameRate
    }

    /// What a capture output recommends for recording at this size and rate, as
    /// `recommendedVideoSettingsForAssetWriter(writingTo:)`: H.264 High (HEVC not for
    /// WebM: VP9), a bit rate that scales with pixels and frames, a keyframe every second.
    /// - Parameters:
    ///   - width: The frames' width (made even).
    ///   - height: The frames' height (made even).
    ///   - frameRate: The capture's frame rate, for the bit rate and the keyframe interval.
    ///   - fileType: The container, which decides the codec.
    /// - Returns: Settings that record a capture at good quality without tuning.
    public static func recommended(width: Int, height: Int, frameRate: Double = 30, fileType: FileType = .mp4)
        -> VideoSettings {
        let evenWidth = width - width % 2, evenHeight = height - height % 2
        // About 0.1 bit per pixel per frame: 1080p30 gets 6 Mb/s, 720p30 2.8 Mb/s.
        let bits = Double(evenWidth * evenHeight) * max(frameRate, 1) * 0.1
        let codec: Codec = fileType == .webm ? .vp9 : .h264
        return VideoSettings(codec: codec, width: evenWidth, height: evenHeight, bitRate: Int(bits),
                             keyFrameInterval: max(1, Int(frameRate.rounded())),
                             profile: codec == .h264 ? "high" : nil, preset: codec == .h264 ? "veryfast" : nil,
                             expectedFrameRate: frameRate)
    }
}

/// How an audio input encodes. The counterpart of the `AVFormatIDKey`/`AVSampleRateKey` dictionary.
public struct AudioSettings: Sendable, Hashable {
    /// An audio codec Reel can write.
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// AAC LC, FFmpeg's native encoder. `kAudioFormatMPEG4AAC`.
        case aac
        /// Opus through libopus, for `.webm` and `.mkv`. `kAudioFormatOpus`.
        case opus
    }

    public var codec: Codec
    public var sampleRate: Int
    public var channelCount: Int
    /// Bits per second; nil picks 128 kb/s per stereo pair.
    public var bitRate: Int?

    /// Settings for an audio input.
    /// - Parameters:
    ///   - codec: The codec to encode with.
    ///   - sampleRate: Samples per second written (the input is resampled to it).
    ///   - channelCount: Channels written (the input is mixed to them).
    ///   - bitRate: Bits per second; nil picks 128 kb/s per stereo pair.
    public init(codec: Codec = .aac, sampleRate: Int = 48000, channelCount: Int = 2, bitRate: Int? = nil) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitRate = bitRate
    }

    /// What a capture output recommends for recording, as `recommendedAudioSettingsForAssetWriter`.
    /// - Parameters:
    ///   - sampleRate: The capture's sample rate.
    ///   - channelCount: The capture's channels.
    ///   - fileType: The container, which decides the codec (Opus for WebM, AAC otherwise).
    /// - Returns: Settings that record the capture's sound as it is.
    public static func recommended(sampleRate: Int = 48000, channelCount: Int = 2, fileType: FileType = .mp4)
        -> AudioSettings {
        AudioSettings(codec: fileType == .webm ? .opus : .aac,
                      sampleRate: fileType == .webm ? 48000 : sampleRate,
                      channelCount: channelCount, bitRate: 64_000 * max(channelCount, 1))
    }
}

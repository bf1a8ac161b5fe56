package import ReelCore

/// What to open a video encoder with.
package struct VideoEncoderConfiguration: Sendable {
    /// FFmpeg's encoder name: `libx264`, `libx265`, `prores_ks`, `png`, `mjpeg`…
    package var encoderName: String
    package var width: Int
    package var height: Int
    /// The format the encoder takes; Reel converts appended pictures to it.
    package var pixelFormat: PixelFormat
    package var timeBase: Rational
    package var frameRate: Rational?
    /// Target bits per second; nil for quality-based rate control.
    package var bitRate: Int?
    /// Constant rate factor for x264/x265 (0–51, lower is better).
    package var crf: Double?
    /// JPEG/ProRes-style quality scale (`qscale`), where the encoder has no CRF.
    package var quality: Int?
    package var keyFrameInterval: Int?
    package var profile: String?
    package var preset: String?
    package var threads: Int = 0
    /// Private options passed to the encoder by name (`x264-params`, `tune`…).
    package var options: [String: String] = [:]
    package var globalHeader: Bool = false
    /// Full-range levels (for JPEG stills).
    package var fullRange: Bool = false

    package init(encoderName: String, width: Int, height: Int, pixelFormat: PixelFormat, timeBase: Rational) {
        self.encoderName = encoderName
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.timeBase = timeBase
    }
}

/// What to open an audio encoder with.
package struct AudioEncoderConfiguration: Sendable {
    /// FFmpeg's encoder name: `aac`, `libopus`, `pcm_s16le`…
    package var encoderName: String
    package var sampleRate: Int
    package var channelLayout: ChannelLayout
    package var bitRate: Int?
    package var globalHeader: Bool = false

    package init(encoderName: String, sampleRate: Int, channelLayout: ChannelLayout, bitRate: Int? = nil) {
        self.encoderName = encoderName
        self.sampleRate = sampleRate
        self.channelLayout = channelLayout
        self.bitRate = bitRate
    }
}

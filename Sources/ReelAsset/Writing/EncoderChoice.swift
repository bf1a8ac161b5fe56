import Foundation
import ReelAV
import ReelCore

/// Maps Reel's writer settings onto FFmpeg encoders and their options.
enum EncoderChoice {
    /// The encoder time base for video: 1/90000 represents 24, 25, 30, 50, 60 and
    /// 29.97 fps exactly, and is what MPEG and most cameras use.
    static let videoTimeBase = Rational(1, 90000)

    /// Beyond 1920x1080 twice over (4 megapixels), frames cost enough memory that the
    /// encoder and the renderer hold fewer of them.
    static let largeFrameArea = 1920 * 1088 * 2 // as RenderMemory.largeFrameArea

    /// x264's frame threads when its lookahead runs on the feeding thread (`sync-lookahead=0`):
    /// one more than its own automatic count, 1.5 a core (3 on 2 cores, 4 here).
    static var x264FrameThreadsWithSyncLookahead: Int {
        ProcessInfo.processInfo.activeProcessorCount * 3 / 2 + 1
    }

    static func video(_ settings: VideoSettings, fileType: FileType) -> VideoEncoderConfiguration {
        let name: String
        let format: PixelFormat
        switch settings.codec {
        case .h264: (name, format) = ("libx264", .yuv420p)
        case .hevc: (name, format) = ("libx265", .yuv420p)
        case .proRes422: (name, format) = ("prores_ks", PixelFormat(rawValue: "yuv422p10le"))
        case .vp9: (name, format) = ("libvpx-vp9", .yuv420p)
        }
        var configuration = VideoEncoderConfiguration(encoderName: name, width: settings.width, height: settings.height,
                                                      pixelFormat: format, timeBase: videoTimeBase)
        // A rate read from a damaged file can be anything (22 million fps from a sample count
        // of 2^32 - 1): beyond 1000 fps it is not told to the encoder, which then keeps time by
        // the pictures' own timestamps.
        if let rate = settings.expectedFrameRate, rate > 0, rate <= 1000, let scaled = Int32(exactly: (rate * 1001).rounded()) {
            configuration.frameRate = scaled % 1001 == 0 ? Rational(scaled / 1001, 1) : Rational(scaled, 1001)
        }
        configuration.bitRate = settings.bitRate
        configuration.keyFrameInterval = settings.keyFrameInterval
        switch settings.codec {
        case .h264:
            // Lossless needs High 4:4:4 Predictive; let x264 pick unless told. x264 is lossless
            // below a CRF of 1 (0.4 too), and says so on stderr itself if the profile is High.
            configuration.profile = settings.profile ?? ((settings.quality ?? 23) < 1 ? nil : "high")
            configuration.preset = settings.preset ?? "medium"
            if settings.bitRate == nil { configuration.crf = settings.quality ?? 23 }
            if settings.width * settings.height > largeFrameArea {
                // x264 keeps rc-lookahead (40 at medium) frames and a frame per thread (1.5 per
                // core), each several times the picture: 1 GB at 3840x2160. Ten frames of
                // lookahead and a thread per core keep a 4K render under 1 GB, for about the
                // same quality.
                configuration.options["rc-lookahead"] = "10"
                configuration.threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
            }
        case .hevc:
            configuration.preset = settings.preset ?? "medium"
            if let profile = settings.profile { configuration.profile = profile }
            if settings.bitRate == nil { configuration.crf = settings.quality ?? 28 }
            configuration.options["x265-params"] = "log-level=error"
        case .proRes422:
            configuration.options["profile"] = settings.profile ?? "standard"
        case .vp9:
            if settings.bitRate == nil {
                configuration.crf = settings.quality ?? 32
                configuration.bitRate = 0
            }
            configuration.options["deadline"] = "good"
            configuration.options["cpu-used"] = settings.preset == "ultrafast" ? "8" : "4"
            configuration.options["row-mt"] = "1"
        }
        return configuration
    }

    static func audio(_ settings: AudioSettings) -> AudioEncoderConfiguration {
        let name = settings.codec == .opus ? "libopus" : "aac"
        let bitRate = settings.bitRate ?? 64_000 * max(settings.channelCount, 1)
        return AudioEncoderConfiguration(encoderName: name, sampleRate: settings.sampleRate,
                                         channelLayout: .default(channels: settings.channelCount), bitRate: bitRate)
    }
}

public import Foundation
import ReelAV
public import ReelCore

/// One track of an asset: its medium, codec, geometry or sound, and timing.
/// `AVAssetTrack`, as a value: a description that does not change once loaded.
public struct AssetTrack: Sendable, Hashable, Identifiable {
    /// The container's track ID (the `tkhd` ID in MP4), or the stream index + 1.
    public var trackID: Int
    /// The position of the stream in the file, counting every medium.
    public var streamIndex: Int
    public var mediaType: MediaType
    /// FFmpeg's codec name: `h264`, `hevc`, `aac`, `ac3`…
    public var codec: String
    /// The codec profile, such as `High` or `LC`.
    public var profile: String?
    /// The container's four-character code (`avc1`, `hvc1`).
    public var codecTag: String?
    /// Stored picture size, before the preferred transform. `naturalSize`.
    public var naturalSize: Size
    /// How the stored picture is to be turned for display, from the display-matrix side
    /// data, normalised so the turned picture starts at the origin. `preferredTransform`.
    public var preferredTransform: ReelCore.AffineTransform
    /// Frames per second, averaged over the track. `nominalFrameRate`.
    public var nominalFrameRate: Double
    /// The frames' spacing while they run, from the container's index of every frame
    /// (bursts of a variable-rate clip count, its pauses do not), or invalid where the
    /// container does not list every frame. `minFrameDuration`.
    public var minFrameDuration: MediaTime
    /// When the track plays in the asset's timeline. `timeRange`.
    public var timeRange: MediaTimeRange
    /// ISO 639-2 code, or nil for `und`. `languageCode`.
    public var languageCode: String?
    /// Bits per second. `estimatedDataRate`.
    public var estimatedDataRate: Double
    /// The number of samples (frames) the container lists, or 0 when it does not say.
    public var frameCount: Int
    /// FFmpeg's name of the decoded pixel format (video).
    public var pixelFormatName: String?
    /// Whether the pictures decode with an alpha channel: an RGBA, grey-alpha, palette, YUVA
    /// or GBRA format (a PNG with transparency, ProRes 4444), or VP9 whose WebM track says
    /// `alpha_mode` 1 (its alpha decoded by libvpx, though the stream's format reads yuv420p).
    package var decodesWithAlpha: Bool
    /// Samples per second (audio), else 0.
    public var sampleRate: Int
    /// Channels (audio), else 0.
    public var channelCount: Int
    /// The channel layout (audio).
    public var channelLayout: ChannelLayout?
    /// Whether the container marks this track as the one to play by default.
    public var isDefault: Bool
    /// The file the track belongs to. (`AVAssetTrack.asset`, as its URL.)
    public var assetURL: URL
    /// The duration of that file, which can run past the track's own end.
    public var assetDuration: MediaTime
    /// For an image sequence's track, the frames a second its asset plays it at (the rate a
    /// reader of its file must open it with); nil for a file's.
    package var imageSequenceFrameRate: Double?

    public var id: Int { trackID }

    /// Degrees the stored picture is turned clockwise for display: 0, 90, 180 or 270.
    /// An iPhone portrait clip (ffprobe's rotation −90) is 90.
    public var rotation: Int {
        preferredTransform.orientation?.rotationDegrees ?? Int(preferredTransform.rotationDegrees.rounded()) % 360
    }

    /// The orientation the preferred transform expresses, if it is a quarter turn.
    public var orientation: Orientation? { preferredTransform.orientation }

    /// The size of the picture as displayed: natural size after the preferred transform.
    public var displaySize: Size {
        let rect = Rect(origin: .zero, size: naturalSize).applying(preferredTransform)
        return Size(width: rect.width, height: rect.height)
    }

    init(stream: StreamInfo, trackID: Int, containerDuration: MediaTime, url: URL) {
        assetURL = url
        assetDuration = containerDuration
        self.trackID = trackID
        streamIndex = stream.index
        mediaType = stream.mediaType
        codec = stream.codecName
        profile = stream.profileName
        codecTag = stream.codecTag
        naturalSize = Size(width: stream.width, height: stream.height)
        if let matrix = stream.displayMatrix {
            preferredTransform = matrix.orientation.map { $0.transform(for: Size(width: stream.width, height: stream.height)) }
                ?? matrix
        } else {
            preferredTransform = .identity
        }
        // The average rate; else the timestamps' own rate; r_frame_rate (tbr) only as a last
        // resort, and only where it is a plausible camera rate.
        let timed = stream.activeFrameDuration.isNumeric ? 1 / stream.activeFrameDuration.seconds : 0
        let guessed = stream.baseFrameRate.isPositive && stream.baseFrameRate.doubleValue <= 240 ? stream.baseFrameRate.doubleValue : 0
        let rate = stream.averageFrameRate.isPositive ? stream.averageFrameRate.doubleValue : timed > 0 ? timed : guessed
        nominalFrameRate = stream.mediaType == .video ? rate : 0
        // From the frames' timestamps, never from r_frame_rate (tbr), which is a guess: a phone's
        // 30 fps motion photo with jittered timestamps says 120 and would be rendered at 120.
        minFrameDuration = stream.activeFrameDuration
        let start = stream.startTime.isNumeric ? stream.startTime : .zero
        let duration = stream.duration.isNumeric ? stream.duration
            : (containerDuration.isNumeric ? containerDuration - start : .zero)
        timeRange = MediaTimeRange(start: start, duration: duration)
        languageCode = stream.language == "und" ? nil : stream.language
        estimatedDataRate = Double(stream.bitRate)
        frameCount = stream.frameCount
        pixelFormatName = stream.pixelFormatName
        let vp9Alpha = stream.codecName == "vp9"
            && stream.metadata.first { $0.key.lowercased() == "alpha_mode" }?.value == "1"
        decodesWithAlpha = stream.mediaType == .video && (Self.hasAlpha(stream.pixelFormatName) || vp9Alpha)
        sampleRate = stream.sampleRate
        channelCount = stream.channelCount
        channelLayout = stream.mediaType == .audio && stream.channelCount > 0
            ? ChannelLayout(name: stream.channelLayoutName ?? "\(stream.channelCount) channels",
                            channelCount: stream.channelCount)
            : nil
        isDefault = stream.isDefault
    }
}

extension AssetTrack {
    /// Whether FFmpeg's pixel format `name` has an alpha channel: RGBA and its orders, grey
    /// with alpha, a palette (a PNG's may hold transparent entries), YUVA, planar GBRA.
    /// - Parameter name: A pixel format's name (`rgba`, `yuva444p10le`), or nil.
    /// - Returns: True for a format with alpha.
    static func hasAlpha(_ name: String?) -> Bool {
        guard let name else { return false }
        return ["rgba", "bgra", "argb", "abgr", "ya8", "ya16le", "ya16be", "pal8"].contains(name) || name.hasPrefix("yuva")
            || name.hasPrefix("gbrap") || name.hasPrefix("rgba64") || name.hasPrefix("bgra64")
    }
}

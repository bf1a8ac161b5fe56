public import ReelCore
import ReelAsset

/// What an export makes: a size box and a quality. `AVAssetExportPreset…`.
public struct ExportPreset: RawRepresentable, Sendable, Hashable, CaseIterable {
    public let rawValue: String
    /// A preset by name, as ``allCases`` spell them (`1920x1080`, `highest`, `passthrough`).
    /// - Parameter rawValue: The name; an unknown one keeps the picture's size at the codec's
    ///   default quality.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Copies the media without re-encoding. `AVAssetExportPresetPassthrough`.
    public static let passthrough = ExportPreset(rawValue: "passthrough")
    /// Fits within 640x480. `AVAssetExportPreset640x480`.
    public static let preset640x480 = ExportPreset(rawValue: "640x480")
    public static let preset960x540 = ExportPreset(rawValue: "960x540")
    public static let preset1280x720 = ExportPreset(rawValue: "1280x720")
    public static let preset1920x1080 = ExportPreset(rawValue: "1920x1080")
    public static let preset3840x2160 = ExportPreset(rawValue: "3840x2160")
    /// Small files for messaging: within 640x360, lower quality. `AVAssetExportPresetLowQuality`.
    public static let lowQuality = ExportPreset(rawValue: "low")
    /// Within 960x540. `AVAssetExportPresetMediumQuality`.
    public static let mediumQuality = ExportPreset(rawValue: "medium")
    /// The source size at high quality. `AVAssetExportPresetHighestQuality`.
    public static let highestQuality = ExportPreset(rawValue: "highest")
    /// HEVC at the source size. `AVAssetExportPresetHEVCHighestQuality`.
    public static let hevcHighestQuality = ExportPreset(rawValue: "hevc-highest")
    public static let hevc1920x1080 = ExportPreset(rawValue: "hevc-1920x1080")
    public static let hevc3840x2160 = ExportPreset(rawValue: "hevc-3840x2160")

    public static let allCases: [ExportPreset] = [
        .passthrough, .preset640x480, .preset960x540, .preset1280x720, .preset1920x1080, .preset3840x2160,
        .lowQuality, .mediumQuality, .highestQuality, .hevcHighestQuality, .hevc1920x1080, .hevc3840x2160,
    ]

    /// The box the output fits in, or nil to keep the render size.
    var box: Size? {
        switch self {
        case .preset640x480: Size(width: 640, height: 480)
        case .preset960x540, .mediumQuality: Size(width: 960, height: 540)
        case .preset1280x720: Size(width: 1280, height: 720)
        case .preset1920x1080, .hevc1920x1080: Size(width: 1920, height: 1080)
        case .preset3840x2160, .hevc3840x2160: Size(width: 3840, height: 2160)
        case .lowQuality: Size(width: 640, height: 360)
        default: nil
        }
    }

    var codec: VideoSettings.Codec { rawValue.hasPrefix("hevc") ? .hevc : .h264 }

    /// x264/x265 CRF for the preset.
    var quality: Double {
        switch self {
        case .lowQuality: 30
        case .mediumQuality: 26
        case .highestQuality: 18
        case .hevcHighestQuality: 22
        default: codec == .hevc ? 26 : 23
        }
    }

    /// The output size for pictures of `size`: fitted within the box keeping the aspect,
    /// never scaled up, even on both sides.
    /// - Parameter size: The render size of the pictures.
    /// - Returns: The encoded width and height.
    public func outputSize(for size: Size) -> (width: Int, height: Int) {
        var scale = 1.0
        if let box {
            // A portrait picture fits the box turned: 640x480 takes 480x640 too.
            let portrait = size.height > size.width
            let boxWidth = portrait ? min(box.width, box.height) : max(box.width, box.height)
            let boxHeight = portrait ? max(box.width, box.height) : min(box.width, box.height)
            scale = min(1, boxWidth / size.width, boxHeight / size.height)
        }
        let width = max(2, Int((size.width * scale / 2).rounded()) * 2)
        let height = max(2, Int((size.height * scale / 2).rounded()) * 2)
        return (width, height)
    }
}

/// A container format to write. `AVFileType`.
public struct FileType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The usual file extension, which is also the name Reel uses for it.
    public let rawValue: String
    /// A file type by its extension-like name (`mp4`, `mov`); see ``init(pathExtension:)`` to
    /// accept only the types Reel writes.
    /// - Parameter rawValue: The name, lower case.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// MPEG-4 (`.mp4`). `AVFileType.mp4`.
    public static let mp4 = FileType(rawValue: "mp4")
    /// QuickTime movie (`.mov`). `AVFileType.mov`.
    public static let mov = FileType(rawValue: "mov")
    /// Apple's MPEG-4 variant (`.m4v`). `AVFileType.m4v`.
    public static let m4v = FileType(rawValue: "m4v")
    /// WebM (`.webm`): VP9 and Opus.
    public static let webm = FileType(rawValue: "webm")
    /// Matroska (`.mkv`).
    public static let mkv = FileType(rawValue: "mkv")
    /// Apple's MPEG-4 audio (`.m4a`): sound alone, AAC. `AVFileType.m4a`.
    public static let m4a = FileType(rawValue: "m4a")

    public static let all: [FileType] = [.mp4, .mov, .m4v, .webm, .mkv, .m4a]

    /// The type a file extension names, if Reel writes it.
    /// - Parameter pathExtension: The extension without its dot, in any case.
    public init?(pathExtension: String) {
        let lower = pathExtension.lowercased()
        guard let type = Self.all.first(where: { $0.rawValue == lower }) else { return nil }
        self = type
    }

    /// FFmpeg's muxer for this type.
    package var muxerName: String {
        switch self {
        case .mov: "mov"
        case .m4v, .m4a: "ipod"
        case .webm: "webm"
        case .mkv: "matroska"
        default: "mp4"
        }
    }

    /// MP4, MOV and M4V: the ISO base media family, with `movflags`.
    package var isISOBaseMedia: Bool { self == .mp4 || self == .mov || self == .m4v || self == .m4a }

    public var description: String { rawValue }
}

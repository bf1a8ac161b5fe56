/// A constraint on how a file type is written: the segmented fragmented-MP4 profiles of
/// ``AssetWriter``. `AVFileTypeProfile`.
public struct FileTypeProfile: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    /// A profile by name.
    /// - Parameter rawValue: The profile's name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Fragmented MP4 segments for HTTP Live Streaming: an initialization segment (ftyp +
    /// moov) and media segments (moof + mdat) that each start with a keyframe.
    /// `AVFileTypeProfile.mpeg4AppleHLS`.
    public static let mpeg4AppleHLS = FileTypeProfile(rawValue: "MPEG4AppleHLS")
    /// The same segments, branded for CMAF (also what DASH plays). `AVFileTypeProfile.mpeg4CMAFCompliant`.
    public static let mpeg4CMAFCompliant = FileTypeProfile(rawValue: "MPEG4CMAFCompliant")

    public var description: String { rawValue }
}

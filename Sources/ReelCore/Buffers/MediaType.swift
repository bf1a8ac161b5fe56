/// The kind of media a track or sample carries. `AVMediaType`.
public struct MediaType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// A media type by name (`video`, `audio`, …).
    /// - Parameter rawValue: The name, as FFmpeg's media type calls it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `AVMediaType.video`.
    public static let video = MediaType(rawValue: "video")
    /// `AVMediaType.audio`.
    public static let audio = MediaType(rawValue: "audio")
    /// Timed text. `AVMediaType.subtitle`.
    public static let subtitle = MediaType(rawValue: "subtitle")
    /// Timed metadata and other data streams. `AVMediaType.metadata`.
    public static let data = MediaType(rawValue: "data")
    /// Fonts and other files attached to a container.
    public static let attachment = MediaType(rawValue: "attachment")
    /// A stream whose kind the demuxer does not know.
    public static let unknown = MediaType(rawValue: "unknown")

    public var description: String { rawValue }
}

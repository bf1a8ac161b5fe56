public import Foundation
import ReelCore

/// Container-level metadata: when and with what a file was made, and where.
/// The counterpart of `AVAsset.commonMetadata` for the keys cameras write.
public struct AssetMetadata: Sendable, Hashable {
    /// `creation_time`, as the container stores it. `AVMetadataKey.commonKeyCreationDate`.
    public var creationDate: Date?
    /// The camera's maker. `com.apple.quicktime.make`.
    public var make: String?
    /// The camera's model. `com.apple.quicktime.model`.
    public var model: String?
    /// Where it was recorded. `com.apple.quicktime.location.ISO6709`.
    public var location: Location?
    public var title: String?
    /// The program that wrote the file.
    public var encoder: String?
    /// Every tag, as FFmpeg names it.
    public var tags: [String: String]

    /// A point on the Earth, as ISO 6709 writes it (`+48.8577+002.2950+035.000/`).
    public struct Location: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?

        /// A location from its coordinates.
        /// - Parameters:
        ///   - latitude: Degrees north (negative south), −90…90.
        ///   - longitude: Degrees east (negative west), −180…180.
        ///   - altitude: Metres above sea level; nil when unknown (ISO 6709 then leaves it out).
        public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }

        /// Parses the decimal-degrees form of ISO 6709; nil for anything else.
        /// - Parameter text: The location as a camera writes it, `+48.8577+002.2950+035.000/`.
        public init?(iso6709 text: String) {
            var numbers: [Double] = []
            var current = ""
            for character in text {
                if character == "+" || character == "-" || character == "/" {
                    if !current.isEmpty {
                        guard let value = Double(current) else { return nil }
                        numbers.append(value)
                    }
                    current = character == "/" ? "" : String(character)
                } else if character.isNumber || character == "." {
                    current.append(character)
                } else {
                    return nil
                }
            }
            if !current.isEmpty, let value = Double(current) { numbers.append(value) }
            guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
            self.init(latitude: numbers[0], longitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil)
        }

        /// `+DD.DDDD+DDD.DDDD[+AAA.AAA]/`.
        public var iso6709: String {
            func signed(_ value: Double, _ width: Int, _ decimals: Int) -> String {
                let digits = String(format: "%0\(width + decimals + 1).\(decimals)f", abs(value))
                return (value < 0 ? "-" : "+") + digits
            }
            var text = signed(latitude, 2, 4) + signed(longitude, 3, 4)
            if let altitude { text += signed(altitude, 3, 3) }
            return text + "/"
        }
    }

    /// Metadata to write with ``AssetWriter/metadata``; any field left nil is not written.
    /// - Parameters:
    ///   - creationDate: When the recording was made.
    ///   - make: The camera's maker.
    ///   - model: The camera's model.
    ///   - location: Where it was recorded.
    ///   - title: The file's title.
    ///   - encoder: The program that wrote the file.
    ///   - tags: Further tags by FFmpeg's names, written as they are.
    public init(creationDate: Date? = nil, make: String? = nil, model: String? = nil, location: Location? = nil,
                title: String? = nil, encoder: String? = nil, tags: [String: String] = [:]) {
        self.creationDate = creationDate
        self.make = make
        self.model = model
        self.location = location
        self.title = title
        self.encoder = encoder
        self.tags = tags
    }

    /// Reads the keys that FFmpeg's demuxers produce for MP4, MOV and Matroska.
    init(tags: [String: String]) {
        func first(_ keys: String...) -> String? { keys.lazy.compactMap { tags[$0] }.first }
        self.init(
            creationDate: first("creation_time", "com.apple.quicktime.creationdate", "date").flatMap(Self.parseDate),
            make: first("com.apple.quicktime.make", "make"),
            model: first("com.apple.quicktime.model", "model"),
            location: first("com.apple.quicktime.location.ISO6709", "location").flatMap { Location(iso6709: $0) },
            title: first("title", "com.apple.quicktime.title"),
            encoder: first("encoder", "com.apple.quicktime.software"),
            tags: tags)
    }

    static func parseDate(_ text: String) -> Date? {
        // The format styles parse without ICU, whose set-up costs every file read a few milliseconds.
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        // QuickTime writes "2019-05-01T10:00:00+0200".
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        return formatter.date(from: text)
    }
}

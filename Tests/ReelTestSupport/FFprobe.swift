public import Foundation

/// ffprobe, the outside judge of files Reel reads and writes.
public struct FFprobe: Sendable {
    public struct Stream: Sendable {
        public var index: Int
        public var codecType: String
        public var codecName: String
        public var width: Int?
        public var height: Int?
        public var averageFrameRate: Double?
        public var baseFrameRate: Double?
        public var frameCount: Int?
        public var sampleRate: Int?
        public var channels: Int?
        public var duration: Double?
        public var profile: String?
        public var pixelFormat: String?
        /// The display-matrix rotation ffprobe prints (counter-clockwise degrees), or 0.
        public var rotation: Double
        /// The colour tags as ffprobe names them (`bt709`, `smpte170m`, `tv`…), nil when absent.
        public var colorSpace: String?
        public var colorPrimaries: String?
        public var colorTransfer: String?
        public var colorRange: String?
    }

    public var duration: Double?
    public var formatName: String
    public var streams: [Stream]
    public var tags: [String: String]

    public func streams(ofType type: String) -> [Stream] { streams.filter { $0.codecType == type } }

    /// Probes `url` with `ffprobe -show_format -show_streams`.
    public static func probe(_ url: URL) throws -> FFprobe {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format",
                                                       "-show_streams", url.path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        else { throw TestFailure("ffprobe \(url.path): \(result.standardError)") }
        let format = json["format"] as? [String: Any] ?? [:]
        let streams = (json["streams"] as? [[String: Any]] ?? []).map { s in
            let sideData = s["side_data_list"] as? [[String: Any]] ?? []
            let rotation = sideData.compactMap { $0["rotation"] as? Double ?? ($0["rotation"] as? Int).map(Double.init) }.first
            return Stream(
                index: s["index"] as? Int ?? -1,
                codecType: s["codec_type"] as? String ?? "",
                codecName: s["codec_name"] as? String ?? "",
                width: s["width"] as? Int,
                height: s["height"] as? Int,
                averageFrameRate: ratio(s["avg_frame_rate"]),
                baseFrameRate: ratio(s["r_frame_rate"]),
                frameCount: (s["nb_frames"] as? String).flatMap(Int.init),
                sampleRate: (s["sample_rate"] as? String).flatMap(Int.init),
                channels: s["channels"] as? Int,
                duration: (s["duration"] as? String).flatMap(Double.init),
                profile: s["profile"] as? String,
                pixelFormat: s["pix_fmt"] as? String,
                rotation: rotation ?? 0,
                colorSpace: s["color_space"] as? String,
                colorPrimaries: s["color_primaries"] as? String,
                colorTransfer: s["color_transfer"] as? String,
                colorRange: s["color_range"] as? String)
        }
        return FFprobe(duration: (format["duration"] as? String).flatMap(Double.init),
                       formatName: format["format_name"] as? String ?? "",
                       streams: streams,
                       tags: format["tags"] as? [String: String] ?? [:])
    }

    /// Counts the decoded frames of the first video stream (`-count_frames`).
    public static func countFrames(_ url: URL) throws -> Int {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames",
                                                       "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", url.path])
        guard let count = Int(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("ffprobe -count_frames \(url.path): \(result.standardError)")
        }
        return count
    }

    /// The presentation time of each decoded frame of the first video stream, in seconds, in
    /// display order (`-show_entries frame=best_effort_timestamp_time`).
    public static func frameTimes(_ url: URL) throws -> [Double] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                       "frame=best_effort_timestamp_time", "-of", "csv=p=0", url.path])
        guard result.status == 0 else { throw TestFailure("ffprobe frame times \(url.path): \(result.standardError)") }
        // A frame with side data prints a trailing comma (and a line of its own for the side data).
        return result.standardOutput.split(separator: "\n")
            .compactMap { $0.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
            .sorted()
    }

    static func ratio(_ value: Any?) -> Double? {
        guard let text = value as? String else { return nil }
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] != 0 else { return nil }
        return parts[0] / parts[1]
    }
}

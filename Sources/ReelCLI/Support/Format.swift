import Foundation
import ReelCore

/// How the CLI writes numbers for people.
enum Format {
    /// `10.133 s`, or `unknown`.
    static func seconds(_ time: MediaTime) -> String {
        guard time.isNumeric else { return "unknown duration" }
        return String(format: "%.3f s", time.seconds)
    }

    /// `00:01:02.345`.
    static func timecode(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "--:--:--" }
        let millis = Int((max(seconds, 0) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
    }

    /// `12.3 MB`.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(max(count, 0))
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `2.1 Mb/s`.
    static func bitRate(_ bitsPerSecond: Double) -> String {
        if bitsPerSecond >= 1_000_000 { return String(format: "%.1f Mb/s", bitsPerSecond / 1_000_000) }
        return String(format: "%.0f kb/s", bitsPerSecond / 1000)
    }

    /// Up to two decimals, no trailing zeros: `25`, `24.88`, `29.97`.
    static func number(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// ISO 8601 in UTC.
    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

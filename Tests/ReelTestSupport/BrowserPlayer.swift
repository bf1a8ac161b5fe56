public import Foundation

/// Headless Chromium playing a file, through `Tests/browser/play.py` and Selenium.
public enum BrowserPlayer {
    public struct Report: Sendable {
        public var readyState: Int
        public var videoWidth: Int
        public var videoHeight: Int
        public var currentTimeBefore: Double
        public var currentTimeAfter: Double
        public var error: Int?
    }

    /// Whether Chromium, chromedriver and Selenium are installed (make deps installs them).
    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
    }

    public static func play(_ url: URL, seconds: Double = 1.5) throws -> Report {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/play.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, url.path, String(seconds)], timeout: 90)
        guard result.status == 0, let line = result.standardOutput.split(separator: "\n").last,
              let report = try report(line)
        else { throw TestFailure("play.py \(url.path): \(result.standardError)") }
        return report
    }

    /// Plays each file in turn in one browser, which is much faster than one browser each.
    public static func playAll(_ urls: [URL], seconds: Double = 0.6) throws -> [Report] {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/play.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, "--many", String(seconds)] + urls.map(\.path),
                                           timeout: 60 + Double(urls.count) * 20)
        let reports = try result.standardOutput.split(separator: "\n").compactMap { try report($0) }
        guard result.status == 0, reports.count == urls.count else {
            throw TestFailure("play.py --many: \(reports.count) of \(urls.count) played: \(result.standardError)")
        }
        return reports
    }

    /// The colour (red, green, blue) at the centre of the picture Chromium shows after
    /// seeking to each of `times`, in order: what a browser makes of the file's edit lists.
    public static func colors(_ url: URL, at times: [Double]) throws -> [(time: Double, red: Int, green: Int, blue: Int)] {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/play.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, "--seek", url.path] + times.map { String($0) },
                                           timeout: 60 + Double(times.count))
        guard result.status == 0, let line = result.standardOutput.split(separator: "\n").last,
              let rows = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[Double]],
              rows.count == times.count, rows.allSatisfy({ $0.count == 4 })
        else { throw TestFailure("play.py --seek \(url.path): \(result.standardError)") }
        return rows.map { ($0[0], Int($0[1]), Int($0[2]), Int($0[3])) }
    }

    private static func report(_ line: Substring) throws -> Report? {
        guard let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return Report(readyState: json["readyState"] as? Int ?? 0,
                      videoWidth: json["videoWidth"] as? Int ?? 0,
                      videoHeight: json["videoHeight"] as? Int ?? 0,
                      currentTimeBefore: json["before"] as? Double ?? 0,
                      currentTimeAfter: json["currentTime"] as? Double ?? 0,
                      error: json["error"] as? Int)
    }
}

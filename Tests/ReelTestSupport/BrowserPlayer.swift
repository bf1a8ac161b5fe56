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
        guard result.status == 0,
              let line = result.standardOutput.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw TestFailure("play.py \(url.path): \(result.standardError)") }
        return Report(readyState: json["readyState"] as? Int ?? 0,
                      videoWidth: json["videoWidth"] as? Int ?? 0,
                      videoHeight: json["videoHeight"] as? Int ?? 0,
                      currentTimeBefore: json["before"] as? Double ?? 0,
                      currentTimeAfter: json["currentTime"] as? Double ?? 0,
                      error: json["error"] as? Int)
    }
}

public import Foundation

/// Headless Chromium playing an HLS or DASH package to its end, every rendition, through
/// `Tests/browser/package.py` (Media Source Extensions, and Chromium's own HLS when it has it).
public enum PackagePlayer {
    public struct Report: Sendable {
        /// `mse` or `native`.
        public var mode: String
        public var resolution: String?
        public var videoWidth: Int
        public var videoHeight: Int
        public var duration: Double
        public var currentTime: Double
        public var ended: Bool
        /// Pictures Chromium decoded (`getVideoPlaybackQuality().totalVideoFrames`).
        public var frames: Int
        /// The buffered range of each source buffer (video, then sound): start, end.
        public var buffered: [[Double]]
        public var error: String?
        /// For native: whether Chromium said it can play HLS (`canPlayType`).
        public var nativeSupported: Bool
    }

    /// Plays `folder`'s `master.m3u8` (kind `hls`) or `manifest.mpd` (`dash`).
    public static func play(_ kind: String, folder: URL) throws -> [Report] {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/package.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, kind, folder.path], timeout: 240)
        let reports = try result.standardOutput.split(separator: "\n").map { line -> Report in
            guard let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestFailure("package.py printed \(line)")
            }
            let error = json["error"].flatMap { $0 is NSNull ? nil : "\($0)" }
            return Report(
                mode: json["mode"] as? String ?? "", resolution: json["resolution"] as? String,
                videoWidth: json["videoWidth"] as? Int ?? 0, videoHeight: json["videoHeight"] as? Int ?? 0,
                duration: (json["duration"] as? NSNumber)?.doubleValue ?? 0,
                currentTime: (json["currentTime"] as? NSNumber)?.doubleValue ?? 0,
                ended: json["ended"] as? Bool ?? false, frames: json["frames"] as? Int ?? 0,
                buffered: (json["buffered"] as? [[NSNumber]])?.map { $0.map(\.doubleValue) } ?? [],
                error: error, nativeSupported: (json["canPlayType"] as? String).map { !$0.isEmpty } ?? false)
        }
        guard result.status == 0 else { throw TestFailure("package.py \(kind) \(folder.path): \(result.standardError)") }
        return reports
    }
}

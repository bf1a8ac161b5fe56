public import Foundation

/// Measures a movie's frame-to-frame global motion with an estimator Reel does not use:
/// FFmpeg's `vidstabdetect` (libvidstab). Each frame's global motion is the median of the
/// local motions vidstab finds; the result is their mean length in pixels.
public enum ShakeMeter {
    /// The mean length, in pixels, of the frame-to-frame global motion of `url`'s video,
    /// and the number of frames measured (frames where vidstab found local motions).
    public static func meanMotion(_ url: URL) throws -> (pixels: Double, frames: Int) {
        let trf = url.deletingPathExtension().appendingPathExtension("trf")
        defer { try? FileManager.default.removeItem(at: trf) }
        let result = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-vf",
                                                                "vidstabdetect=result=\(trf.path):shakiness=10:accuracy=15",
                                                                "-f", "null", "-"], timeout: 300)
        guard result.status == 0, let text = try? String(contentsOf: trf, encoding: .utf8) else {
            throw TestFailure("vidstabdetect \(url.path): \(result.standardError)")
        }
        var total = 0.0, frames = 0
        for line in text.split(separator: "\n") where line.hasPrefix("Frame ") {
            var xs: [Double] = [], ys: [Double] = []
            for match in line.split(separator: "(LM ").dropFirst() {
                let fields = match.split(separator: " ").prefix(2).compactMap { Double($0) }
                if fields.count == 2 {
                    xs.append(fields[0])
                    ys.append(fields[1])
                }
            }
            guard !xs.isEmpty else { continue }
            let dx = median(xs), dy = median(ys)
            total += (dx * dx + dy * dy).squareRoot()
            frames += 1
        }
        return (frames > 0 ? total / Double(frames) : 0, frames)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

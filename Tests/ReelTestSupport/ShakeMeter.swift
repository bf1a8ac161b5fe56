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

    /// 4 s of 640x480 at 30 fps that the ffmpeg CLI shakes over an 800x600 still (a sum of
    /// sines at 2, 5 and 9 Hz), with a 440 Hz tone, written to `shaky.mp4` in `directory`.
    /// The still is seeded: cellauto's default seed is random, and some textures leave up to 1.6 px.
    public static func shakyClip(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("shaky.mp4")
        let x = "80+12*sin(2*PI*2*t)+6*sin(2*PI*5*t+1)+3*sin(2*PI*9*t+2)"
        let y = "60+12*sin(2*PI*2*t+0.5)+6*sin(2*PI*5*t+2.5)+3*sin(2*PI*9*t+4)"
        let result = try ProcessRunner.run("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", "cellauto=s=800x600:rule=110:rate=30:full=1:seed=1,trim=end_frame=1,loop=loop=-1:size=1,setpts=N/30/TB",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-filter_complex", "[0:v]crop=640:480:'\(x)':'\(y)',format=yuv420p[v]",
            "-map", "[v]", "-map", "1:a", "-t", "4", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", url.path,
        ])
        guard result.status == 0 else { throw TestFailure("ffmpeg: \(result.standardError)") }
        return url
    }
}

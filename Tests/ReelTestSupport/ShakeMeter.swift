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

    /// The mean frame-to-frame turn of `url`'s video, in degrees, as libvidstab itself finds
    /// it from its local motions: `vidstabdetect`, then `vidstabtransform` with `debug=1`,
    /// which writes each frame's global motion (x, y, angle, zoom) to `global_motions.trf`
    /// in its working directory (a directory of its own here).
    /// - Returns: the mean absolute angle in degrees, the mean shift in pixels (vidstab's
    ///   translation, for comparison) and the number of frames measured.
    public static func meanRotation(_ url: URL) throws -> (degrees: Double, pixels: Double, frames: Int) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("reel-vidstab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let trf = work.appendingPathComponent("detect.trf")
        for filter in ["vidstabdetect=result=\(trf.path):shakiness=10:accuracy=15",
                       "vidstabtransform=input=\(trf.path):debug=1"] {
            let result = try ProcessRunner.run("/usr/bin/env", ["-C", work.path, "/usr/bin/ffmpeg", "-v", "error", "-nostdin",
                                                                "-i", url.path, "-vf", filter, "-f", "null", "-"], timeout: 300)
            guard result.status == 0 else { throw TestFailure("\(filter) \(url.path): \(result.standardError)") }
        }
        guard let text = try? String(contentsOf: work.appendingPathComponent("global_motions.trf"), encoding: .utf8) else {
            throw TestFailure("vidstabtransform wrote no global_motions.trf for \(url.path)")
        }
        var degrees = 0.0, pixels = 0.0, frames = 0
        // "0 x y alpha zoom extra" a frame (the first is the reference), comment lines between.
        for line in text.split(separator: "\n").dropFirst() where !line.hasPrefix("#") {
            let fields = line.split(separator: " ").compactMap { Double($0) }
            guard fields.count >= 5 else { continue }
            degrees += abs(fields[3]) * 180 / .pi
            pixels += (fields[1] * fields[1] + fields[2] * fields[2]).squareRoot()
            frames += 1
        }
        guard frames > 0 else { throw TestFailure("global_motions.trf of \(url.path) has no frames") }
        return (degrees / Double(frames), pixels / Double(frames), frames)
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
        try shakyClip(in: directory, rolling: false)
    }

    /// As ``shakyClip(in:)``, and `rolling`: the still softened as a lens would (a Gaussian of
    /// 1.5 pixels: the sharp cellular pattern aliases some bands of a turned picture by 30 pixels)
    /// and turned about the picture's centre by a sum of sines (2, 5 and 9 Hz at 0.5°, 0.25°
    /// and 0.125°), written to `rolling.mp4`.
    public static func shakyClip(in directory: URL, rolling: Bool) throws -> URL {
        let url = directory.appendingPathComponent(rolling ? "rolling.mp4" : "shaky.mp4")
        let x = "80+12*sin(2*PI*2*t)+6*sin(2*PI*5*t+1)+3*sin(2*PI*9*t+2)"
        let y = "60+12*sin(2*PI*2*t+0.5)+6*sin(2*PI*5*t+2.5)+3*sin(2*PI*9*t+4)"
        let roll = "PI/180*(0.5*sin(2*PI*2*t+1.5)+0.25*sin(2*PI*5*t+0.3)+0.125*sin(2*PI*9*t+5))"
        let result = try ProcessRunner.run("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", "cellauto=s=800x600:rule=110:rate=30:full=1:seed=1,trim=end_frame=1,loop=loop=-1:size=1,setpts=N/30/TB",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-filter_complex", "[0:v]\(rolling ? "gblur=sigma=1.5,rotate='\(roll)':bilinear=1," : "")crop=640:480:'\(x)':'\(y)',format=yuv420p[v]",
            "-map", "[v]", "-map", "1:a", "-t", "4", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", url.path,
        ])
        guard result.status == 0 else { throw TestFailure("ffmpeg: \(result.standardError)") }
        return url
    }
}

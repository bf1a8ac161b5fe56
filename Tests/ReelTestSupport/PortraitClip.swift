public import Foundation

/// A phone's portrait clip: stored on its side with a 90° display matrix, white over black
/// when shown upright, made by the ffmpeg CLI. And a look at which half of a picture is bright.
public enum PortraitClip {
    /// Writes the clip to `url`: `width`x`height` shown upright (each even), `seconds` long.
    public static func write(to url: URL, width: Int, height: Int, seconds: Int) throws {
        let stem = url.deletingPathExtension().path
        let upright = URL(fileURLWithPath: stem + "-upright.mp4"), stored = URL(fileURLWithPath: stem + "-stored.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=white:size=\(width)x\(height / 2):rate=25:duration=\(seconds)",
                                  "-f", "lavfi", "-i", "color=black:size=\(width)x\(height / 2):rate=25:duration=\(seconds)",
                                  "-filter_complex", "[0][1]vstack", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                  upright.path])
        try ProcessRunner.ffmpeg(["-i", upright.path, "-vf", "transpose=1", "-c:v", "libx264", "-preset", "ultrafast", stored.path])
        try ProcessRunner.ffmpeg(["-i", stored.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", url.path])
    }

    /// The mean grey of the top 7/16 and of the bottom 7/16 of `url`'s first picture, as FFmpeg
    /// shows it (turned by its matrix), scaled to `width`x`height`.
    public static func halves(of url: URL, width: Int, height: Int) throws -> (top: Int, bottom: Int) {
        let raw = url.appendingPathExtension("gray")
        try ProcessRunner.ffmpeg(["-i", url.path, "-frames:v", "1", "-vf", "scale=\(width):\(height)", "-f", "rawvideo",
                                  "-pix_fmt", "gray", raw.path])
        let pixels = [UInt8](try Data(contentsOf: raw))
        guard pixels.count == width * height else { throw TestFailure("\(url.path): \(pixels.count) grey bytes, not \(width)x\(height)") }
        let band = width * (height * 7 / 16)
        let top = pixels[0..<band].map(Int.init).reduce(0, +) / band
        let bottom = pixels[(pixels.count - band)...].map(Int.init).reduce(0, +) / band
        return (top, bottom)
    }
}

public import Foundation

/// Clips whose pictures carry their own frame numbers, for tests that must tell which
/// source frame ended up where (smart render, smart chunks): made and read back by the
/// ffmpeg CLI.
public enum NumberedClips {
    /// 320x180 at 30 fps whose frame n shows n + `offset` in binary in its top half (bit b
    /// white or black in the 40-pixel column b), with a tone; x264 at `crf`, a keyframe every
    /// `gop` frames exactly (no scene cuts).
    /// - Parameters:
    ///   - name: The file's name in `directory`.
    ///   - directory: Where to write it.
    ///   - offset: The number the first frame shows.
    ///   - seconds: The length of picture and sound.
    ///   - crf: x264's quality.
    ///   - gop: Frames from one keyframe to the next.
    /// - Returns: The clip's URL.
    public static func make(_ name: String, in directory: URL, offset: Int, seconds: Double = 3, crf: Int = 23,
                            gop: Int = 30) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let bits = "if(lt(Y\\,90)\\,if(bitand(N+\(offset)\\,pow(2\\,floor(X/40)))\\,235\\,16)\\,128)"
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=320x180:r=30:d=\(seconds),geq=lum='\(bits)':cb=128:cr=128",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            "-c:v", "libx264", "-crf", "\(crf)", "-g", "\(gop)", "-x264-params", "scenecut=0", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-shortest", url.path])
        return url
    }

    /// The number each decoded frame of `url` shows.
    /// - Parameters:
    ///   - url: A file made by ``make(_:in:offset:seconds:crf:gop:)`` or edited from one.
    ///   - directory: Where the decoded pictures are written.
    /// - Returns: One number per decoded frame, in order.
    public static func frameNumbers(_ url: URL, scratch directory: URL) throws -> [Int] {
        let raw = directory.appendingPathComponent(url.lastPathComponent + ".gray")
        try ProcessRunner.ffmpeg(["-i", url.path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let data = try Data(contentsOf: raw)
        let size = 320 * 180
        return stride(from: 0, to: data.count - size + 1, by: size).map { start in
            (0..<8).reduce(0) { value, bit in data[start + 45 * 320 + bit * 40 + 20] > 128 ? value | 1 << bit : value }
        }
    }

    /// The MD5 of each decoded frame of `url` (`ffmpeg -f framemd5`), in order.
    /// - Parameter url: Any file with a video stream.
    /// - Returns: One checksum per decoded frame.
    public static func checksums(_ url: URL) throws -> [String] {
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg framemd5 \(url.path): \(result.standardError)") }
        return result.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }
}

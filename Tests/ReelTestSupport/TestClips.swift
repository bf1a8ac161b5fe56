public import Foundation

/// Small clips made by the ffmpeg CLI for tests that are about reading what others wrote.
public enum TestClips {
    /// A short H.264 + AAC clip with the display-matrix rotation that `-metadata:s:v rotate=N`
    /// writes (FFmpeg 5.1: `rotate=270` gives ffprobe's −90, the iPhone portrait case).
    public static func rotated(_ degrees: Int, in directory: URL, size: String = "320x240") throws -> URL {
        let base = directory.appendingPathComponent("base-\(size).mp4")
        if !FileManager.default.fileExists(atPath: base.path) {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=1",
                                      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                      "-c:a", "aac", "-shortest", base.path])
        }
        let out = directory.appendingPathComponent("rotate-\(degrees).mp4")
        try ProcessRunner.ffmpeg(["-i", base.path, "-c", "copy", "-metadata:s:v", "rotate=\(degrees)", out.path])
        return out
    }

    /// A file the way a live muxer leaves it: the ffmpeg CLI writing `format` (`webm`,
    /// `matroska`) to a pipe cannot go back to fill in the duration or write cues, as a
    /// browser's MediaRecorder cannot. The picture's brightness rises with time (luma
    /// 20 + 50 per second), so which moment a frame shows can be read from its pixels.
    /// - Parameters:
    ///   - seconds: the length of the picture and of the sound.
    ///   - format: the muxer, `webm` (VP8 + Opus) or `matroska` (H.264 + AAC).
    public static func live(_ format: String, seconds: Int = 4, in directory: URL) throws -> URL {
        let out = directory.appendingPathComponent("live-\(seconds).\(format == "webm" ? "webm" : "mkv")")
        let codecs = format == "webm" ? ["-c:v", "libvpx", "-b:v", "400k", "-deadline", "realtime", "-c:a", "libopus"]
            : ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]
        let arguments = ["-f", "lavfi", "-i", "nullsrc=s=160x90:r=25:d=\(seconds),geq=lum='20+50*T':cb=128:cr=128",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                         "-pix_fmt", "yuv420p"] + codecs + ["-f", format, "pipe:1"]
        // FFmpeg's pipe protocol never seeks, even when the shell points it at a file.
        let result = try ProcessRunner.run("sh", ["-c", "out=$1; shift; ffmpeg -nostdin -v error \"$@\" > \"$out\"",
                                                  "sh", out.path] + arguments)
        guard result.status == 0 else { throw TestFailure("ffmpeg to a pipe (\(format)): \(result.standardError)") }
        return out
    }
}

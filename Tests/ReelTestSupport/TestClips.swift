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
}

public import Foundation

/// Flash-and-click clips (a white frame and a 10 ms 1 kHz click at the same instant, every
/// second) made by the ffmpeg CLI, and what a viewer would see and hear in any file:
/// the times of its flashes (from decoded frames) and its clicks (from decoded samples).
public enum FlashAndClick {
    /// `seconds` of 160x90 video at `fps` (dark, white for the frame at each whole second)
    /// and mono AAC at `sampleRate` (silent, a 10 ms 1 kHz click at 0.9 at each whole second),
    /// the sound lasting `extraSound` seconds longer than the picture, written as `name`.
    public static func clip(in directory: URL, seconds: Int, fps: Int = 25, sampleRate: Int = 48000,
                            extraSound: Double = 0, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let sound = Double(seconds) + extraSound
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=160x90:r=\(fps):d=\(seconds),geq=lum='if(lt(mod(T\\,1)\\,0.5/\(fps))\\,235\\,30)':cb=128:cr=128",
            "-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t\\,1)\\,0.01)\\,0.9*sin(2*PI*1000*t)\\,0)':s=\(sampleRate):d=\(sound)",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", url.path])
        return url
    }

    /// The decoded sound of the first audio stream, mono, at `sampleRate` (ffmpeg CLI, edit lists applied).
    public static func samples(of url: URL, sampleRate: Int = 48000) throws -> [Float] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-pcm-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ProcessRunner.ffmpeg(["-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "\(sampleRate)", "-f", "f32le", raw.path])
        let data = try Data(contentsOf: raw)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The times of the clicks: each first sample above 0.3 that follows `gap` seconds without one.
    public static func clicks(in url: URL, gap: Double) throws -> [Double] {
        let samples = try samples(of: url)
        var clicks: [Double] = []
        var last = -Double.infinity
        for (index, value) in samples.enumerated() where abs(value) > 0.3 {
            let time = Double(index) / 48000
            if time - last > gap { clicks.append(time) }
            last = time
        }
        return clicks
    }

    /// The times of the flashes: each first frame brighter than mid-grey after a darker one
    /// (ffprobe's presentation times and signalstats' mean luma of every decoded frame).
    public static func flashes(in url: URL) throws -> [Double] {
        let escaped = url.path.replacingOccurrences(of: "'", with: "\\'")
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-f", "lavfi", "movie='\(escaped)',signalstats",
                                                       "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG",
                                                       "-of", "csv=p=0"])
        guard result.status == 0 else { throw TestFailure("ffprobe signalstats \(url.path): \(result.standardError)") }
        var flashes: [Double] = []
        var bright = false
        for line in result.standardOutput.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[0]), let luma = Double(fields[1]) else { continue }
            if luma > 128, !bright { flashes.append(time) }
            bright = luma > 128
        }
        return flashes
    }

    /// How found events sit against where they belong: for each expected time, the nearest
    /// found one within `window` seconds (its offset in seconds), or a lost event.
    public static func match(_ found: [Double], expected: [Double], window: Double) -> (offsets: [Double], lost: Int) {
        var offsets: [Double] = []
        var lost = 0
        for time in expected {
            guard let nearest = found.min(by: { abs($0 - time) < abs($1 - time) }), abs(nearest - time) <= window else {
                lost += 1
                continue
            }
            offsets.append(nearest - time)
        }
        return (offsets, lost)
    }

    /// The ffmpeg CLI's pitch-kept speed change of the sound alone (`atempo`, chained within
    /// its 0.5…100), written as AAC: the reference a pitch-kept stretch is compared with.
    public static func atempo(_ url: URL, rate: Double, to output: URL) throws {
        var stages: [String] = []
        var remaining = rate
        while remaining < 0.5 {
            stages.append("atempo=0.5")
            remaining /= 0.5
        }
        stages.append("atempo=\(remaining)")
        try ProcessRunner.ffmpeg(["-i", url.path, "-vn", "-af", stages.joined(separator: ","), "-c:a", "aac", output.path])
    }
}

import Foundation
import ReelTestSupport
import Testing

/// `reel timeline` draws each sound clip's volume as a line over its bar (`clips[].audio`
/// volume, fadeIn, fadeOut; the mix's crossfades and `audio.volume` with them), its fades as
/// ramps: judged on the PNG's pixels, the line's height in each column against the volume then.
@Suite struct TimelineSoundTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-timeline-sound")
        for (name, frequency) in [("low", 440), ("high", 1000)] {
            try ProcessRunner.ffmpeg([
                "-f", "lavfi", "-i", "color=0x404040:s=160x90:r=25:d=4",
                "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=4",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", "-shortest",
                directory.appendingPathComponent("\(name).mov").path,
            ])
        }
    }

    /// Two clips, 0–4 s at volume 0.5 fading in and out over 1 s, then 4–6 s at volume 2, in
    /// a picture 800 wide (the time axis from x 110 to 780, rows of 44 pixels under a 30-pixel
    /// axis, the line between 8 pixels inside a row's top and bottom, unity at three quarters
    /// and 4 at the top). In the columns of 0.25, 0.5, 2, 3.5 and 5 s the line (yellow, two
    /// pixels) is in a sound row at the height of 0.125, 0.25, 0.5, 0.25 and 2, within a pixel
    /// and a half; no picture row has one.
    @Test func soundClipsShowTheirVolumeAndFades() throws {
        let spec = directory.appendingPathComponent("sound.json")
        try Data(
            """
            {"clips": [{"file": "low.mov", "audio": {"volume": 0.5, "fadeIn": 1, "fadeOut": 1}},
                       {"file": "high.mov", "range": {"start": 0, "end": 2}, "audio": {"volume": 2}}]}
            """.utf8
        ).write(to: spec)
        let out = directory.appendingPathComponent("sound.png")
        let result = try ProcessRunner.reel(["timeline", spec.path, "-o", out.path, "--width", "800"])
        try #require(result.status == 0, "\(result.standardError)")
        let height = 30 + 4 * 44 + 20 // 2 video, 2 audio rows
        let raw = directory.appendingPathComponent("sound.rgb")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        try #require(bytes.count == 800 * height * 3, "\(bytes.count) bytes")
        func isLine(_ x: Int, _ y: Int) -> Bool {
            let at = (y * 800 + x) * 3
            return bytes[at] == 255 && bytes[at + 1] == 228 && bytes[at + 2] == 64
        }
        func wantedHeight(_ gain: Double) -> Double { gain <= 1 ? 0.75 * gain : 0.75 + 0.25 * (gain - 1) / 3 }
        for (seconds, gain) in [(0.25, 0.125), (0.5, 0.25), (2.0, 0.5), (3.5, 0.25), (5.0, 2.0)] {
            let x = 110 + Int((seconds / 6 * 670).rounded())
            let ys = (0..<height).filter { isLine(x, $0) }
            try #require(!ys.isEmpty, "no volume line at \(seconds) s (x \(x))")
            let rows = Set(ys.map { ($0 - 30) / 44 })
            #expect(rows.count == 1 && rows.allSatisfy { $0 >= 2 }, "\(seconds) s: line in rows \(rows.sorted())")
            let row = ys.map { ($0 - 30) / 44 }.max() ?? 0
            let bottom = 30 + row * 44 + 44 - 8, top = 30 + row * 44 + 8
            let y = ys.max() ?? 0
            let measured = Double(bottom - y) / Double(bottom - top)
            #expect(
                abs(measured - wantedHeight(gain)) <= 1.5 / 28,
                "\(seconds) s: the line at \(y) (\(measured) of the row), wanted \(wantedHeight(gain)) for volume \(gain)")
            #expect(ys.count <= 3, "\(seconds) s: \(ys.count) line pixels, \(ys)")
        }
        // The fade in rises: its column-by-column heights never fall over its first second.
        let row = 2
        var last = Int.max
        for x in (110 + 2)..<(110 + 670 / 6 - 2) {
            guard let y = (30 + row * 44..<30 + row * 44 + 44).filter({ isLine(x, $0) }).max() else {
                Issue.record("no line at x \(x) in the fade in")
                break
            }
            #expect(y <= last, "the fade in falls at x \(x): \(y) after \(last)")
            last = y
        }
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Per-clip sound (`clips[].audio`: volume, fadeIn, fadeOut), judged on the sound `reel
/// compose` wrote: the RMS of generated tones in 50 ms windows against the ramps' formula,
/// through a dissolve's crossfade and `audio.volume`; and the errors of the edges around it
/// (fades longer than the clip, boomerang clips' indices, overlay text length).
@Suite struct ClipSoundTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-clip-sound")
        // Two 4 s clips with tones of different pitch (their sum's power is the sum of their
        // powers), amplitude 1/16 (lavfi's sine is 1/8, halved).
        for (name, frequency) in [("low", 440), ("high", 1000)] {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=0x404040:s=160x90:r=25:d=4",
                                      "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=4,volume=0.5",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", "-shortest",
                                      directory.appendingPathComponent("\(name).mov").path])
        }
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=red:s=64x64", "-frames:v", "1",
                                  directory.appendingPathComponent("still.png").path])
    }

    /// The decoded sound of `movie`, mono, 48 kHz.
    private func samples(_ movie: URL) throws -> [Float] {
        let raw = directory.appendingPathComponent(movie.deletingPathExtension().lastPathComponent + ".f32")
        try ProcessRunner.ffmpeg(["-y", "-i", movie.path, "-map", "0:a", "-ac", "1", "-ar", "48000", "-f", "f32le", raw.path])
        let data = try Data(contentsOf: raw)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The RMS of the 50 ms centred on `seconds`.
    private func rms(_ sound: [Float], at seconds: Double) -> Double {
        let centre = Int(seconds * 48000), half = 1200
        let window = sound[max(0, centre - half)..<min(sound.count, centre + half)]
        return (window.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(window.count, 1))).squareRoot()
    }

    /// Two clips, 0-3 s and 2-5 s, joined by a 1 s dissolve, `audio.volume` 0.8. The first at
    /// volume 0.5 fades in over 1 s; the second fades out over its last 1.5 s. The first's gain
    /// is 0.8 × 0.5 × min(t, 1), times 3 - t in the dissolve; the second's 0.8 × (t - 2) in the
    /// dissolve, then 0.8 × min(1, (5 - t) / 1.5). The two tones' RMS is 1/16/√2 × √(a² + b²):
    /// measured at the fade's start, middle and end, in the dissolve and in the fade out, within
    /// 0.5 dB (or 0.0015 where it is near silence, a quarter of the fade's middle). The output
    /// lasts 5 s.
    @Test func fadesFollowTheirRampsThroughADissolve() throws {
        let spec = directory.appendingPathComponent("fades.json")
        try Data("""
            {"clips": [{"file": "low.mov", "range": {"start": 0, "end": 3}, "audio": {"volume": 0.5, "fadeIn": 1},
                        "transition": {"type": "dissolve", "duration": 1}},
                       {"file": "high.mov", "range": {"start": 0, "end": 3}, "audio": {"fadeOut": 1.5}}],
             "audio": {"volume": 0.8}}
            """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("fades.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        try #require(result.status == 0, "\(result.standardError)")
        let sound = try samples(out)
        func first(_ t: Double) -> Double { t > 3 ? 0 : 0.8 * 0.5 * min(t, 1) * (t < 2 ? 1 : 3 - t) }
        func second(_ t: Double) -> Double { t < 2 ? 0 : 0.8 * (t < 3 ? t - 2 : 1) * min(1, (5 - t) / 1.5) }
        var lines: [String] = []
        for t in [0.01, 0.5, 1.0, 1.5, 2.25, 2.5, 2.75, 3.5, 4.25, 4.75, 4.98] {
            let wanted = 0.0625 / 2.0.squareRoot() * (first(t) * first(t) + second(t) * second(t)).squareRoot()
            let got = rms(sound, at: t)
            lines.append(String(format: "%.2f s: %.4f (wanted %.4f)", t, got, wanted))
            if wanted > 0.004 {
                #expect(abs(20 * log10(got / wanted)) <= 0.5, "at \(t) s: RMS \(got), wanted \(wanted)")
            } else {
                #expect(abs(got - wanted) <= 0.0015, "at \(t) s: RMS \(got), wanted \(wanted)")
            }
        }
        print("clip sound fades: " + lines.joined(separator: "; "))
        #expect(abs(Double(sound.count) / 48000 - 5) < 0.03, "\(Double(sound.count) / 48000) s of sound")
    }

    /// A boomerang's fades: in on the way forwards, out on the way back (1 s each way).
    @Test func aBoomerangFadesInForwardsAndOutBackwards() throws {
        let spec = try CompositionSpec(data: Data("""
            {"clips": [{"file": "low.mov", "range": {"start": 0, "end": 1}, "boomerang": true, "audio": {"fadeIn": 0.5, "fadeOut": 0.5}}]}
            """.utf8))
        let expanded = spec.expandingBoomerangs()
        #expect(expanded.clips.count == 2)
        #expect(expanded.clips[0].audio?.fadeIn == 0.5 && expanded.clips[0].audio?.fadeOut == nil)
        #expect(expanded.clips[1].audio?.fadeIn == nil && expanded.clips[1].audio?.fadeOut == 0.5)
        #expect(spec.boomerangOrigins() == [0, 0])
    }

    /// Refusals, each one line naming the user's own spec path: fades longer than the clip, a
    /// volume out of range, sound settings on a still, an error after a boomerang (which the
    /// expansion used to number one too high), a still marked as a boomerang, an overlay's
    /// text too long.
    @Test func refusalsNameTheSpecPath() throws {
        let long = String(repeating: "a", count: 2001)
        let cases: [(String, String)] = [
            (#"{"clips": [{"file": "low.mov", "range": {"start": 0, "end": 2}, "audio": {"fadeIn": 1.5, "fadeOut": 1}}]}"#,
             "clips[0].audio: fadeIn and fadeOut"),
            (#"{"clips": [{"file": "low.mov", "audio": {"volume": 5}}]}"#, "clips[0].audio.volume"),
            (#"{"clips": [{"file": "low.mov", "audio": {"fadeIn": -1}}]}"#, "clips[0].audio.fadeIn"),
            (#"{"clips": [{"file": "low.mov", "audio": {"gain": 1}}]}"#, "gain"),
            (#"{"clips": [{"file": "still.png", "audio": {"volume": 0.5}}]}"#, "clips[0].audio"),
            (#"{"clips": [{"file": "low.mov", "boomerang": true}, {"file": "low.mov", "range": {"start": 0, "end": 99}}]}"#,
             "clips[1].range.end"),
            (#"{"clips": [{"file": "low.mov"}, {"file": "still.png", "boomerang": true}]}"#, "clips[1].boomerang"),
            (#"{"clips": [{"file": "low.mov"}], "overlays": [{"type": "text", "text": "\#(long)", "frame": {"x": 0, "y": 0, "width": 100, "height": 40}}]}"#,
             "overlays[0].text"),
        ]
        for (index, (json, path)) in cases.enumerated() {
            let spec = directory.appendingPathComponent("bad-\(index).json")
            try json.write(to: spec, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("bad.mp4").path])
            #expect(result.status != 0 && result.standardError.contains(path), "\(json.prefix(120)): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
    }
}

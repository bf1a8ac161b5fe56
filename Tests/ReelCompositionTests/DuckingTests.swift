import Foundation
import ReelComposition
import ReelTestSupport
import Testing

/// `audio.music.duck` (issue 22): music lowered under the clips' sound, measured in the
/// output with ffmpeg (the music's band alone, while the clips sound and between).
@Suite struct DuckingTests {
    /// RMS level (dBFS) of the 440 Hz music band in `url` over [start, start + 0.3 s).
    private func musicLevel(_ url: URL, from start: Double) throws -> Double {
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "info", "-ss", "\(start)", "-t", "0.3", "-i", url.path, "-af",
                                                      "bandpass=f=440:width_type=h:w=60,bandpass=f=440:width_type=h:w=60,astats=metadata=0",
                                                      "-f", "null", "-"])
        let line = result.standardError.split(separator: "\n").last { $0.contains("RMS level dB") } ?? ""
        guard let level = Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else {
            throw TestFailure("no level: \(result.standardError.suffix(300))")
        }
        return level
    }

    /// Noise bursts above 3 kHz (1 s on, 1 s off) as the clip's sound, a 440 Hz tone as the
    /// music: in the middle of each burst the tone is `amount` dB (± 1) below its level in the
    /// gaps, and the length is unchanged.
    @Test(arguments: [12.0, 6.0])
    func musicGoesDownBySetAmountWhileTheClipSounds(amount: Double) throws {
        let directory = try Paths.temporaryDirectory("reel-duck")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=6", "-f", "lavfi", "-i",
                                  "anoisesrc=color=white:amplitude=0.3:duration=6:sample_rate=48000,highpass=f=3000,highpass=f=3000,"
                                    + "highpass=f=3000,highpass=f=3000,volume='if(lt(mod(t,2),1),1,0)':eval=frame",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                                  directory.appendingPathComponent("speech.mp4").path])
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=8,volume=2", "-c:a", "aac",
                                  directory.appendingPathComponent("music.m4a").path])
        let spec = directory.appendingPathComponent("duck.json")
        try #"""
            {"clips": [{"file": "speech.mp4"}],
             "audio": {"music": {"file": "music.m4a", "duck": {"amount": \#(amount), "attack": 0.1, "release": 0.3}}}}
            """#.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("ducked.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("in 3 stretches"), "\(result.standardOutput)")
        var drops: [Double] = []
        for burst in [0.0, 2.0, 4.0] {
            let during = try musicLevel(out, from: burst + 0.4), after = try musicLevel(out, from: burst + 1.4)
            drops.append(after - during)
        }
        print("ducking \(amount) dB: measured drops \(drops.map { String(format: "%.2f", $0) }.joined(separator: ", ")) dB")
        for drop in drops { #expect(abs(drop - amount) <= 1, "the music went down \(drop) dB, not \(amount)") }
        #expect(abs((try FFprobe.probe(out).streams(ofType: "video").first?.duration ?? 0) - 6) <= 0.001)
    }

    @Test(arguments: [
        (#"{"amount": 0}"#, "audio.music.duck.amount: wants a number above 0 and at most 60 dB, not 0"),
        (#"{"threshold": 5}"#, "audio.music.duck.threshold: wants a number from -80 to 0 dBFS, not 5"),
        (#"{"attack": -1}"#, "audio.music.duck.attack: wants a number from 0 to 5 seconds, not -1"),
        (#"{"hold": 1}"#, "unknown key 'hold' in audio.music.duck"),
    ])
    func badDuckingIsRefusedByItsPath(duck: String, expected: String) {
        do {
            _ = try CompositionSpec(data: Data(#"{"clips": [{"file": "x.mp4"}], "audio": {"music": {"file": "m.m4a", "duck": \#(duck)}}}"#.utf8),
                                    name: "t.json")
            Issue.record("accepted \(duck)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }
}

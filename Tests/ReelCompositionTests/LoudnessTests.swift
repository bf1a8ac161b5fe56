import Foundation
import ReelComposition
import ReelTestSupport
import Testing

/// `audio.loudness` (issue 22): the output measured by FFmpeg's `ebur128`, the outside judge.
@Suite struct LoudnessTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-loudness")
    }

    /// Integrated loudness and true peak of `url` by the ffmpeg CLI's `ebur128`.
    private func measure(_ url: URL) throws -> (integrated: Double, peak: Double) {
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-hide_banner", "-i", url.path, "-af", "ebur128=peak=true",
                                                      "-f", "null", "-"])
        let lines = result.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func value(_ prefix: String) -> Double? {
            lines.last { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count).split(separator: " ").first ?? "") }
        }
        guard let integrated = value("I:"), let peak = value("Peak:") else { throw TestFailure("no ebur128 summary: \(result.standardError.suffix(400))") }
        return (integrated, peak)
    }

    private func clip(_ name: String, audio: String) throws {
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=6", "-f", "lavfi", "-i", audio,
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                                  directory.appendingPathComponent(name).path])
    }

    private func compose(_ json: String, _ name: String) throws -> (URL, String) {
        let spec = directory.appendingPathComponent("\(name).json")
        try json.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("\(name).mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        return (out, result.standardOutput)
    }

    /// Quiet pink noise, then a tone clip louder than the target: the whole mix normalised
    /// to -16 LUFS and to -23, each measured at the target ± 0.5 LU.
    @Test(arguments: [-16.0, -23.0])
    func normalisedOutputMeasuresTheTarget(target: Double) throws {
        try clip("noise.mp4", audio: "anoisesrc=color=pink:amplitude=0.05:duration=6:sample_rate=48000")
        try clip("tone.mp4", audio: "sine=frequency=440:sample_rate=48000:duration=6,volume=0.3")
        let (out, said) = try compose(#"""
            {"clips": [{"file": "noise.mp4"}, {"file": "tone.mp4"}], "audio": {"loudness": \#(target)}}
            """#, "normalised\(Int(-target))")
        let measured = try measure(out)
        print("loudness \(target): \(said.trimmingCharacters(in: .newlines)); ebur128 \(measured.integrated) LUFS, peak \(measured.peak) dBFS")
        #expect(abs(measured.integrated - target) <= 0.5, "\(measured.integrated) LUFS for a target of \(target)")
        #expect(said.contains("loudness: measured"))
    }

    /// Sparse loud clicks: the gain that reaches -16 LUFS would push the peaks past full
    /// scale, so it is held to keep them at -1 dBFS, and the command says so.
    @Test func peakHoldsTheGainBack() throws {
        try clip("clicks.mp4", audio: "aevalsrc='if(lt(mod(t\\,1)\\,0.002)\\,0.9*sin(2*PI*1000*t)\\,0)':s=48000:d=6")
        let (out, said) = try compose(#"{"clips": [{"file": "clicks.mp4"}], "audio": {"loudness": -16}}"#, "clicks-out")
        let measured = try measure(out)
        print("loudness peak-held: \(said.trimmingCharacters(in: .newlines)); ebur128 \(measured.integrated) LUFS, peak \(measured.peak) dBFS")
        #expect(said.contains("held back by the peak"))
        #expect(measured.integrated < -16.5)
        #expect(measured.peak <= 0, "true peak \(measured.peak) dBFS")
    }

    @Test func badLoudnessIsRefusedByItsPath() {
        do {
            _ = try CompositionSpec(data: Data(#"{"clips": [{"file": "x.mp4"}], "audio": {"loudness": 3}}"#.utf8), name: "t.json")
            Issue.record("accepted a loudness of 3")
        } catch {
            #expect(error.description.contains("audio.loudness: wants a number from -70 to -5 LUFS, not 3"), "\(error.description)")
        }
    }
}

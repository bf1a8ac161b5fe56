import Foundation
import ReelTestSupport
import Testing

/// Live stabilization at 1080p30 with a filter, with the optimised binary: every frame kept,
/// and the shake (shift and turn) measured by vidstab against the same camera unsteadied and against
/// `reel stabilize` after the fact. `make test` runs this suite on its own after the others,
/// so that they do not take its CPU.
@Suite(.serialized, .enabled(if: Paths.releaseReelBinary != nil, Comment(rawValue: Paths.releaseBinaryMissing)),
       .disabled(if: Sanitizer.slowsRealTime, "it runs the optimised binary, which no sanitizer instruments"))
struct RealTimeStabilizationTests {
    @Test func cinematicAt1080pKeepsEveryFrameAndTakesOutTheShake() throws {
        let directory = try Paths.temporaryDirectory("reel-realtime-stabilization")
        let binary = try #require(Paths.releaseReelBinary)
        func record(_ mode: String) throws -> (URL, String) {
            let out = directory.appendingPathComponent("handheld-\(mode).mp4")
            let result = try ProcessRunner.run(binary.path, [
                "record", "-o", out.path, "--device", "virtual:handheld-camera", "--mic", "none", "--preset", "1920x1080",
                "--fps", "30", "--filter", "PhotoEffectTonal", "--stabilization", mode, "--max-duration", "6", "--stats",
            ], timeout: 90)
            #expect(result.status == 0, "\(result.standardError)")
            return (out, result.standardError + result.standardOutput)
        }
        // The unsteadied reference is the same frames (the shake is a function of the frame
        // number): one dropped on a busy machine would be a jump no stabilizer should smooth,
        // so it is taken again, up to three times.
        var (shaky, shakyReport) = try record("off")
        for _ in 0..<2 where !shakyReport.contains("180 frames, 0 dropped") { (shaky, shakyReport) = try record("off") }
        let (steady, report) = try record("cinematic")
        #expect(report.contains("180 frames, 0 dropped"), "\(report)")
        let after = directory.appendingPathComponent("after.mp4")
        let offline = try ProcessRunner.run(binary.path, ["stabilize", shaky.path, "-o", after.path,
                                                          "--preset", "veryfast"], timeout: 180)
        #expect(offline.status == 0, "\(offline.standardError)")
        let before = try ShakeMeter.meanMotion(shaky).pixels
        let live = 1 - (try ShakeMeter.meanMotion(steady).pixels) / before
        let afterwards = 1 - (try ShakeMeter.meanMotion(after).pixels) / before
        // The hand's roll, as libvidstab finds it: translation-only steadying leaves all of it.
        let rolled = try ShakeMeter.meanRotation(shaky).degrees
        let liveTurn = 1 - (try ShakeMeter.meanRotation(steady).degrees) / rolled
        let afterwardsTurn = 1 - (try ShakeMeter.meanRotation(after).degrees) / rolled
        print("1080p30 handheld: \(before) px/frame and \(rolled)°/frame unsteadied; live cinematic −\(Int(live * 100)) % "
              + "(turn −\(Int(liveTurn * 100)) %), reel stabilize −\(Int(afterwards * 100)) % (turn −\(Int(afterwardsTurn * 100)) %); "
              + "\(report.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(live >= 0.8, "live cinematic took out \(live)")
        #expect(afterwards >= live - 0.02, "reel stabilize \(afterwards) against live \(live)")
        #expect(rolled > 0.08, "the camera rolls: \(rolled)° a frame")
        #expect(liveTurn >= 0.7, "live cinematic took out \(liveTurn) of the turn")
        #expect(afterwardsTurn >= liveTurn - 0.05, "reel stabilize's turn \(afterwardsTurn) against live \(liveTurn)")
    }
}

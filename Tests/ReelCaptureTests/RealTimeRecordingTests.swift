import Foundation
import ReelTestSupport
import Testing

/// Recording at a camera's pace, with the optimised binary. `make test` runs this suite on
/// its own after the others, so that they do not take its CPU.
@Suite(.enabled(if: Paths.releaseReelBinary != nil, Comment(rawValue: Paths.releaseBinaryMissing)),
       .disabled(if: Sanitizer.slowsRealTime, "it runs the optimised binary, which no sanitizer instruments"))
struct RealTimeRecordingTests {
    @Test func twentySecondsAt720pWithAFilterHoldEveryFrameOnceAndInSync() throws {
        let directory = try Paths.temporaryDirectory("reel-realtime")
        let out = directory.appendingPathComponent("twenty.mp4")
        let binary = try #require(Paths.releaseReelBinary)
        let result = try ProcessRunner.run(binary.path, ["record", "-o", out.path, "--preset", "1280x720", "--fps", "30",
                                                         "--filter", "PhotoEffectChrome", "--max-duration", "20", "--stats"],
                                           timeout: 60)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("600 frames, 0 dropped"), "\(result.standardError)")
        let checks = try CaptureChecks(out)
        #expect(checks.counters.count == 600)
        let consecutive = checks.countersAreConsecutive
        #expect(consecutive, "\(checks.counterBreaks.prefix(10))")
        #expect(checks.flashes.count >= 19)
        let worst = checks.expectSync(frameDuration: 1.0 / 30)
        print("20 s at 1280x720@30: \(checks.counters.count) frames, counters \(checks.counters.first ?? -1)...\(checks.counters.last ?? -1), "
              + "worst flash-to-click \(Int(worst * 1000)) ms; \(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 20) < 0.001)
    }
}

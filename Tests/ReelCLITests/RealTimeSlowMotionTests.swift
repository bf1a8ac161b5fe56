import Foundation
import ReelTestSupport
import Testing

/// `reel record --fps 120 --playback-fps 30`: a camera at 120 frames a second is real time
/// that needs the CPU to itself (under the parallel phase's load the virtual camera drops
/// half its frames and the last ones before the limit), so it runs with the other real-time
/// suites, one at a time after the rest (the Makefile's REAL_TIME_SUITES).
@Suite struct RealTimeSlowMotionTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-slow-motion")
    }

    /// Slow motion as an iPhone's plays: 120 fps recorded for a second, written to play at 30
    /// (four times as long), the sound stretched with it.
    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func slowMotionPlaysSlowed() throws {
        let out = directory.appendingPathComponent("slow.mp4")
        let result = try ProcessRunner.reel(["record", "-o", out.path, "--preset", "640x480", "--fps", "120",
                                             "--playback-fps", "30", "--max-duration", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("4x slower"), "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        let video = try #require(probe.streams(ofType: "video").first), audio = try #require(probe.streams(ofType: "audio").first)
        #expect(abs((video.duration ?? 0) - 4) <= 0.034, "video \(video.duration ?? 0) s for 1 s at 120 fps played at 30")
        #expect(abs((audio.duration ?? 0) - (video.duration ?? 0)) <= 0.05, "sound \(audio.duration ?? 0) s")
        let frames = try FFprobe.countFrames(out)
        #expect(frames > 60 && frames <= 120, "\(frames) frames")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("hfr") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

import Foundation
import ReelTestSupport
import Testing

/// A recording interrupted by SIGKILL and made whole by `reel recover` starts its sound
/// with its picture (issue 14): the `.partial` file holds the sound one AAC frame late (its
/// priming cannot be hidden by a fragmented file's index), and the recovered file hid
/// nothing, so every click came 21.3 ms after its flash.
@Suite(.disabled(if: Sanitizer.slowsRealTime, "a sanitizer build is too slow for real-time capture"))
struct RecoveredRecordingSyncTests {
    @Test func aRecoveredRecordingHasItsFlashesAndClicksTogether() throws {
        let directory = try Paths.temporaryDirectory("reel-recover-sync")
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("take.mp4")
        let partial = directory.appendingPathComponent("take.partial.mp4")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["record", "--device", "virtual:camera", "--preset", "low", "--fps", "30",
                             "--max-duration", "20", "-o", out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: partial.path), Date() < deadline, process.isRunning { usleep(2000) }
        // Four seconds: three whole fragments (1 s each) with a flash and a click in each.
        usleep(4_300_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: out.path), "the recording finished before the kill")

        let recovered = directory.appendingPathComponent("recovered.mp4")
        let result = try ProcessRunner.reel(["recover", partial.path, "-o", recovered.path], timeout: 30)
        try #require(result.status == 0, "\(result.standardError)")
        let checks = try CaptureChecks(recovered)
        #expect(checks.flashes.count >= 2, "\(checks.flashes) flashes in the recovered file")
        var offsets: [Double] = []
        for flash in checks.flashes where flash < checks.audioEnd - 0.05 {
            let nearest = checks.clicks.min { abs($0 - flash) < abs($1 - flash) } ?? 99
            offsets.append(nearest - flash)
        }
        let worst = offsets.map(abs).max() ?? 99
        let (video, audio) = try RecordingSyncTests.spans(recovered)
        print("recovered recording: flash-to-click \(offsets.map { String(format: "%+.1f", $0 * 1000) }) ms; "
              + "video \(video.start)...\(video.end) s, audio \(audio.start)...\(audio.end) s (ffprobe)")
        #expect(!offsets.isEmpty && worst <= 0.005, "flash-to-click offsets: \(offsets.map { Int(($0 * 1000).rounded()) }) ms")
        #expect(abs(audio.start - video.start) < 0.001, "audio starts at \(audio.start) s, video at \(video.start) s")
    }
}

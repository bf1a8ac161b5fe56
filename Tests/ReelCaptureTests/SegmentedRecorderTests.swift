import Foundation
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

@Suite struct SegmentedRecorderTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-segments")
    }

    func recorder(limit: MediaTime = MediaTime(value: 15, timescale: 1)) throws -> (CaptureSession, SegmentedRecorder) {
        let session = CaptureSession()
        session.sessionPreset = .low
        let camera = CaptureDevice.testCamera(width: 320)
        try session.add(try CaptureDeviceInput(device: camera))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        let recorder = try SegmentedRecorder(session: session, directory: directory.appendingPathComponent("segments"),
                                             outputURL: directory.appendingPathComponent("short.mp4"), maximumDuration: limit)
        return (session, recorder)
    }

    /// Holds the button for `seconds` and returns how long it really was held. It blocks
    /// rather than awaits: on a busy machine other suites can hold up the shared pool that
    /// would wake an awaiting sleep, and a hold must be as long as asked.
    @discardableResult
    func hold(_ recorder: SegmentedRecorder, seconds: Double) throws -> Double {
        // From the press: a segment holds the pictures from then, even while its encoder opens.
        let start = Date()
        try recorder.startSegment()
        usleep(UInt32(max(0, seconds - Date().timeIntervalSince(start)) * 1e6))
        let held = Date().timeIntervalSince(start)
        recorder.pauseSegment()
        return held
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func threeHoldsStopAtTheLimitAndMergeWithoutGapsOrDrift() async throws {
        let (session, recorder) = try recorder()
        let (events, continuation) = AsyncStream<String>.makeStream()
        recorder.setEventHandler { event in
            switch event {
            case .saved(_, let duration): continuation.yield("saved \(duration.seconds)")
            case .limitReached: continuation.yield("limit")
            case .failed(let error): continuation.yield("failed \(error)")
            default: break
            }
        }
        session.startRunning()
        defer { session.stopRunning() }
        usleep(500_000) // the camera warms up, as a preview would
        let first = try hold(recorder, seconds: 4)
        usleep(300_000)
        let second = try hold(recorder, seconds: 6)
        usleep(300_000)
        // The third hold of 7 s stops by itself at 15 s in all, and the merge follows.
        try recorder.startSegment()
        var seen: [String] = []
        for await event in events {
            seen.append(event)
            if event.hasPrefix("saved") || event.hasPrefix("failed") { break }
        }
        recorder.waitUntilIdle()
        #expect(seen.first == "limit", "\(seen)")
        let durations = recorder.segments.map(\.duration.seconds)
        #expect(durations.count == 3 && abs(durations.reduce(0, +) - 15) < 1e-9, "\(durations)")
        #expect(abs(durations[2] - (15 - durations[0] - durations[1])) < 1e-9)
        #expect(abs(durations[0] - first) < 0.3 && abs(durations[1] - second) < 0.3, "held \(first) s and \(second) s")
        #expect(throws: ReelError.self) { try recorder.startSegment() }

        let merged = recorder.outputURL
        let probe = try FFprobe.probe(merged)
        let video = try #require(probe.streams(ofType: "video").first), audio = try #require(probe.streams(ofType: "audio").first)
        #expect(abs((video.duration ?? 0) - 15) <= 1.0 / 30 + 1e-3, "video \(video.duration ?? 0) s")
        #expect(abs((audio.duration ?? 0) - 15) < 0.05, "audio \(audio.duration ?? 0) s")
        let frames = try FFprobe.countFrames(merged)
        expectInRealTime { #expect(frames == 450) }
        // No drift across the joins: every flash still has its click within a frame.
        let checks = try CaptureChecks(merged)
        #expect(checks.flashes.count >= 12)
        let worst = checks.expectSync(frameDuration: 1.0 / 30)
        #expect(worst <= 1.0 / 30)
        if BrowserPlayer.available {
            let report = try BrowserPlayer.play(merged)
            #expect(report.error == nil && report.currentTimeAfter > report.currentTimeBefore, "\(report)")
        }
        recorder.reset()
        #expect(recorder.segments.isEmpty && recorder.recordedDuration == .zero)
        #expect(try FileManager.default.contentsOfDirectory(atPath: recorder.directory.path).isEmpty)
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func undoRemovesTheLastSegmentsTime() async throws {
        let (session, recorder) = try recorder(limit: MediaTime(value: 5, timescale: 1))
        session.startRunning()
        defer { session.stopRunning() }
        usleep(500_000)
        let first = try hold(recorder, seconds: 1)
        try hold(recorder, seconds: 1.5)
        let before = recorder.recordedDuration
        let removed = try #require(recorder.removeLastSegment())
        #expect(!FileManager.default.fileExists(atPath: removed.url.path))
        #expect(recorder.recordedDuration == before - removed.duration)
        #expect(abs(recorder.recordedDuration.seconds - first) < 0.2, "held \(first) s")
        #expect(recorder.segments.count == 1)
        try hold(recorder, seconds: 0.5)
        #expect(try recorder.save() == recorder.outputURL)
        #expect(abs((try FFprobe.probe(recorder.outputURL).duration ?? 0) - recorder.recordedDuration.seconds) < 0.05)
        recorder.reset()
        #expect(recorder.segments.isEmpty)
        #expect(throws: ReelError.self) { try recorder.save() }
    }
}

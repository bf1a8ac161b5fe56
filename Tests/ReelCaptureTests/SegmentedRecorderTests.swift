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

    /// A recorder on the harness's clock: holds are exactly as long as the clock moves.
    func recorder(limit: MediaTime = MediaTime(value: 15, timescale: 1)) throws -> (SteppedCapture, SegmentedRecorder) {
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = .low
        let camera = CaptureDevice.testCamera(width: 320)
        try session.add(try CaptureDeviceInput(device: camera))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        let recorder = try SegmentedRecorder(session: session, directory: directory.appendingPathComponent("segments"),
                                             outputURL: directory.appendingPathComponent("short.mp4"), maximumDuration: limit)
        return (capture, recorder)
    }

    /// Holds the button for `seconds` of the clock and returns how long it was held. The
    /// release waits for the segment's file, whose sound comes as the clock moves on.
    @discardableResult
    func hold(_ recorder: SegmentedRecorder, on capture: SteppedCapture, seconds: Double) throws -> Double {
        try recorder.startSegment()
        capture.advance(seconds)
        try capture.whileAdvancing(until: { !recorder.isTakingPictures }, { recorder.pauseSegment() })
        return seconds
    }

    @Test func threeHoldsStopAtTheLimitAndMergeWithoutGapsOrDrift() async throws {
        let (capture, recorder) = try recorder()
        let session = capture.session
        let events = PosixMutex<[String]>([])
        recorder.setEventHandler { event in
            switch event {
            case .saved(_, let duration): events.withLock { $0.append("saved \(duration.seconds)") }
            case .limitReached: events.withLock { $0.append("limit") }
            case .failed(let error): events.withLock { $0.append("failed \(error)") }
            default: break
            }
        }
        session.startRunning()
        defer { session.stopRunning() }
        capture.advance(0.51) // the camera warms up, as a preview would
        let first = try hold(recorder, on: capture, seconds: 4)
        capture.advance(0.3)
        let second = try hold(recorder, on: capture, seconds: 6)
        capture.advance(0.3)
        // The third hold of 7 s stops by itself at 15 s in all, and the merge follows.
        try recorder.startSegment()
        let ended = capture.advance(until: {
            events.withLock { $0.contains { $0.hasPrefix("saved") || $0.hasPrefix("failed") } }
        }, limit: 30)
        #expect(ended, "no saved event")
        recorder.waitUntilIdle()
        let seen = events.withLock { $0 }
        #expect(seen.first == "limit", "\(seen)")
        let durations = recorder.segments.map(\.duration.seconds)
        #expect(durations.count == 3 && abs(durations.reduce(0, +) - 15) < 1e-9, "\(durations)")
        #expect(abs(durations[2] - (15 - durations[0] - durations[1])) < 1e-9)
        #expect(abs(durations[0] - first) < 1e-9 && abs(durations[1] - second) < 1e-9, "held \(first) s and \(second) s: \(durations)")
        #expect(throws: ReelError.self) { try recorder.startSegment() }

        let merged = recorder.outputURL
        let probe = try FFprobe.probe(merged)
        let video = try #require(probe.streams(ofType: "video").first), audio = try #require(probe.streams(ofType: "audio").first)
        #expect(abs((video.duration ?? 0) - 15) <= 1.0 / 30 + 1e-3, "video \(video.duration ?? 0) s")
        #expect(abs((audio.duration ?? 0) - 15) < 0.05, "audio \(audio.duration ?? 0) s")
        let frames = try FFprobe.countFrames(merged)
        #expect(frames == 450)
        // No drift across the joins: every flash still has its click within a frame. (A
        // click on a segment's very first sample is faded by the join's 2.5 ms de-click
        // ramp; such a flash, on a join, is left out.)
        var checks = try CaptureChecks(merged)
        let joins = [durations[0], durations[0] + durations[1]]
        checks.flashes.removeAll { flash in joins.contains { abs($0 - flash) < 0.005 } }
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

    @Test func undoRemovesTheLastSegmentsTime() async throws {
        let (capture, recorder) = try recorder(limit: MediaTime(value: 5, timescale: 1))
        let session = capture.session
        session.startRunning()
        defer { session.stopRunning() }
        capture.advance(0.51)
        let first = try hold(recorder, on: capture, seconds: 1)
        try hold(recorder, on: capture, seconds: 1.5)
        let before = recorder.recordedDuration
        let removed = try #require(recorder.removeLastSegment())
        #expect(!FileManager.default.fileExists(atPath: removed.url.path))
        #expect(recorder.recordedDuration == before - removed.duration)
        #expect(abs(recorder.recordedDuration.seconds - first) < 1e-9, "held \(first) s")
        #expect(recorder.segments.count == 1)
        try hold(recorder, on: capture, seconds: 0.5)
        #expect(try recorder.save() == recorder.outputURL)
        #expect(abs((try FFprobe.probe(recorder.outputURL).duration ?? 0) - recorder.recordedDuration.seconds) < 0.05)
        recorder.reset()
        #expect(recorder.segments.isEmpty)
        #expect(throws: ReelError.self) { try recorder.save() }
    }
}

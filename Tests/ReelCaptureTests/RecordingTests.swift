import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelFilters
import ReelTestSupport
import Testing

@Suite struct RecordingTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-capture")
    }

    @Test func devicesAreFoundByID() throws {
        #expect(CaptureDevice.default(for: .video)?.uniqueID == "virtual:camera")
        #expect(CaptureDevice.default(for: .audio)?.uniqueID == "virtual:microphone")
        #expect {
            try CaptureDevice.device(withUniqueID: "v4l2:/dev/video9")
        } throws: { ($0 as? ReelError)?.description.contains("no such device") == true }
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        #expect(throws: ReelError.self) { try camera.setFrameRate(1000) }
    }

    @Test func virtualCameraCounterReadsBack() throws {
        let picture = try PixelBuffer(width: 320, height: 240, pixelFormat: .yuv420p)
        for index in [0, 1, 29, 30, 1234] {
            VirtualCamera(frame: Int64(index), rate: 30, width: 320, height: 240, zoom: 1).render(into: picture, controls: DeviceControls())
            #expect(VirtualCamera.readCounter(picture) == index)
        }
    }

    /// On the harness's clock (RealTimeRecordingTests proves every frame in real time, with
    /// the optimised binary, alone): every frame of 3.5 s, once, in order, in sync.
    @Test func recordingHoldsEveryFrameOnceAndKeepsSync() async throws {
        let capture = SteppedCapture()
        let session = capture.session
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        camera.activeFormat = camera.formats.first { $0.width == 320 }
        try camera.setFrameRate(30)
        try session.add(try CaptureDeviceInput(device: camera))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        session.videoFilter = try FilterChain(spec: "PhotoEffectTonal")
        let movie = MovieFileOutput()
        try session.add(movie)
        let url = directory.appendingPathComponent("recording.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        capture.advance(0.31) // the camera warms up, as a preview would (between frames 9 and 10)
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        // Stop between flashes (at 3.5 s), so the last flash's click is in too.
        capture.advance(3.5)
        try capture.stopRecording(movie)
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }

        let checks = try CaptureChecks(url)
        // Frames 10 (the first after the call at 0.31 s) to 114 (the last due by 3.81 s):
        // each once, in order, none dropped.
        #expect(checks.counters.first == 10 && checks.counters.count == 105, "\(checks.counters.count) frames from \(checks.counters.first ?? -1)")
        #expect(checks.countersAreConsecutive, "\(checks.counterBreaks)")
        #expect(session.droppedFrames == 0)
        _ = checks.expectSync(frameDuration: 1.0 / 30)
        // The sound ends with the last picture.
        #expect(abs(checks.audioEnd - ((checks.frameTimes.last ?? 0) + 1.0 / 30)) < 0.03, "audio to \(checks.audioEnd) s")
    }

    /// Opening an encoder takes tens of milliseconds, many frames at 240 fps; the pictures
    /// of that moment wait for it, so the file starts with the first frame after the call.
    @Test func aRecordingStartsWhenAskedNotWhenTheEncoderIsOpen() async throws {
        let session = CaptureSession()
        let camera = CaptureDevice.testCamera(width: 640)
        try camera.setFrameRate(240)
        try session.add(try CaptureDeviceInput(device: camera))
        session.sessionPreset = .vga640x480
        let movie = MovieFileOutput()
        try session.add(movie)
        let url = directory.appendingPathComponent("prompt.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        usleep(500_000)
        let next = session.deliveredFrames + session.droppedFrames, droppedBefore = session.droppedFrames
        let began = DispatchTime.now().uptimeNanoseconds
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        let opening = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6
        usleep(1_000_000)
        movie.stopRecording()
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }
        let checks = try CaptureChecks(url)
        let first = try #require(checks.counters.first)
        print("recording start: the encoder took \(Int(opening)) ms to open; the file starts at frame \(first), asked at \(next)")
        // The frame being made as the call came may be the first, or the one after; frames a
        // camera behind its clock skipped (counted as dropped) were never made.
        let skipped = session.droppedFrames - droppedBefore
        #expect(first >= next - 1 && first <= next + 1 + skipped,
                "asked at frame \(next), the file starts at \(first) (opening took \(opening) ms, \(skipped) dropped)")
        let increasing = zip(checks.counters, checks.counters.dropFirst()).allSatisfy { $1 > $0 }
        #expect(increasing, "\(checks.counterBreaks)")
    }

    /// The session's clock starts again at zero each run: a recording in the second run
    /// holds that run's sound only.
    @Test func aSecondRunRecordsItsOwnSound() async throws {
        let capture = SteppedCapture()
        let session = capture.session
        try session.add(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        let movie = MovieFileOutput()
        try session.add(movie)
        session.startRunning()
        capture.advance(1.2)
        session.stopRunning()
        session.startRunning()
        capture.advance(0.31)
        let url = directory.appendingPathComponent("second-run.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        capture.advance(1.5)
        try capture.stopRecording(movie)
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }
        let checks = try CaptureChecks(url)
        let audioStart = try #require(checks.audioStart), videoStart = try #require(checks.frameTimes.first)
        let videoEnd = try #require(checks.frameTimes.last) + 1.0 / 30
        // The sound starts and ends with the picture, not a second away from it.
        #expect(abs(audioStart - videoStart) < 0.05, "audio from \(audioStart) s, video from \(videoStart) s")
        #expect(abs(checks.audioEnd - videoEnd) < 0.03, "audio to \(checks.audioEnd) s, video to \(videoEnd) s")
        #expect(checks.counters.count == 45 && checks.countersAreConsecutive, "\(checks.counterBreaks)")
        _ = checks.expectSync(frameDuration: 1.0 / 30)
    }

    @Test(.enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
    func aFullDiskStopsTheRecordingAndKeepsWhatWasWritten() async throws {
        let disk = try SmallDisk(kilobytes: 600)
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        try session.add(try CaptureDeviceInput(device: camera))
        session.sessionPreset = .vga640x480
        let movie = MovieFileOutput()
        try session.add(movie)
        let url = disk.url.appendingPathComponent("full.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        let timeout = Task {
            try await Task.sleep(nanoseconds: 30_000_000_000)
            movie.stopRecording()
        }
        var outcome: ReelError?
        for await error in finished.stream { outcome = error }
        timeout.cancel()
        session.stopRunning()
        let error = try #require(outcome, "a 600 kB disk should fill up")
        #expect(error.code == .diskFull, "\(error)")
        #expect(movie.stopReason == .failed)
        // What was written stays, playable up to its last whole fragment.
        let partial = disk.url.appendingPathComponent("full.partial.mp4")
        #expect(error.description.contains(partial.path), "\(error)")
        let frames = try FFprobe.countFrames(partial)
        #expect(frames >= 30, "\(frames) frames kept")
    }
}

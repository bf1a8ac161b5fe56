import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// Sessions reconfigured while running: a camera switch mid-recording, and a device that goes away.
@Suite struct SessionTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-session")
    }

    /// A 320x240 red clip with a tone, for a file camera.
    func redClip(audioOnly: Bool = false) throws -> URL {
        let url = directory.appendingPathComponent(audioOnly ? "tone.m4a" : "red.mp4")
        var arguments = ["-y", "-v", "error"]
        if !audioOnly { arguments += ["-f", "lavfi", "-i", "color=c=red:s=320x240:r=30:d=3"] }
        arguments += ["-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
        if !audioOnly { arguments += ["-c:v", "libx264", "-pix_fmt", "yuv420p"] }
        try ProcessRunner.ffmpeg(arguments + ["-c:a", "aac", url.path])
        return url
    }

    /// A virtual camera and microphone on the harness's clock.
    func virtualSession() throws -> (SteppedCapture, CaptureDeviceInput) {
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = .low
        let camera = CaptureDevice.testCamera(width: 320)
        let input = try CaptureDeviceInput(device: camera)
        try session.add(input)
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        return (capture, input)
    }

    func record(_ capture: SteppedCapture, to url: URL, during body: (MovieFileOutput) async throws -> Void) async throws -> ReelError? {
        let session = capture.session
        let movie = MovieFileOutput()
        try session.add(movie)
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        capture.advance(0.31) // the camera warms up, as a preview would
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        try await body(movie)
        var outcome: ReelError?
        for await error in finished.stream { outcome = error }
        session.stopRunning()
        return outcome
    }

    @Test func switchingCamerasMidRecordingKeepsOneFileWithoutAGap() async throws {
        let (capture, virtual) = try virtualSession()
        let session = capture.session
        let file = try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(try redClip().path)"))
        let url = directory.appendingPathComponent("switch.mp4")
        // On the harness's clock: 1.5 s of the virtual camera, then 1.5 s of the file.
        let recorded = 3.0, before = 1.5
        let error = try await record(capture, to: url) { movie in
            capture.advance(before)
            session.beginConfiguration()
            session.removeInput(virtual)
            #expect(session.canAddInput(file))
            try session.add(file)
            session.commitConfiguration()
            capture.advance(recorded - before)
            try capture.stopRecording(movie)
        }
        #expect(error == nil, "\(String(describing: error))")
        let checks = try CaptureChecks(url)
        let steps = zip(checks.frameTimes, checks.frameTimes.dropFirst()).map { $1 - $0 }
        #expect(checks.frameTimes.count == 90, "\(checks.frameTimes.count) frames in \(recorded) s")
        #expect((steps.max() ?? 1) <= 1.0 / 30 + 1e-6, "largest gap \(steps.max() ?? 0) s")
        // The first half is the virtual camera's (counting), the second the red file's.
        let asset = try Asset(url: url)
        let generator = ImageGenerator(asset: asset)
        let early = try generator.image(at: MediaTime(seconds: before / 2)).image
        let late = try generator.image(at: MediaTime(seconds: (checks.frameTimes.last ?? 0) - 0.1)).image
        func isRed(_ picture: PixelBuffer) -> Bool {
            let pixel = picture.element(plane: 0, x: 80, y: 120) ?? [0, 0, 0]
            return picture.pixelFormat == .rgba && pixel[0] > 200 && pixel[1] < 80 && pixel[2] < 80
        }
        #expect(isRed(late) && !isRed(early), "\(late.element(plane: 0, x: 80, y: 120) ?? []) at the end")
        let probe = try FFprobe.probe(url)
        #expect(probe.streams(ofType: "video").count == 1 && probe.streams(ofType: "audio").count == 1)
        #expect(abs((probe.duration ?? 0) - recorded) < 0.3, "\(probe.duration ?? 0) s recorded in \(recorded) s")
    }

    @Test func aCameraThatGoesAwayEndsTheRecordingPlayablyWithANotification() async throws {
        let (capture, virtual) = try virtualSession()
        let session = capture.session
        let broken = try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(try redClip(audioOnly: true).path)"))
        let (interruptions, interrupted) = AsyncStream<String>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.wasInterruptedNotification,
                                                              object: session, queue: nil) {
            interrupted.yield($0.userInfo?[CaptureSession.interruptionReasonKey] as? String ?? "none")
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let url = directory.appendingPathComponent("vanished.mp4")
        let error = try await record(capture, to: url) { movie in
            capture.advance(1.2)
            session.beginConfiguration()
            session.removeInput(virtual)
            try session.add(broken)
            session.commitConfiguration()
            // The next frame finds no picture: the session is interrupted and the recording ends.
            capture.advance(until: { !movie.isRecording }, limit: 1)
        }
        #expect(error?.message.contains("recording stopped") == true, "\(String(describing: error))")
        var iterator = interruptions.makeAsyncIterator()
        #expect(await iterator.next() == "videoDeviceNotAvailable")
        #expect(session.isInterrupted)
        let probe = try FFprobe.probe(url)
        #expect((probe.duration ?? 0) > 1, "the frames before the loss are kept")
        #expect(try FFprobe.countFrames(url) == 36)
    }

    @Test func subjectAreaChangeIsPostedWhenTheViewChanges() async throws {
        let (capture, virtual) = try virtualSession()
        let session = capture.session
        virtual.device.isSubjectAreaChangeMonitoringEnabled = true
        let (changes, changed) = AsyncStream<Bool>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.subjectAreaDidChangeNotification,
                                                              object: virtual.device, queue: nil) { _ in changed.yield(true) }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        capture.advance(0.4)
        virtual.device.videoZoomFactor = 4
        // Three seconds of frames to notice it in; stopping the session delivers what it posted.
        capture.advance(3)
        session.stopRunning()
        changed.finish()
        var iterator = changes.makeAsyncIterator()
        let note = await iterator.next()
        #expect(note != nil, "no subject-area change after zooming to 4x")
    }
}

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

    func virtualSession() throws -> (CaptureSession, CaptureDeviceInput) {
        let session = CaptureSession()
        session.sessionPreset = .low
        let camera = CaptureDevice.testCamera(width: 320)
        let input = try CaptureDeviceInput(device: camera)
        try session.add(input)
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        return (session, input)
    }

    func record(_ session: CaptureSession, to url: URL, during body: (MovieFileOutput) async throws -> Void) async throws -> ReelError? {
        let movie = MovieFileOutput()
        try session.add(movie)
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        usleep(300_000) // the camera warms up, as a preview would
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

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func switchingCamerasMidRecordingKeepsOneFileWithoutAGap() async throws {
        let (session, virtual) = try virtualSession()
        let file = try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(try redClip().path)"))
        let url = directory.appendingPathComponent("switch.mp4")
        var switchedAt = Date(), startedAt = Date(), stoppedAt = Date()
        let error = try await record(session, to: url) { movie in
            startedAt = Date()
            usleep(1_500_000)
            switchedAt = Date()
            session.beginConfiguration()
            session.removeInput(virtual)
            #expect(session.canAddInput(file))
            try session.add(file)
            session.commitConfiguration()
            usleep(1_500_000)
            stoppedAt = Date()
            movie.stopRecording()
        }
        // Sleeps can overrun on a busy machine: the file is checked against the clock.
        let recorded = stoppedAt.timeIntervalSince(startedAt), before = switchedAt.timeIntervalSince(startedAt)
        #expect(error == nil, "\(String(describing: error))")
        let checks = try CaptureChecks(url)
        let steps = zip(checks.frameTimes, checks.frameTimes.dropFirst()).map { $1 - $0 }
        #expect(Double(checks.frameTimes.count) >= (recorded - 0.3) * 30, "\(checks.frameTimes.count) frames in \(recorded) s")
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

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func aCameraThatGoesAwayEndsTheRecordingPlayablyWithANotification() async throws {
        let (session, virtual) = try virtualSession()
        let broken = try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(try redClip(audioOnly: true).path)"))
        let (interruptions, interrupted) = AsyncStream<String>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.wasInterruptedNotification,
                                                              object: session, queue: nil) {
            interrupted.yield($0.userInfo?[CaptureSession.interruptionReasonKey] as? String ?? "none")
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let url = directory.appendingPathComponent("vanished.mp4")
        let error = try await record(session, to: url) { _ in
            usleep(1_200_000)
            session.beginConfiguration()
            session.removeInput(virtual)
            try session.add(broken)
            session.commitConfiguration()
        }
        #expect(error?.message.contains("recording stopped") == true, "\(String(describing: error))")
        var iterator = interruptions.makeAsyncIterator()
        #expect(await iterator.next() == "videoDeviceNotAvailable")
        #expect(session.isInterrupted)
        let probe = try FFprobe.probe(url)
        #expect((probe.duration ?? 0) > 1, "the frames before the loss are kept")
        #expect(try FFprobe.countFrames(url) >= 30)
    }

    @Test func subjectAreaChangeIsPostedWhenTheViewChanges() async throws {
        let (session, virtual) = try virtualSession()
        virtual.device.isSubjectAreaChangeMonitoringEnabled = true
        let (changes, changed) = AsyncStream<Bool>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.subjectAreaDidChangeNotification,
                                                              object: virtual.device, queue: nil) { _ in changed.yield(true) }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        usleep(400_000)
        virtual.device.videoZoomFactor = 4
        let timeout = Task {
            try await Task.sleep(nanoseconds: 3_000_000_000)
            changed.finish()
        }
        var iterator = changes.makeAsyncIterator()
        let note = await iterator.next()
        timeout.cancel()
        session.stopRunning()
        #expect(note != nil, "no subject-area change after zooming to 4x")
    }
}

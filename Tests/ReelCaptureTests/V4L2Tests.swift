import Foundation
import ReelAV
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// The V4L2 layer against ``FakeUVCDriver`` (no camera on these machines): enumeration,
/// control mapping, what the camera lacks, and the errors of a real node.
@Suite(.serialized) struct V4L2Tests {
    /// Runs `body` with the fake as this task's driver (task-local: no other test sees it).
    func withFake<T>(_ fake: FakeUVCDriver = FakeUVCDriver(), _ body: (FakeUVCDriver) throws -> T) rethrows -> T {
        V4L2Camera.forgetAll()
        defer { V4L2Camera.forgetAll() }
        return try V4L2.$driver.withValue(fake) { try body(fake) }
    }

    @Test func enumerationListsTheCaptureNodeWithItsFormats() throws {
        try withFake { _ in
            let cameras = V4L2Camera.discover()
            // /dev/video1 is the metadata node uvcvideo adds: left out.
            #expect(cameras.map(\.uniqueID) == ["v4l2:/dev/video0"])
            let camera = try #require(cameras.first)
            #expect(camera.localizedName == "UVC Camera (046d:0991)")
            #expect(camera.deviceType == .camera)
            #expect(camera.formats.count == 10)
            let mjpeg = try #require(camera.formats.first { $0.pixelFormat == "mjpeg" && $0.width == 1920 })
            #expect(mjpeg.height == 1080 && mjpeg.minFrameRate == 5 && mjpeg.maxFrameRate == 30)
            let yuyv = try #require(camera.formats.first { $0.pixelFormat == "yuyv422" && $0.width == 1920 })
            #expect(yuyv.maxFrameRate == 5)
            #expect(camera.formats.first { $0.pixelFormat == "yuyv422" && $0.width == 640 }?.maxFrameRate == 30)
            // Control ranges reach the formats: exposure 1–2500 ×100 µs, zoom 1–31.
            #expect(abs(mjpeg.minExposureSeconds - 0.0001) < 1e-9 && abs(mjpeg.maxExposureSeconds - 0.25) < 1e-9)
            #expect(mjpeg.videoMaxZoomFactor == 31)
            #expect(CaptureDevice.devices.contains { $0.uniqueID == "v4l2:/dev/video0" })
            #expect(throws: ReelError.self) { try CaptureDevice.device(withUniqueID: "v4l2:/dev/video1") }
        }
    }

    @Test func controlsMapOntoTheDriversControls() throws {
        try withFake { fake in
            let camera = try CaptureDevice.device(withUniqueID: "v4l2:/dev/video0")
            let v4l2 = try #require(V4L2Camera.shared(for: camera))
            camera.activeFormat = camera.formats.first { $0.pixelFormat == "mjpeg" && $0.width == 640 }
            try camera.setFrameRate(15)
            try camera.setExposureModeCustom(duration: MediaTime(value: 1, timescale: 100), iso: CaptureDevice.currentISO)
            try camera.setWhiteBalanceModeLocked(with: .init(temperature: 3210, tint: 0))
            try camera.setVideoZoomFactor(2)
            try v4l2.apply(camera.advanceControls(by: 1 / 15, scene: nil), frameRate: camera.activeFrameRate)
            #expect(fake.values[V4L2Camera.Control.exposureAuto.rawValue] == 1) // V4L2_EXPOSURE_MANUAL
            #expect(fake.values[V4L2Camera.Control.exposureAbsolute.rawValue] == 100) // 1/100 s in 100 µs
            #expect(fake.values[V4L2Camera.Control.autoWhiteBalance.rawValue] == 0)
            #expect(fake.values[V4L2Camera.Control.whiteBalanceTemperature.rawValue] == 3200) // its step is 100 K
            #expect(fake.values[V4L2Camera.Control.zoomAbsolute.rawValue] == 2)
            #expect(fake.timePerFrame?.numerator == 1 && fake.timePerFrame?.denominator == 15)
            // Back to automatic: only what changed is written.
            try camera.setExposureMode(.continuousAutoExposure)
            try camera.setWhiteBalanceMode(.continuousAutoWhiteBalance)
            let before = fake.ioctlCount
            try v4l2.apply(camera.advanceControls(by: 1 / 15, scene: nil), frameRate: camera.activeFrameRate)
            #expect(fake.values[V4L2Camera.Control.exposureAuto.rawValue] == 3) // aperture priority, UVC's auto
            #expect(fake.values[V4L2Camera.Control.autoWhiteBalance.rawValue] == 1)
            #expect(fake.ioctlCount - before == 2)
        }
    }

    @Test func whatTheCameraLacksIsUnsupported() throws {
        try withFake { _ in
            let camera = try CaptureDevice.device(withUniqueID: "v4l2:/dev/video0")
            #expect(!camera.isFocusModeSupported(.autoFocus))
            #expect(!camera.hasTorch && !camera.isTorchModeSupported(.on))
            #expect(camera.activeFormat?.maxISO == 0)
            #expect(camera.isExposureModeSupported(.custom) && camera.isWhiteBalanceModeSupported(.locked))
            #expect { try camera.setFocusMode(.autoFocus) } throws: {
                ($0 as? ReelError)?.description == "v4l2:/dev/video0: the device has no focus control"
            }
            #expect { try camera.setTorchModeOn(level: 1) } throws: { ($0 as? ReelError)?.code == .unsupported }
            #expect { try camera.setExposureModeCustom(duration: .invalid, iso: 400) } throws: {
                ($0 as? ReelError)?.code == .invalidArgument
            }
        }
    }

    @Test func interruptedIoctlsAreRetried() throws {
        let fake = FakeUVCDriver()
        fake.pendingInterruptions = 3
        try withFake(fake) { fake in
            let camera = try CaptureDevice.device(withUniqueID: "v4l2:/dev/video0")
            #expect(camera.formats.count == 10)
            #expect(fake.pendingInterruptions == 0)
        }
    }

    @Test(arguments: [(EBUSY, ReelError.Code.deviceBusy, "in use by another program"),
                      (ENODEV, .deviceNotConnected, "unplugged"),
                      (EACCES, .permissionDenied, "add yourself to the video group")])
    func openErrorsSayWhatHappened(errno: Int32, code: ReelError.Code, words: String) throws {
        let fake = FakeUVCDriver()
        fake.openError = errno
        _ = withFake(fake) { _ in
            #expect { try CaptureDevice.device(withUniqueID: "v4l2:/dev/video0") } throws: { error in
                guard let error = error as? ReelError else { return false }
                print("v4l2 \(code): \(error)")
                return error.code == code && error.description.contains(words) && !error.description.contains("\n")
                    && error.description.hasPrefix("v4l2:/dev/video0: ")
            }
        }
    }

    @Test func anUnpluggedControlWriteIsDeviceNotConnected() throws {
        try withFake { fake in
            let camera = try CaptureDevice.device(withUniqueID: "v4l2:/dev/video0")
            let v4l2 = try #require(V4L2Camera.shared(for: camera))
            fake.unplugged = true
            #expect { try v4l2.checkConnected() } throws: { ($0 as? ReelError)?.code == .deviceNotConnected }
        }
    }

    /// Collects a session's interruption notifications.
    final class Interruptions: @unchecked Sendable {
        let lock = NSLock()
        var reasons: [String] = []
        var errors: [ReelError] = []
    }

    @Test func unpluggingMidRecordingEndsItCleanly() async throws {
        let fake = FakeUVCDriver()
        V4L2Camera.forgetAll()
        defer { V4L2Camera.forgetAll() }
        // Opened with the fake; the session's threads then use the camera's own driver.
        let camera = try V4L2.$driver.withValue(fake) { try CaptureDevice.device(withUniqueID: "v4l2:/dev/video0") }
        camera.activeFormat = camera.formats.first { $0.pixelFormat == "mjpeg" && $0.width == 320 }
        try camera.setFrameRate(15)
        let session = CaptureSession()
        session.sessionPreset = .low
        try session.add(try CaptureDeviceInput(device: camera))
        let movie = MovieFileOutput()
        try session.add(movie)
        let seen = Interruptions()
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.wasInterruptedNotification,
                                                              object: session, queue: nil) { note in
            let reason = note.userInfo?[CaptureSession.interruptionReasonKey] as? String ?? "?"
            let error = note.userInfo?[CaptureSession.errorKey] as? ReelError
            seen.lock.withLock {
                seen.reasons.append(reason)
                if let error { seen.errors.append(error) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let url = try Paths.temporaryDirectory("reel-v4l2").appendingPathComponent("unplugged.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        usleep(500_000)
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        usleep(1_500_000)
        fake.lock.withLock { fake.unplugged = true }
        var outcome: ReelError?
        for await error in finished.stream { outcome = error }
        session.stopRunning()

        let (reasons, errors) = seen.lock.withLock { (seen.reasons, seen.errors) }
        #expect(reasons == ["videoDeviceNotAvailable"], "\(reasons)")
        #expect(errors.first?.code == .deviceNotConnected, "\(errors)")
        print("v4l2 unplug: recording ended with \(String(describing: outcome))")
        #expect(session.isInterrupted)
        // What was recorded before the unplug plays.
        let probe = try FFprobe.probe(url)
        let frames = try FFprobe.countFrames(url)
        print("v4l2 unplug: \(frames) frames, \(probe.duration ?? 0) s kept")
        #expect(frames >= 10, "\(frames) frames")
        #expect((probe.duration ?? 0) > 0.7, "\(String(describing: probe.duration)) s")
    }
}

/// The driver hook is task-local: a fake bound in one task is not seen by another, so
/// suites that list devices in parallel never meet a test's fake camera.
@Suite struct V4L2DriverHookTests {
    @Test func aFakeDriverIsSeenOnlyInsideItsBinding() async {
        let fake = FakeUVCDriver()
        await V4L2.$driver.withValue(fake) {
            #expect(V4L2.driver === fake)
            // A detached task does not inherit task-locals: it keeps the kernel's driver.
            let elsewhere = await Task.detached { V4L2.driver is KernelV4L2 }.value
            #expect(elsewhere)
        }
        #expect(V4L2.driver is KernelV4L2)
    }
}

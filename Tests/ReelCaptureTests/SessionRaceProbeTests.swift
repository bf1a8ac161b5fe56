import Dispatch
import Foundation
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// The session's named deadlocks, each probed where it was: on a session running
/// in real time (frames come from its own timers, as an app's do), so that the same tests
/// ran on the session before its state machine (bab107d), where each failed. The logic
/// tests of the same behaviour on the stepped clock are in `SessionReentrancyTests`.
@Suite struct SessionRaceProbeTests {
    /// An observer of a notification from the frame path that reconfigures the session and
    /// waits for it, by a synchronous hop to a thread of its own (an app's
    /// `sessionQueue.sync`). Before the state machine the notification was posted on the
    /// video queue and `commitConfiguration()` waited on that queue (`videoQueue.sync`):
    /// each waited for the other. The observer's wait has a limit, so that the deadlock fails
    /// the test instead of hanging it.
    @Test func anObserverThatWaitsForAReconfigurationIsNotDeadlocked() throws {
        let directory = try Paths.temporaryDirectory("reel-race-probe")
        let clip = directory.appendingPathComponent("other.mp4")
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-c:v", "libx264",
            "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip.path,
        ])
        let session = CaptureSession()
        let camera = CaptureDevice.testCamera(width: 320)
        camera.isSubjectAreaChangeMonitoringEnabled = true
        let input = try CaptureDeviceInput(device: camera)
        session.addInput(input)
        session.sessionPreset = .low
        let other = try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(clip.path)"))
        // nil until the observer has run; then whether the reconfiguration returned in time.
        let outcome = PosixMutex<Bool?>(nil)
        let observed = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(
            forName: CaptureSession.subjectAreaDidChangeNotification,
            object: camera, queue: nil
        ) { _ in
            guard outcome.withLock({ $0 == nil }) else { return }
            let committed = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                session.beginConfiguration()
                session.removeInput(input)
                session.addInput(other)
                session.commitConfiguration()
                committed.signal()
            }
            // Minutes on a loaded machine would still be a deadlock: the commit takes milliseconds.
            let returned = committed.wait(timeout: .now() + 60) == .success
            outcome.withLock { $0 = returned }
            observed.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        try waitForFrames(session, count: 3)
        camera.videoZoomFactor = 4
        #expect(observed.wait(timeout: .now() + 120) == .success, "no subject-area change after zooming to 4x")
        #expect(outcome.withLock { $0 } == true, "commitConfiguration() never returned while the observer waited for it")
        #expect(session.inputs.map(\.device.uniqueID) == ["file:\(clip.path)"])
        session.stopRunning()
        #expect(!session.isRunning)
    }

    /// An observer of a notification from the frame path that stops the session at once, on
    /// the thread it is called on. Before the state machine the notification came on the
    /// video queue and `stopRunning()` waited on that queue: libdispatch's trap for a sync
    /// onto the current queue, which ended the test process.
    @Test func anObserverMayStopTheSessionFromAFrameNotification() throws {
        let session = CaptureSession()
        let camera = CaptureDevice.testCamera(width: 320)
        camera.isSubjectAreaChangeMonitoringEnabled = true
        session.addInput(try CaptureDeviceInput(device: camera))
        session.sessionPreset = .low
        let stopped = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(
            forName: CaptureSession.subjectAreaDidChangeNotification,
            object: camera, queue: nil
        ) { _ in
            session.stopRunning()
            stopped.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        try waitForFrames(session, count: 3)
        camera.videoZoomFactor = 4
        #expect(stopped.wait(timeout: .now() + 120) == .success, "the observer's stopRunning() never returned")
        #expect(!session.isRunning)
    }

    /// Waits, in real time, for the running session to have delivered `count` frames.
    private func waitForFrames(_ session: CaptureSession, count: Int) throws {
        let deadline = Date().addingTimeInterval(120)
        while session.deliveredFrames < count {
            guard Date() < deadline else {
                throw ReelError(.invalidState, "the session delivered \(session.deliveredFrames) of \(count) frames in 120 s")
            }
            usleep(5_000)
        }
    }
}

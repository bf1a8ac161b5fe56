import Dispatch
import Foundation
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// A session may be reconfigured, started and stopped from any thread, its own
/// notifications' observers included.
@Suite struct SessionReentrancyTests {
    /// An observer that switches cameras when the subject area changes. The notification was
    /// posted from the video queue, on which `commitConfiguration()` then waited: a deadlock
    /// (or libdispatch's crash for a sync onto the current queue).
    @Test func anObserverMayReconfigureTheSession() throws {
        let directory = try Paths.temporaryDirectory("reel-reentrancy")
        let clip = directory.appendingPathComponent("other.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-c:v", "libx264",
                                  "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip.path])
        let capture = SteppedCapture()
        let session = capture.session
        let camera = CaptureDevice.testCamera(width: 320)
        camera.isSubjectAreaChangeMonitoringEnabled = true
        let input = try CaptureDeviceInput(device: camera)
        session.addInput(input)
        session.sessionPreset = .low
        let other = try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(clip.path)"))
        let switched = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.subjectAreaDidChangeNotification,
                                                              object: camera, queue: nil) { _ in
            session.beginConfiguration()
            session.removeInput(input)
            session.addInput(other)
            session.commitConfiguration()
            switched.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        capture.advance(0.4)
        camera.videoZoomFactor = 4
        // Frames come until the observer has switched (the notification is posted from its
        // own queue, so it may run while the clock moves).
        capture.advance(until: { switched.wait(timeout: .now()) == .success }, limit: 10)
        let outcome: DispatchTimeoutResult = session.inputs.first?.device === other.device ? .success : .timedOut
        #expect(outcome == .success, "the observer's commitConfiguration() never returned")
        // A deadlocked session's queue never frees: stopping it would hang the suite.
        guard outcome == .success else { return }
        #expect(session.inputs.map(\.device.uniqueID) == ["file:\(clip.path)"])
        let delivered = session.deliveredFrames
        capture.advance(0.3)
        #expect(abs(session.deliveredFrames - delivered - 9) <= 1, "frames keep coming from the new camera: 9 in 0.3 s")
        session.stopRunning()
        #expect(!session.isRunning)
    }

    /// An observer of `didStartRunningNotification` that stops the session at once: the
    /// stop waits on the frame queues, which must not be where the notification comes from.
    @Test func anObserverMayStopTheSession() throws {
        let session = CaptureSession()
        session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        session.sessionPreset = .low
        let stopped = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.didStartRunningNotification,
                                                              object: session, queue: nil) { _ in
            session.stopRunning()
            stopped.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(!session.isRunning)
    }

    /// An observer that stops the session through a synchronous hop to a thread of its own:
    /// it starts a thread that calls `stopRunning()` and waits for it. `stopRunning()` waited
    /// for the notification queue, which was blocked in that observer: a deadlock (found by
    /// reading the code in session 10). The observer gets 60 s, so a deadlock fails the test
    /// instead of hanging the suite; the stop's own notification is posted on the stopping
    /// thread, while the observer waits for it.
    @Test func anObserverMayStopTheSessionThroughAnotherThread() throws {
        let session = CaptureSession()
        session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        session.sessionPreset = .low
        let stopped = DispatchSemaphore(value: 0)
        let seen = PosixMutex<[Notification.Name]>([])
        let names = [CaptureSession.didStartRunningNotification, CaptureSession.didStopRunningNotification]
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: session, queue: nil) { note in
                seen.withLock { $0.append(note.name) }
                guard note.name == CaptureSession.didStartRunningNotification else { return }
                let hop = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    session.stopRunning()
                    hop.signal()
                }
                hop.wait()
                stopped.signal()
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        session.startRunning()
        let outcome = stopped.wait(timeout: .now() + 60)
        #expect(outcome == .success, "the stop through another thread never returned: deadlocked")
        guard outcome == .success else { return }
        #expect(!session.isRunning)
        let deadline = Date().addingTimeInterval(60)
        while seen.withLock({ $0.count }) < 2, Date() < deadline { usleep(1_000) }
        #expect(seen.withLock { $0 } == names, "didStart, then didStop once")
    }

    /// The same through `DispatchQueue.sync` onto a queue of the app's, which libdispatch runs
    /// on the observer's own thread: the stop must not wait for the notification queue it is
    /// running inside of (libdispatch traps a sync onto a queue its thread holds).
    @Test func anObserverMayStopTheSessionThroughAQueueSync() throws {
        let session = CaptureSession()
        session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        session.sessionPreset = .low
        let stopped = DispatchSemaphore(value: 0)
        let appQueue = DispatchQueue(label: "app.session")
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.didStartRunningNotification,
                                                              object: session, queue: nil) { _ in
            appQueue.sync { session.stopRunning() }
            stopped.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        session.startRunning()
        #expect(stopped.wait(timeout: .now() + 60) == .success, "the stop through a queue never returned")
        #expect(!session.isRunning)
    }

    /// `stopRunning()` is synchronous (Apple: it "blocks until the session stops running
    /// completely"): when it returns its `didStopRunningNotification` has been posted, also
    /// while another thread is posting the session's notifications and sits in a slow observer
    /// (here the notification queue, held in a `didStartRunningNotification` observer until the
    /// stop has returned). It returned with the notification still queued behind that observer.
    @Test func stopRunningPostsItsNotificationWhileAnotherThreadIsPosting() throws {
        let session = CaptureSession()
        session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        session.sessionPreset = .low
        let entered = DispatchSemaphore(value: 0), leave = DispatchSemaphore(value: 0)
        let seen = PosixMutex<[Notification.Name]>([])
        let names = [CaptureSession.didStartRunningNotification, CaptureSession.didStopRunningNotification]
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: session, queue: nil) { note in
                seen.withLock { $0.append(note.name) }
                guard note.name == CaptureSession.didStartRunningNotification else { return }
                entered.signal()
                _ = leave.wait(timeout: .now() + 120)
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        session.startRunning()
        let inObserver = entered.wait(timeout: .now() + 60)
        #expect(inObserver == .success, "the start was never announced")
        guard inObserver == .success else { return }
        session.stopRunning()
        let atReturn = seen.withLock { $0 }
        leave.signal()
        #expect(!session.isRunning)
        #expect(atReturn == names, "when stopRunning() returned the observers had seen \(atReturn)")
    }

    /// Starts, stops, frame-rate changes and reads from many threads at once (the thread
    /// sanitizer's subject: the timers were written on the caller's thread and read on the
    /// video queue, and by another thread's stop, without a lock). On the session before the
    /// state machine (bab107d) two starts' unguarded timer stores met in 2 of 3 runs of these
    /// 1,000 tight rounds: one released the other's suspended timer, and libdispatch trapped
    /// (SIGILL in `_os_object_release` under `startRunning()`).
    @Test func startStopAndRateChangesFromManyThreads() throws {
        let session = CaptureSession()
        let camera = CaptureDevice.testCamera(width: 320)
        session.addInput(try CaptureDeviceInput(device: camera))
        session.addInput(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        SessionRaces.run(session: session, camera: camera, rounds: 1_000)
        session.startRunning()
        usleep(200_000)
        #expect(session.isRunning)
        #expect(session.deliveredFrames > 0, "frames come after the storm")
        session.stopRunning()
        #expect(!session.isRunning)
    }
}

/// The many-thread workout of a session: two threads starting and stopping it without a
/// pause, while one changes the camera's rate and one reads its counters until they finish.
enum SessionRaces {
    static func run(session: CaptureSession, camera: CaptureDevice, rounds: Int) {
        let group = DispatchGroup()
        let starting = PosixMutex(2)
        // Threads of their own, so that a busy pool cannot run every call on one.
        for role in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                switch role {
                case 0, 1:
                    for index in 0..<rounds {
                        if role == 0 {
                            session.startRunning()
                            session.stopRunning()
                        } else {
                            session.stopRunning()
                            session.startRunning()
                            if index % 8 == 0 { usleep(2_000) }
                        }
                    }
                    starting.withLock { $0 -= 1 }
                default:
                    var index = 0
                    while starting.withLock({ $0 }) > 0 {
                        if role == 2 {
                            try? camera.setFrameRate(index % 2 == 0 ? 60 : 30)
                        } else {
                            _ = (session.isRunning, session.deliveredFrames, session.droppedFrames, session.averageFrameTime)
                        }
                        index += 1
                        usleep(300)
                    }
                }
            }
        }
        group.wait()
    }
}

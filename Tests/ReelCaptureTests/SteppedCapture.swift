import Dispatch
import Foundation
@testable import ReelCapture
import ReelCore

/// The in-memory capture harness: a session on a ``ManualCaptureClock`` that delivers
/// frames and sound only as the test moves the clock (swift-nio's `EmbeddedChannel` with
/// `advanceTime(by:)` is the model). A test of the session's logic steps it frame by frame,
/// never sleeps, and sees the same frames however busy the machine; it runs under the
/// sanitizers too. What is about real time stays in RealTimeRecordingTests.
struct SteppedCapture {
    let clock = ManualCaptureClock()
    let session: CaptureSession

    init() {
        session = CaptureSession(clock: clock)
    }

    /// Moves the clock on by `seconds`; the frames and sound due meanwhile have reached the
    /// outputs when it returns.
    func advance(_ seconds: Double) {
        clock.advance(seconds: seconds)
    }

    /// Moves the clock `seconds` on a frame (1/30 s) at a time, waiting a frame's time after
    /// each, as a camera delivers: a writer that encodes in real time keeps up. (Moved on in
    /// bursts of frames, an optimised build's session handed a writer three or nine pictures
    /// within microseconds, and the writer, with no room, took one.) The clock lands on
    /// `seconds` to the nanosecond.
    func advanceInRealTime(seconds: Double) {
        let total = Int64((max(0, seconds) * 1e9).rounded())
        var moved: Int64 = 0
        var frame: Int64 = 1
        while moved < total {
            let target = min(total, frame * 1_000_000_000 / 30)
            clock.advance(by: MediaTime(value: target - moved, timescale: 1_000_000_000), step: MediaTime(value: 1, timescale: 30))
            moved = target
            frame += 1
            Thread.sleep(forTimeInterval: 1.0 / 30)
        }
    }

    /// Moves the clock on, a quarter of a frame's worth at a time, until `done` is true (a
    /// handler on another queue says so), at most `limit` seconds of capture time; with
    /// `realTime`, at the camera's pace (see ``advanceInRealTime(seconds:)``) for the tests
    /// whose writers encode in real time. What the clock set off may still be working in real
    /// time when the limit is reached (a merge, a file being finished, on a busy machine):
    /// then it waits, the clock standing still, for at most `wait` seconds more.
    /// - Returns: Whether `done` came true.
    @discardableResult
    func advance(until done: () -> Bool, limit: Double = 60, wait: TimeInterval = 60, realTime: Bool = false) -> Bool {
        // `done` is asked once a turn and its answer kept: it may consume what it checks
        // (a semaphore's signal).
        var finished = done()
        var moved = 0.0
        while !finished, moved < limit {
            clock.advance(seconds: 1.0 / 120)
            moved += 1.0 / 120
            if realTime { Thread.sleep(forTimeInterval: 1.0 / 120) }
            finished = done()
        }
        let deadline = Date().addingTimeInterval(wait)
        while !finished, Date() < deadline {
            usleep(2_000)
            finished = done()
        }
        return finished
    }

    /// `body` (a call that blocks until the session has delivered something, such as a
    /// stop that waits for the sound of the last picture) on a thread of its own, while the
    /// clock moves on once `ready` is true, until `body` returns.
    /// - Returns: What `body` returned.
    func whileAdvancing<T: Sendable>(until ready: @escaping () -> Bool = { true },
                                     _ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = PosixMutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        // The call takes its lock-step decision before any time passes.
        while !ready() { sched_yield() }
        advance(until: { done.wait(timeout: .now()) == .success })
        guard let outcome = result.withLock({ $0 }) else { throw ReelError(.invalidState, "the call did not finish") }
        return try outcome.get()
    }

    /// Stops `movie`'s recording as an app does (the session keeps running): the stop waits
    /// for the sound of the last picture's moment, which comes as the clock moves on.
    func stopRecording(_ movie: MovieFileOutput) throws {
        _ = try whileAdvancing(until: { !movie.isRecording }, { movie.stopRecording() })
    }
}

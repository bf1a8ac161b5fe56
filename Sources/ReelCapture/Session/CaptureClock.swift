import Dispatch
package import ReelCore

/// Where a ``CaptureSession`` reads the time its frames and sound are due by, and who turns
/// it: the uptime clock with the session's own timers, or a test's ``ManualCaptureClock``
/// that moves only when told and delivers what falls due as it moves (swift-nio's
/// `EmbeddedEventLoop` and `advanceTime(by:)` are the model).
package protocol CaptureClock: Sendable {
    /// Nanoseconds of a monotonic clock.
    var uptimeNanoseconds: UInt64 { get }

    /// Called when `session` starts running.
    /// - Parameter session: The session that started.
    /// - Returns: Whether this clock steps the session itself as it moves; when false the
    ///   session's own timers do.
    func attach(_ session: CaptureSession) -> Bool
}

/// The real clock: the uptime clock, and the session's own timers.
package struct SystemCaptureClock: CaptureClock {
    package init() {}

    package var uptimeNanoseconds: UInt64 { DispatchTime.now().uptimeNanoseconds }

    package func attach(_ session: CaptureSession) -> Bool { false }
}

/// A clock that stands still until ``advance(by:step:)`` moves it. The sessions started on
/// it run no timers: each step of the clock runs their frame and sound deliveries at once,
/// on their own queues, so a test sees exactly the frames and sound of the time it moved
/// through, however busy the machine, and never sleeps.
package final class ManualCaptureClock: CaptureClock {
    private struct Attached {
        weak var session: CaptureSession?
    }

    private struct State {
        var now: UInt64
        var sessions: [Attached] = []
    }

    private let state: PosixMutex<State>

    /// A clock at `start` nanoseconds.
    /// - Parameter start: Its first reading (any value; sessions count from their start).
    package init(start: UInt64 = 1_000_000_000) {
        state = PosixMutex(State(now: start))
    }

    package var uptimeNanoseconds: UInt64 { state.withLock { $0.now } }

    package func attach(_ session: CaptureSession) -> Bool {
        state.withLock { state in
            state.sessions.removeAll { $0.session == nil || $0.session === session }
            state.sessions.append(Attached(session: session))
        }
        return true
    }

    /// Moves the clock on by `duration` in steps of at most `step`, delivering after each
    /// step the frames and sound that fell due (as the session's timers would have, twice
    /// a frame). Returns once every running session has handed them to its outputs.
    /// Never call it from a session's own queue or an output's handler.
    /// - Parameters:
    ///   - duration: How far to move.
    ///   - step: The longest step (5 ms, under half a frame at 60 fps).
    package func advance(by duration: MediaTime, step: MediaTime = MediaTime(value: 5, timescale: 1000)) {
        let total = UInt64(min(1e15, max(0, duration.seconds * 1e9)).rounded())
        let stride = UInt64(min(1e12, max(1e5, step.seconds * 1e9)).rounded())
        var moved: UInt64 = 0
        while moved < total {
            let next = min(stride, total - moved)
            moved += next
            let sessions = state.withLock { state in
                state.now += next
                return state.sessions.compactMap(\.session)
            }
            for session in sessions { session.step() }
        }
    }

    /// ``advance(by:step:)`` by `seconds`.
    /// - Parameter seconds: How far to move.
    package func advance(seconds: Double) {
        advance(by: MediaTime(seconds: seconds))
    }
}

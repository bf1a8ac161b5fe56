public import ReelCore

/// A clock that moves only when ``advance(by:)`` is called, for tests and for rendering a
/// player's output offline: each move runs the players attached to it (their observers,
/// their end of item) on the caller's thread before `advance` returns.
public final class ManualClock: PlaybackClock {
    private struct State {
        var now: MediaTime
        var handlers: [@Sendable () -> Void] = []
    }
    private let state: PosixMutex<State>

    /// - Parameter start: the clock's first reading (zero by default).
    public init(start: MediaTime = .zero) {
        state = PosixMutex(State(now: start))
    }

    public var hostTime: MediaTime { state.withLock { $0.now } }

    public var advancesByItself: Bool { false }

    /// Calls `handler` after each ``advance(by:)``, on the thread that advanced the clock.
    /// - Parameter handler: What a player attached to this clock runs to catch up.
    public func onAdvance(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handlers.append(handler) }
    }

    /// Moves the clock forward by `interval` (a non-numeric or negative interval is ignored),
    /// then lets each attached player catch up.
    /// - Parameter interval: How far to move, in host time.
    public func advance(by interval: MediaTime) {
        guard interval.isNumeric, interval >= .zero else { return }
        let handlers = state.withLock { state in
            state.now = state.now + interval
            return state.handlers
        }
        for handler in handlers { handler() }
    }
}

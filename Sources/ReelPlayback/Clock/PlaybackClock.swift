public import ReelCore

/// The clock a ``Player`` runs by: host time, which the player maps to item time through
/// its rate. A player's time is read from its clock, never accumulated from timer ticks, so
/// it neither drifts nor jumps when a tick is late.
///
/// ``HostClock`` (the monotonic system clock) is the silent clock every player can fall back
/// on; ``ManualClock`` moves only when told to, so that player logic can be tested (or
/// frames rendered offline) without sleeping.
public protocol PlaybackClock: AnyObject, Sendable {
    /// Now, on this clock. `CMClockGetTime`.
    var hostTime: MediaTime { get }
    /// True when the clock moves by itself: the player then looks at it on a timer of its
    /// own (a few milliseconds apart) to fire observers and notice the item's end. False
    /// for a clock that tells the player when it has moved (``onAdvance(_:)``).
    var advancesByItself: Bool { get }
    /// Asks the clock to call `handler` after each move it makes (after ``ManualClock/advance(by:)``).
    /// A clock that ``advancesByItself`` may ignore this.
    func onAdvance(_ handler: @escaping @Sendable () -> Void)
}

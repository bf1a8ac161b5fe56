#if canImport(Glibc)
import Glibc
#endif
public import ReelCore

/// The system's monotonic clock, in nanoseconds: the silent clock a player runs by when
/// there is no sound device to take time from. `CMClockGetHostTimeClock()`.
public final class HostClock: PlaybackClock {
    public init() {}

    public var hostTime: MediaTime { Self.now() }

    public var advancesByItself: Bool { true }

    /// Does nothing: the host clock moves by itself, and the player looks at it on a timer.
    /// - Parameter handler: Ignored.
    public func onAdvance(_ handler: @escaping @Sendable () -> Void) {}

    /// The monotonic clock's reading. `CMClockGetTime(CMClockGetHostTimeClock())`.
    /// - Returns: `CLOCK_MONOTONIC` in nanoseconds: never set back, so item times computed
    ///   from it never jump.
    public static func now() -> MediaTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MediaTime(value: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec), timescale: 1_000_000_000)
    }
}

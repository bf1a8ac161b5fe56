import ReelCore

/// The session's video clock: which frame is due at a moment, and each frame's time.
/// A change of frame rate rebases it, so times keep rising smoothly across the change.
struct FrameClock {
    let rate: Double
    let startNanoseconds: UInt64
    let baseIndex: Int64
    let baseTime: MediaTime
    let frameDuration: MediaTime

    init(rate: Double, startNanoseconds: UInt64 = 0, baseIndex: Int64 = 0, baseTime: MediaTime = .zero) {
        self.rate = rate
        self.startNanoseconds = startNanoseconds
        self.baseIndex = baseIndex
        self.baseTime = baseTime
        frameDuration = CaptureDevice.frameDuration(for: rate)
    }

    func time(of index: Int64) -> MediaTime { baseTime + frameDuration * (index - baseIndex) }

    func seconds(of index: Int64) -> Double { time(of: index).seconds }

    /// The last frame whose time has come at `nanoseconds` of the uptime clock.
    func frameIndex(atNanoseconds nanoseconds: UInt64) -> Int64 {
        let elapsed = Double(nanoseconds &- startNanoseconds) / 1e9 - baseTime.seconds
        return baseIndex + Int64((elapsed / frameDuration.seconds).rounded(.down))
    }

    /// The same timeline at `rate` from frame `index` on.
    func rebased(at index: Int64, rate: Double) -> FrameClock {
        FrameClock(rate: rate, startNanoseconds: startNanoseconds, baseIndex: index, baseTime: time(of: index))
    }
}

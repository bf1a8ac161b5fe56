import ReelCore

/// When time observers fire, as pure functions of the times a player passes through.
enum TimeObserverSchedule {
    /// The interval slot `time` falls in (`floor(time / interval)`); nil for a non-positive
    /// or non-numeric interval or time.
    static func slot(of time: MediaTime, interval: MediaTime) -> Int64? {
        guard time.isNumeric, interval.isNumeric, interval > .zero else { return nil }
        // time / interval = (t.value × i.timescale) / (t.timescale × i.value), floored.
        let numerator = Int128(time.value) * Int128(interval.timescale)
        let denominator = Int128(time.timescale) * Int128(interval.value)
        let (q, r) = numerator.quotientAndRemainder(dividingBy: denominator)
        let floored = r < 0 ? q - 1 : q
        guard floored >= Int128(Int64.min), floored <= Int128(Int64.max) else { return nil }
        return Int64(floored)
    }

    /// A periodic observer fires during playback each time the time enters a new interval
    /// slot (and, apart from this, when the time jumps or the rate changes). Returns the
    /// slot to remember when it is due, else nil.
    static func periodicDue(lastSlot: Int64?, time: MediaTime, interval: MediaTime) -> Int64? {
        guard let slot = slot(of: time, interval: interval) else { return nil }
        return slot == lastSlot ? nil : slot
    }

    /// The boundary times crossed in moving from `previous` to `current` during normal
    /// playback: each `t` with `previous < t ≤ current`, in order (none when not moving forward).
    static func crossed(_ times: [MediaTime], from previous: MediaTime, to current: MediaTime) -> [MediaTime] {
        guard current > previous else { return [] }
        return times.filter { $0 > previous && $0 <= current }.sorted()
    }
}

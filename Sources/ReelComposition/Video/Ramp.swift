public import ReelCore

/// A value that holds from a time, or moves linearly from one value to another over a
/// range: the shape of every layer-instruction property.
public struct Ramp<Value: Sendable & Equatable>: Sendable, Equatable {
    public var timeRange: MediaTimeRange
    public var start: Value
    public var end: Value

    /// A ramp from `start` to `end` over `timeRange` (a zero-length range sets a value).
    /// - Parameters:
    ///   - timeRange: When the value moves.
    ///   - start: The value at the start.
    ///   - end: The value at the end, held after it.
    public init(timeRange: MediaTimeRange, start: Value, end: Value) {
        self.timeRange = timeRange
        self.start = start
        self.end = end
    }

    /// How far through the ramp `time` is: 0 at its start (and before), 1 at its end (and after).
    func fraction(at time: MediaTime) -> Double {
        guard timeRange.duration.isNumeric, timeRange.duration > .zero else { return time >= timeRange.start ? 1 : 0 }
        if time <= timeRange.start { return 0 }
        if !timeRange.end.isNumeric { return 0 }
        if time >= timeRange.end { return 1 }
        return (time - timeRange.start).seconds / timeRange.duration.seconds
    }
}

/// The value of a property set by `set…(_:at:)` and `set…Ramp(…)` calls at `time`:
/// the last ramp that has begun, interpolated, or `initial` before any.
func value<Value>(of ramps: [Ramp<Value>], at time: MediaTime, initial: Value,
                  interpolate: (Value, Value, Double) -> Value) -> Value {
    // The ramps are ordered by start: the last that has begun by binary search (a moving
    // still has a ramp per frame).
    var low = 0, high = ramps.count
    while low < high {
        let middle = (low + high) / 2
        if ramps[middle].timeRange.start <= time { low = middle + 1 } else { high = middle }
    }
    guard low > 0 else { return initial }
    let ramp = ramps[low - 1]
    let fraction = ramp.fraction(at: time)
    if fraction <= 0 { return ramp.start }
    if fraction >= 1 { return ramp.end }
    return interpolate(ramp.start, ramp.end, fraction)
}

import CFFmpeg
package import ReelCore

/// A fraction as FFmpeg keeps time bases and frame rates. `AVRational`.
package struct Rational: Sendable, Hashable, CustomStringConvertible {
    package var numerator: Int32
    package var denominator: Int32

    package init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ value: AVRational) {
        self.init(value.num, value.den)
    }

    var av: AVRational { AVRational(num: numerator, den: denominator) }

    /// True when both parts are positive.
    package var isPositive: Bool { numerator > 0 && denominator > 0 }

    package var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    /// The time of `timestamp` ticks of this time base; invalid for `AV_NOPTS_VALUE` or a
    /// time base that is not positive.
    package func time(_ timestamp: Int64) -> MediaTime {
        guard timestamp != FFmpeg.noTimestamp, isPositive else { return .invalid }
        if numerator == 1 { return MediaTime(value: timestamp, timescale: denominator) }
        return MediaTime(value: timestamp, timescale: denominator).multiplied(byRatio: Int64(numerator), divisor: 1)
    }

    /// The timestamp in this time base nearest to `time`, rounded by `method`.
    package func timestamp(_ time: MediaTime, method: MediaTime.RoundingMethod = .roundHalfAwayFromZero) -> Int64 {
        guard time.isNumeric, isPositive else { return FFmpeg.noTimestamp }
        if numerator == 1 { return time.convertScale(denominator, method: method).value }
        // ticks = seconds * den / num
        let ticksAsSeconds = time.multiplied(byRatio: Int64(denominator), divisor: Int64(numerator))
        return ticksAsSeconds.convertScale(1, method: method).value
    }

    package var description: String { "\(numerator)/\(denominator)" }
}

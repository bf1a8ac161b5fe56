/// An exact rational time: `value / timescale` seconds, the counterpart of `CMTime`.
///
/// Arithmetic and comparison work across timescales without floating point:
/// intermediate products are computed in 128 bits. When an exact result does not
/// fit (the common timescale exceeds `Int32.max`, or the value exceeds `Int64`),
/// the result is rounded to the larger operand timescale and carries
/// ``Flags-swift.struct/hasBeenRounded``; a value that cannot be represented at all
/// becomes positive or negative infinity. Nothing overflows silently.
///
/// Non-numeric times follow Core Media: `invalid`, `indefinite` and the two
/// infinities. Their order is `-∞ < every numeric time < +∞ < indefinite < invalid`.
public struct MediaTime: Sendable {
    /// The numerator: a count of `1/timescale` second units.
    public var value: Int64
    /// Units per second. Positive for every valid time.
    public var timescale: Int32
    /// What kind of time this is.
    public var flags: Flags

    /// The kind of a time, and whether it was rounded on the way.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        /// Flags from their bits, as `CMTimeFlags` stores them.
        /// - Parameter rawValue: The bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Set on every time but `invalid`. The corresponding Core Media flag is `kCMTimeFlags_Valid`.
        public static let valid = Flags(rawValue: 1 << 0)
        /// The time was rounded to fit its timescale. `kCMTimeFlags_HasBeenRounded`.
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        /// `kCMTimeFlags_PositiveInfinity`.
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        /// `kCMTimeFlags_NegativeInfinity`.
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        /// An unknown time, such as the duration of a live stream. `kCMTimeFlags_Indefinite`.
        public static let indefinite = Flags(rawValue: 1 << 4)

        static let nonNumeric: Flags = [.positiveInfinity, .negativeInfinity, .indefinite]
    }

    /// The default timescale for times made from seconds: 600 divides 24, 25 and 30 fps exactly.
    public static let defaultTimescale: Int32 = 600

    /// A time of `value / timescale` seconds. A timescale of zero or less gives ``invalid``.
    /// `CMTimeMake(value:timescale:)`.
    /// - Parameters:
    ///   - value: the count of `1 / timescale` second ticks.
    ///   - timescale: ticks per second (600 for video, the sample rate for sound).
    public init(value: Int64, timescale: Int32) {
        if timescale > 0 {
            self.init(value: value, timescale: timescale, flags: .valid)
        } else {
            self = .invalid
        }
    }

    /// A time with explicit flags, as read back from a serialized form.
    /// - Parameters:
    ///   - value: The count of `1/timescale` seconds.
    ///   - timescale: Units per second.
    ///   - flags: Whether the time is valid, an infinity or indefinite, and whether it was rounded.
    public init(value: Int64, timescale: Int32, flags: Flags) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
    }

    /// The time nearest to `seconds` in `preferredTimescale`, rounding half away from zero.
    /// NaN gives ``invalid``; infinities and values beyond `Int64` give the matching infinity.
    /// Use it only at the edges (user input); inside, keep times rational.
    /// - Parameters:
    ///   - seconds: the time in seconds.
    ///   - preferredTimescale: the timescale of the result (600 by default).
    public init(seconds: Double, preferredTimescale: Int32 = MediaTime.defaultTimescale) {
        guard preferredTimescale > 0, !seconds.isNaN else {
            self = .invalid
            return
        }
        let scaled = (seconds * Double(preferredTimescale)).rounded(.toNearestOrAwayFromZero)
        if scaled >= 9.223372036854775e18 {
            self = .positiveInfinity
            return
        }
        if scaled <= -9.223372036854775e18 {
            self = .negativeInfinity
            return
        }
        var flags: Flags = .valid
        if scaled != seconds * Double(preferredTimescale) { flags.insert(.hasBeenRounded) }
        self.init(value: Int64(scaled), timescale: preferredTimescale, flags: flags)
    }

    /// Zero seconds. `kCMTimeZero`.
    public static let zero = MediaTime(value: 0, timescale: 1)
    /// Not a time. `kCMTimeInvalid`.
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [])
    /// An unknown time. `kCMTimeIndefinite`.
    public static let indefinite = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite])
    /// Later than every numeric time. `kCMTimePositiveInfinity`.
    public static let positiveInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity])
    /// Earlier than every numeric time. `kCMTimeNegativeInfinity`.
    public static let negativeInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity])

    /// False only for ``invalid``.
    public var isValid: Bool { flags.contains(.valid) }
    /// True for a valid time that is neither indefinite nor infinite.
    public var isNumeric: Bool { isValid && flags.isDisjoint(with: Flags.nonNumeric) && timescale > 0 }
    /// True for ``indefinite``.
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// True for ``positiveInfinity``.
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// True for ``negativeInfinity``.
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// True when an operation had to round this time to fit its timescale.
    public var hasBeenRounded: Bool { flags.contains(.hasBeenRounded) }

    /// The time in seconds, for display and for APIs that want a `Double`.
    /// Infinities give `±.infinity`; invalid and indefinite give NaN.
    public var seconds: Double {
        if isNumeric { return Double(value) / Double(timescale) }
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        return .nan
    }
}

// MARK: - Rounding and conversion

extension MediaTime {
    /// How a conversion to a coarser timescale picks its value. `CMTimeRoundingMethod`.
    public enum RoundingMethod: Sendable, Hashable {
        /// To the nearest value; halves go away from zero. The default.
        case roundHalfAwayFromZero
        /// Truncation.
        case roundTowardZero
        /// Away from zero.
        case roundAwayFromZero
        /// Toward `+∞` (ceiling).
        case roundTowardPositiveInfinity
        /// Toward `-∞` (floor).
        case roundTowardNegativeInfinity
    }

    /// This time in `newTimescale`, rounded by `method`.
    ///
    /// An exact conversion keeps its flags; a rounded one adds ``Flags-swift.struct/hasBeenRounded``;
    /// a value that no longer fits in `Int64` becomes the infinity of its sign.
    /// Non-numeric times are returned unchanged.
    /// - Parameters:
    ///   - newTimescale: the timescale of the result.
    ///   - method: how a value between two ticks of the new timescale is rounded.
    /// - Returns: the time in `newTimescale`.
    public func convertScale(_ newTimescale: Int32, method: RoundingMethod = .roundHalfAwayFromZero) -> MediaTime {
        guard isNumeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        let numerator = Int128(value) * Int128(newTimescale)
        let (quotient, exact) = Self.divide(numerator, by: Int128(timescale), method: method)
        return Self.make(quotient, timescale: newTimescale, rounded: !exact || hasBeenRounded)
    }

    /// `numerator / denominator` rounded by `method`; `exact` is false when a remainder was dropped.
    static func divide(_ numerator: Int128, by denominator: Int128, method: RoundingMethod) -> (Int128, exact: Bool) {
        let (quotient, r) = numerator.quotientAndRemainder(dividingBy: denominator)
        var q = quotient
        if r == 0 { return (q, true) }
        let negative = (numerator < 0) != (denominator < 0)
        let awayStep: Int128 = negative ? -1 : 1
        switch method {
        case .roundTowardZero:
            break
        case .roundAwayFromZero:
            q += awayStep
        case .roundTowardPositiveInfinity:
            if !negative { q += 1 }
        case .roundTowardNegativeInfinity:
            if negative { q -= 1 }
        case .roundHalfAwayFromZero:
            if 2 * r.magnitude >= denominator.magnitude { q += awayStep }
        }
        return (q, false)
    }

    /// A numeric time from a 128-bit value, or an infinity when it does not fit.
    static func make(_ value: Int128, timescale: Int32, rounded: Bool) -> MediaTime {
        if value > Int128(Int64.max) { return .positiveInfinity }
        if value < Int128(Int64.min) { return .negativeInfinity }
        var flags: Flags = .valid
        if rounded { flags.insert(.hasBeenRounded) }
        return MediaTime(value: Int64(value), timescale: timescale, flags: flags)
    }
}

// MARK: - Arithmetic

extension MediaTime {
    /// The exact sum, in the least common timescale of the operands when that fits in `Int32`,
    /// else rounded to the larger operand timescale. `CMTimeAdd`.
    ///
    /// `+∞ + -∞`, and anything with `invalid`, is invalid; an infinity wins over a number;
    /// indefinite wins over a number and an infinity.
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: The time to add.
    /// - Returns: The sum.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        combine(lhs, rhs, subtracting: false)
    }

    /// The exact difference, under the rules of ``+(_:_:)``. `CMTimeSubtract`.
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: The time to take away.
    /// - Returns: The difference.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        combine(lhs, rhs, subtracting: true)
    }

    /// Adds `rhs` to `lhs`, under the rules of ``+(_:_:)``.
    /// - Parameters:
    ///   - lhs: The time to move on.
    ///   - rhs: How far.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// Takes `rhs` from `lhs`, under the rules of ``+(_:_:)``.
    /// - Parameters:
    ///   - lhs: The time to move back.
    ///   - rhs: How far.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// The negated time; infinities swap.
    public static prefix func - (time: MediaTime) -> MediaTime {
        if time.isPositiveInfinity { return .negativeInfinity }
        if time.isNegativeInfinity { return .positiveInfinity }
        guard time.isNumeric else { return time }
        return make(-Int128(time.value), timescale: time.timescale, rounded: time.hasBeenRounded)
    }

    /// The time multiplied by an integer, exactly; overflow gives an infinity. `CMTimeMultiply`.
    /// - Parameters:
    ///   - time: The time (a frame duration, say).
    ///   - multiplier: How many times (a frame index).
    /// - Returns: The product, in `time`'s timescale.
    public static func * (time: MediaTime, multiplier: Int64) -> MediaTime {
        time.multiplied(byRatio: multiplier, divisor: 1)
    }

    /// `self * multiplier / divisor`, rounded half away from zero in this time's timescale.
    /// `CMTimeMultiplyByRatio`. A zero divisor gives invalid.
    /// - Parameters:
    ///   - multiplier: the numerator of the ratio.
    ///   - divisor: its denominator.
    /// - Returns: the scaled time, in this time's timescale.
    public func multiplied(byRatio multiplier: Int64, divisor: Int64) -> MediaTime {
        guard divisor != 0 else { return .invalid }
        if !isNumeric {
            guard isPositiveInfinity || isNegativeInfinity else { return self }
            if multiplier == 0 { return .invalid }
            return ((multiplier < 0) != (divisor < 0)) ? -self : self
        }
        let numerator = Int128(value) * Int128(multiplier)
        let (q, exact) = Self.divide(numerator, by: Int128(divisor), method: .roundHalfAwayFromZero)
        return Self.make(q, timescale: timescale, rounded: !exact || hasBeenRounded)
    }

    /// The time scaled by a floating-point factor, as speed changes from user input need.
    /// Rounded to this time's timescale. `CMTimeMultiplyByFloat64`.
    /// - Parameter factor: the speed or scale, from user input.
    /// - Returns: the scaled time.
    public func multiplied(by factor: Double) -> MediaTime {
        guard isNumeric else { return self }
        return MediaTime(seconds: seconds * factor, preferredTimescale: timescale)
    }

    private static func combine(_ lhs: MediaTime, _ rhs: MediaTime, subtracting: Bool) -> MediaTime {
        guard lhs.isValid, rhs.isValid else { return .invalid }
        if lhs.isIndefinite || rhs.isIndefinite { return .indefinite }
        let right = subtracting ? -rhs : rhs
        let lInf = lhs.isPositiveInfinity ? 1 : (lhs.isNegativeInfinity ? -1 : 0)
        let rInf = right.isPositiveInfinity ? 1 : (right.isNegativeInfinity ? -1 : 0)
        if lInf != 0 || rInf != 0 {
            if lInf != 0, rInf != 0, lInf != rInf { return .invalid }
            return (lInf != 0 ? lInf : rInf) > 0 ? .positiveInfinity : .negativeInfinity
        }
        let rounded = lhs.hasBeenRounded || right.hasBeenRounded
        if lhs.timescale == right.timescale {
            return make(Int128(lhs.value) + Int128(right.value), timescale: lhs.timescale, rounded: rounded)
        }
        let common = leastCommonMultiple(Int128(lhs.timescale), Int128(right.timescale))
        if common <= Int128(Int32.max) {
            let sum = Int128(lhs.value) * (common / Int128(lhs.timescale))
                + Int128(right.value) * (common / Int128(right.timescale))
            return make(sum, timescale: Int32(common), rounded: rounded)
        }
        // No exact common timescale fits: sum exactly over lhs.ts * rhs.ts, then round.
        let target = max(lhs.timescale, right.timescale)
        let numerator = Int128(lhs.value) * Int128(right.timescale) + Int128(right.value) * Int128(lhs.timescale)
        let denominator = Int128(lhs.timescale) * Int128(right.timescale)
        let (q, exact) = divide(numerator * Int128(target), by: denominator, method: .roundHalfAwayFromZero)
        return make(q, timescale: target, rounded: rounded || !exact)
    }
}

func greatestCommonDivisor(_ a: Int128, _ b: Int128) -> Int128 {
    var (x, y) = (a.magnitude, b.magnitude)
    while y != 0 { (x, y) = (y, x % y) }
    return Int128(x)
}

func leastCommonMultiple(_ a: Int128, _ b: Int128) -> Int128 {
    a / greatestCommonDivisor(a, b) * b
}

// MARK: - Comparison

extension MediaTime: Comparable, Hashable {
    /// Rank of the non-numeric kinds in the total order.
    private var rank: Int {
        if !isValid { return 4 }
        if isIndefinite { return 3 }
        if isPositiveInfinity { return 2 }
        if isNegativeInfinity { return 0 }
        return 1
    }

    /// Exact comparison across timescales. `CMTimeCompare`.
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    /// - Returns: True when `lhs` is the earlier instant (−∞ before numbers before +∞).
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.rank != rhs.rank || lhs.rank != 1 { return lhs.rank < rhs.rank }
        return Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Equal instants are equal whatever their timescales: 1/2 s == 300/600 s.
    /// The rounding flag does not take part.
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    /// - Returns: True for the same instant.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.rank != rhs.rank { return false }
        if lhs.rank != 1 { return true }
        return Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Hashes the instant, so equal times in different timescales hash alike.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        guard rank == 1 else { return }
        let divisor = greatestCommonDivisor(Int128(value), Int128(timescale))
        hasher.combine(Int128(value) / divisor)
        hasher.combine(Int128(timescale) / divisor)
    }
}

extension MediaTime: CustomStringConvertible {
    /// `"value/timescale = seconds"`, or the name of a non-numeric time.
    public var description: String {
        if !isValid { return "invalid" }
        if isIndefinite { return "indefinite" }
        if isPositiveInfinity { return "+infinity" }
        if isNegativeInfinity { return "-infinity" }
        return "\(value)/\(timescale) = \(seconds)s\(hasBeenRounded ? " (rounded)" : "")"
    }
}

extension MediaTime {
    /// `self × numerator ÷ denominator` for two times, exact when the reduced result fits
    /// (`Int32` timescale), else rounded to the finest of the operands' timescales. This is
    /// what stretching a range to a new duration needs. Non-numeric operands or a zero
    /// denominator give invalid.
    /// - Parameters:
    ///   - numerator: the new length (a stretched range's new duration).
    ///   - denominator: the old length (its old duration).
    /// - Returns: `self × numerator ÷ denominator`.
    public func scaled(by numerator: MediaTime, over denominator: MediaTime) -> MediaTime {
        guard isNumeric, numerator.isNumeric, denominator.isNumeric, denominator.value != 0 else { return .invalid }
        var value = Int128(self.value) * Int128(numerator.value) * Int128(denominator.timescale)
        var scale = Int128(timescale) * Int128(numerator.timescale) * Int128(denominator.value)
        if scale < 0 {
            value = -value
            scale = -scale
        }
        let divisor = greatestCommonDivisor(value, scale)
        if divisor > 1 {
            value /= divisor
            scale /= divisor
        }
        if scale <= Int128(Int32.max) {
            return Self.make(value, timescale: Int32(scale), rounded: hasBeenRounded || numerator.hasBeenRounded)
        }
        let target = max(timescale, numerator.timescale, denominator.timescale)
        let (q, _) = Self.divide(value * Int128(target), by: scale, method: .roundHalfAwayFromZero)
        return Self.make(q, timescale: target, rounded: true)
    }
}

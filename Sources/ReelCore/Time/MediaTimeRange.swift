/// A span of media time: `start` and `duration`. The counterpart of `CMTimeRange`.
///
/// The range is half-open, `[start, end)`: a time equal to `end` is not contained,
/// so ranges laid end to end never share an instant.
public struct MediaTimeRange: Sendable, Hashable {
    /// The first instant of the range.
    public var start: MediaTime
    /// The length of the range; never negative for a valid range.
    public var duration: MediaTime

    /// A range of `duration` from `start`. `CMTimeRangeMake(start:duration:)`.
    /// - Parameters:
    ///   - start: the first instant in the range.
    ///   - duration: its length; zero for an empty range at `start`.
    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to (not including) `end`. `CMTimeRangeFromTimeToTime`.
    /// - Parameters:
    ///   - start: the first instant in the range.
    ///   - end: the first instant after it.
    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    /// The empty range at zero. `kCMTimeRangeZero`.
    public static let zero = MediaTimeRange(start: .zero, duration: .zero)
    /// Not a range. `kCMTimeRangeInvalid`.
    public static let invalid = MediaTimeRange(start: .invalid, duration: .invalid)

    /// The first instant after the range: `start + duration`.
    public var end: MediaTime { start + duration }

    /// True when start and duration are valid and the duration is not negative.
    public var isValid: Bool {
        start.isValid && duration.isValid && !duration.isNegativeInfinity && duration >= .zero
            && !start.isIndefinite && !start.isPositiveInfinity
    }

    /// True for a valid range of zero duration.
    public var isEmpty: Bool { isValid && duration == .zero }

    /// Whether `time` lies in `[start, end)`. `CMTimeRangeContainsTime`.
    /// - Parameter time: the instant to look for.
    /// - Returns: true when the range holds it.
    public func contains(_ time: MediaTime) -> Bool {
        isValid && time.isValid && !time.isIndefinite && time >= start && time < end
    }

    /// Whether all of `other` lies inside this range. An empty range at a contained
    /// instant (or at `end`) is contained. `CMTimeRangeContainsTimeRange`.
    /// - Parameter other: the range to look for.
    /// - Returns: true when this range holds all of it.
    public func contains(_ other: MediaTimeRange) -> Bool {
        isValid && other.isValid && other.start >= start && other.end <= end
    }

    /// The overlap of two ranges, or an empty range at the later start when they do not
    /// overlap. `CMTimeRangeGetIntersection`.
    /// - Parameter other: the other range.
    /// - Returns: the instants in both.
    public func intersection(_ other: MediaTimeRange) -> MediaTimeRange {
        guard isValid, other.isValid else { return .invalid }
        let lower = max(start, other.start)
        let upper = min(end, other.end)
        if upper <= lower { return MediaTimeRange(start: lower, duration: .zero) }
        return MediaTimeRange(start: lower, end: upper)
    }

    /// The smallest range that holds both ranges. `CMTimeRangeGetUnion`.
    /// - Parameter other: the other range.
    /// - Returns: from the earlier start to the later end.
    public func union(_ other: MediaTimeRange) -> MediaTimeRange {
        guard isValid, other.isValid else { return .invalid }
        return MediaTimeRange(start: min(start, other.start), end: max(end, other.end))
    }

    /// Whether the two ranges share at least one instant.
    /// - Parameter other: the other range.
    /// - Returns: true when their intersection is not empty.
    public func overlaps(_ other: MediaTimeRange) -> Bool {
        !intersection(other).isEmpty && intersection(other).isValid
    }
}

extension MediaTimeRange: CustomStringConvertible {
    public var description: String { "[\(start.seconds)s, \(end.seconds)s)" }
}

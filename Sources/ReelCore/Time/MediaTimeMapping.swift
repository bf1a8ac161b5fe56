/// How a range of a source's timeline maps onto a target timeline: the counterpart
/// of `CMTimeMapping`, and what a composition track segment records.
///
/// An empty segment (a gap) has an invalid `source`. When the durations differ, the
/// source is played faster or slower to fill the target.
public struct MediaTimeMapping: Sendable, Hashable {
    /// The range read from the source media; invalid for an empty segment.
    public var source: MediaTimeRange
    /// Where that range lands on the target timeline.
    public var target: MediaTimeRange

    /// A mapping from its two ranges.
    /// - Parameters:
    ///   - source: The range read from the source; invalid for a gap.
    ///   - target: Where it lands; a different duration plays the source faster or slower.
    public init(source: MediaTimeRange, target: MediaTimeRange) {
        self.source = source
        self.target = target
    }

    /// A gap of `target` with no source media.
    /// - Parameter target: The stretch of the target timeline left empty.
    /// - Returns: A mapping with an invalid source.
    public static func empty(_ target: MediaTimeRange) -> MediaTimeMapping {
        MediaTimeMapping(source: .invalid, target: target)
    }

    /// True for a gap.
    public var isEmpty: Bool { !source.isValid }

    /// The source time shown at `targetTime`, exact when the time scale between the
    /// two ranges is rational. Invalid for a gap. `CMTimeMapTimeFromRangeToRange`.
    /// - Parameter targetTime: a time on the target timeline.
    /// - Returns: the source time that is shown then.
    public func sourceTime(at targetTime: MediaTime) -> MediaTime {
        guard !isEmpty, target.isValid, targetTime.isNumeric else { return .invalid }
        let offset = targetTime - target.start
        if source.duration == target.duration { return source.start + offset }
        return source.start + Self.scale(offset, from: target.duration, to: source.duration)
    }

    /// The target time at which `sourceTime` is shown.
    /// - Parameter sourceTime: a time in the source range.
    /// - Returns: the time on the target timeline.
    public func targetTime(at sourceTime: MediaTime) -> MediaTime {
        guard !isEmpty, target.isValid, sourceTime.isNumeric else { return .invalid }
        let offset = sourceTime - source.start
        if source.duration == target.duration { return target.start + offset }
        return target.start + Self.scale(offset, from: source.duration, to: target.duration)
    }

    /// `offset * to / from`, exact where a timescale can hold it.
    private static func scale(_ offset: MediaTime, from: MediaTime, to: MediaTime) -> MediaTime {
        guard from.isNumeric, to.isNumeric, from.value != 0 else { return .invalid }
        // offset * to / from, exactly: rounding to the offset's timescale (1/30 for a frame
        // time) showed a slowed clip's frames up to half an output frame early.
        return offset.scaled(by: to, over: from)
    }
}

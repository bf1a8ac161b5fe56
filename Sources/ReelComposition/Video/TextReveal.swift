public import ReelAsset

/// Text that appears a word or a line at a time: each unit fades in over `duration`,
/// eased by `timingFunction`, starting `interval` seconds after the one before it, the
/// first at `beginTime` on the composition's timeline. Set on an ``OverlayLayer`` with a
/// ``ReelCore/TextStyle``; the layer's own opacity and animations apply on top.
public struct TextReveal: Sendable, Equatable {
    /// What appears at a time.
    public enum Unit: String, Sendable, Hashable, CaseIterable {
        case word, line
    }

    public var unit: Unit
    /// When the first unit starts to appear, in composition seconds.
    public var beginTime: Double
    /// Seconds between one unit's start and the next's.
    public var interval: Double
    /// Seconds each unit takes to fade in; 0 shows it at once.
    public var duration: Double
    /// How each unit's fade eases (linear by default).
    public var timingFunction: MediaTimingFunction

    /// - Parameters:
    ///   - unit: Words or lines.
    ///   - beginTime: The first unit's start, in composition seconds.
    ///   - interval: Seconds between units' starts.
    ///   - duration: Seconds each takes to fade in (0: at once).
    ///   - timingFunction: The fade's easing.
    public init(unit: Unit, beginTime: Double, interval: Double, duration: Double = 0,
                timingFunction: MediaTimingFunction = .linear) {
        self.unit = unit
        self.beginTime = beginTime
        self.interval = interval
        self.duration = duration
        self.timingFunction = timingFunction
    }

    /// When unit `index` (a word's or a line's place, from 0) starts to appear.
    /// - Parameter index: The unit's place.
    /// - Returns: Composition seconds.
    public func startTime(ofUnit index: Int) -> Double { beginTime + Double(index) * interval }

    /// Unit `index`'s opacity at composition second `seconds`: 0 before its start, 1 from its
    /// start plus `duration`, eased between.
    /// - Parameters:
    ///   - index: The unit's place, from 0.
    ///   - seconds: The composition time.
    /// - Returns: 0 to 1.
    public func opacity(ofUnit index: Int, at seconds: Double) -> Double {
        let start = startTime(ofUnit: index)
        if seconds < start { return 0 }
        guard duration > 0 else { return 1 }
        let fraction = (seconds - start) / duration
        if fraction >= 1 { return 1 }
        return min(max(timingFunction.progress(at: fraction, overSeconds: duration), 0), 1)
    }

    /// Every word's opacity at composition second `seconds`, by word or by line.
    /// - Parameters:
    ///   - words: The laid-out words (``ReelAsset/StyledTextImage/words``).
    ///   - seconds: The composition time.
    /// - Returns: One opacity per word.
    public func opacities(of words: [StyledTextImage.Word], at seconds: Double) -> [Double] {
        words.enumerated().map { index, word in opacity(ofUnit: unit == .word ? index : word.line, at: seconds) }
    }

    /// When the last unit has fully appeared, in composition seconds.
    /// - Parameter words: The laid-out words.
    /// - Returns: Composition seconds.
    public func endTime(of words: [StyledTextImage.Word]) -> Double {
        let units = unit == .word ? words.count : (words.map(\.line).max() ?? 0) + 1
        return startTime(ofUnit: max(units - 1, 0)) + duration
    }
}

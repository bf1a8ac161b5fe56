import ReelCore

/// The composition times an export renders, `start + k × step` for whole k ≥ 0: knowing
/// them, a source can tell beforehand which of its pictures will ever be shown (a
/// fast-forward shows one picture in five) and skip decoding and converting the others.
struct FrameGrid: Sendable {
    var start: MediaTime
    var step: MediaTime

    /// Whether a grid time inside `mapping`'s target range shows source time `interval`'s
    /// picture, i.e. maps (as ``VideoRenderer`` maps it, ``MediaTimeMapping/sourceTime(at:)``)
    /// into `interval`. True whenever that cannot be told exactly, so nothing shown is lost.
    /// - Parameters:
    ///   - mapping: a segment's mapping from composition time to its source's time.
    ///   - interval: a picture's presentation interval in the source.
    /// - Returns: false only when no grid time shows a source time in `interval`.
    func showsSource(of mapping: MediaTimeMapping, in interval: MediaTimeRange) -> Bool {
        let target = mapping.target
        guard step.isNumeric, step > .zero, start.isNumeric, target.start.isNumeric, target.end.isNumeric,
              interval.start.isNumeric, interval.end.isNumeric else { return true }
        // The composition time showing the interval's start, then the grid index just before it.
        let from = mapping.targetTime(at: interval.start)
        guard from.isNumeric else { return true }
        let reach = max(from, target.start) - start
        let numerator = Int128(reach.value) * Int128(step.timescale)
        let denominator = Int128(reach.timescale) * Int128(step.value)
        guard denominator > 0 else { return true }
        var quotient = numerator / denominator
        if numerator < 0, quotient * denominator != numerator { quotient -= 1 } // floor
        guard let first = Int64(exactly: max(0, quotient - 1)) else { return true }
        // Walk forward to the first grid time inside the segment showing at or past the
        // interval's start; the mapping may round, so a few steps, never many.
        var index = first
        for _ in 0..<8 {
            let time = start + step * index
            guard time.isNumeric else { return true }
            if time >= target.end { return false }
            if time >= target.start {
                let shown = mapping.sourceTime(at: time)
                guard shown.isNumeric else { return true }
                if shown >= interval.start { return shown < interval.end }
            }
            index += 1
        }
        return true
    }
}

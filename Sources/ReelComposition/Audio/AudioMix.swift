public import ReelCore

/// Volumes of a composition's audio tracks over time. `AVMutableAudioMix`.
public struct AudioMix: Sendable {
    /// One entry per track that is not at full volume throughout. `inputParameters`.
    public var inputParameters: [AudioMixInputParameters]

    /// A mix from its tracks' parameters.
    /// - Parameter inputParameters: One entry per track whose volume changes; other tracks play at 1.
    public init(inputParameters: [AudioMixInputParameters] = []) {
        self.inputParameters = inputParameters
    }

    /// The volume of `trackID` at `time`: 1 unless its parameters say otherwise.
    /// - Parameters:
    ///   - trackID: The composition track's ID.
    ///   - time: The composition time.
    /// - Returns: The gain the mixer applies to that track's samples then.
    public func volume(ofTrack trackID: Int, at time: MediaTime) -> Double {
        inputParameters.first { $0.trackID == trackID }?.volume(at: time) ?? 1
    }
}

/// The volume of one audio track over time. `AVMutableAudioMixInputParameters`.
public struct AudioMixInputParameters: Sendable {
    public var trackID: Int
    private var ramps: [Ramp<Double>] = []

    /// Parameters for one track, at full volume until ramps are set.
    /// - Parameter trackID: The composition track they apply to.
    public init(trackID: Int) {
        self.trackID = trackID
    }

    /// From `time` on, the volume is `volume` (1 is unchanged). `setVolume(_:at:)`.
    /// - Parameters:
    ///   - volume: The gain, 0 silent, 1 unchanged.
    ///   - time: When it takes effect.
    public mutating func setVolume(_ volume: Double, at time: MediaTime) {
        insert(Ramp(timeRange: MediaTimeRange(start: time, duration: .zero), start: volume, end: volume))
    }

    /// The volume moves linearly over `timeRange`. `setVolumeRamp(fromStartVolume:toEndVolume:timeRange:)`.
    /// - Parameters:
    ///   - start: The gain at the range's start.
    ///   - end: The gain at its end, held after it.
    ///   - timeRange: When the fade happens.
    public mutating func setVolumeRamp(fromStartVolume start: Double, toEndVolume end: Double, timeRange: MediaTimeRange) {
        insert(Ramp(timeRange: timeRange, start: start, end: end))
    }

    /// The volume at `time`: the ramp in force, or the last value set before it.
    /// - Parameter time: The composition time.
    /// - Returns: The gain, 1 before anything is set.
    public func volume(at time: MediaTime) -> Double {
        value(of: ramps, at: time, initial: 1) { a, b, f in a + (b - a) * f }
    }

    /// The volume curve multiplied by `factor(t)`, both taken as straight lines between
    /// `times` and the ramps' own ends: ducking's second pass.
    mutating func multiply(at times: [MediaTime], by factor: (MediaTime) -> Double) {
        multiply(at: times) { time, _ in factor(time) }
    }

    /// The volume curve multiplied by `factor(t, fromBefore)`, both taken as straight lines
    /// between `times` and the ramps' own ends. A step is kept as a step: each line ends on
    /// the values just before its end (`fromBefore` true; a crossfade's 0 before the 1 set at
    /// its end) and the next starts on the values at it (a clip's fade, whose factor steps
    /// back to 1 where the clip ends).
    mutating func multiply(at times: [MediaTime], by factor: (MediaTime, Bool) -> Double) {
        var points = Set(times)
        for ramp in ramps {
            points.insert(ramp.timeRange.start)
            points.insert(ramp.timeRange.end)
        }
        points.insert(.zero)
        let sorted = points.filter { $0.isNumeric && $0 >= .zero }.sorted()
        var rebuilt: [Ramp<Double>] = []
        for index in sorted.indices {
            let time = sorted[index]
            let value = volume(at: time) * factor(time, false)
            guard index + 1 < sorted.count else {
                rebuilt.append(Ramp(timeRange: MediaTimeRange(start: time, duration: .zero), start: value, end: value))
                break
            }
            let next = sorted[index + 1]
            rebuilt.append(Ramp(timeRange: MediaTimeRange(start: time, end: next), start: value,
                                end: volume(justBefore: next) * factor(next, true)))
        }
        ramps = rebuilt
    }

    /// The volume at each of `count` samples from sample `first` at `rate` a second, exactly:
    /// one line between the ends when no ramp starts or ends inside, else sample by sample (a
    /// line across a step, such as a crossfade's 0 then the 1 set where its clip ends, would
    /// rise through the clip's last samples).
    /// - Parameters:
    ///   - first: The first sample's number on the timeline.
    ///   - count: How many samples.
    ///   - rate: Samples a second.
    /// - Returns: One gain per sample.
    func volumes(firstSample first: Int64, count: Int, rate: Int32) -> [Double] {
        guard count > 0 else { return [] }
        let a = MediaTime(value: first, timescale: rate), b = MediaTime(value: first + Int64(count - 1), timescale: rate)
        // The ramp in force at `a`, and whether it ends or another begins by `b`.
        var low = 0, high = ramps.count
        while low < high {
            let middle = (low + high) / 2
            if ramps[middle].timeRange.start <= a { low = middle + 1 } else { high = middle }
        }
        let next = low < ramps.count ? ramps[low].timeRange.start : MediaTime.positiveInfinity
        let currentEnd = low > 0 ? ramps[low - 1].timeRange.end : MediaTime.positiveInfinity
        let bends = next <= b || (currentEnd.isNumeric && currentEnd > a && currentEnd <= b)
        if !bends {
            let va = volume(at: a), vb = volume(at: b)
            return (0..<count).map { va + (vb - va) * Double($0) / Double(max(count - 1, 1)) }
        }
        return (0..<count).map { volume(at: MediaTime(value: first + Int64($0), timescale: rate)) }
    }

    /// The volume an instant before `time`: the last ramp begun before it, at `time`.
    private func volume(justBefore time: MediaTime) -> Double {
        var low = 0, high = ramps.count
        while low < high {
            let middle = (low + high) / 2
            if ramps[middle].timeRange.start < time { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return 1 }
        let ramp = ramps[low - 1]
        let fraction = ramp.fraction(at: time)
        return ramp.start + (ramp.end - ramp.start) * min(max(fraction, 0), 1)
    }

    /// Every volume set multiplied by `gain` (a loudness normalisation's second pass).
    mutating func scaleVolumes(by gain: Double) {
        if ramps.isEmpty { setVolume(1, at: .zero) }
        ramps = ramps.map { Ramp(timeRange: $0.timeRange, start: $0.start * gain, end: $0.end * gain) }
        if let first = ramps.first, first.timeRange.start > .zero {
            ramps.insert(Ramp(timeRange: MediaTimeRange(start: .zero, duration: .zero), start: gain, end: gain), at: 0)
        }
    }

    private mutating func insert(_ ramp: Ramp<Double>) {
        ramps.removeAll { $0.timeRange.start == ramp.timeRange.start }
        let index = ramps.firstIndex { $0.timeRange.start > ramp.timeRange.start } ?? ramps.count
        ramps.insert(ramp, at: index)
    }
}

public import ReelCore

/// Volumes of a composition's audio tracks over time. `AVMutableAudioMix`.
public struct AudioMix: Sendable {
    /// One entry per track that is not at full volume throughout. `inputParameters`.
    public var inputParameters: [AudioMixInputParameters]

    public init(inputParameters: [AudioMixInputParameters] = []) {
        self.inputParameters = inputParameters
    }

    /// The volume of `trackID` at `time`: 1 unless its parameters say otherwise.
    public func volume(ofTrack trackID: Int, at time: MediaTime) -> Double {
        inputParameters.first { $0.trackID == trackID }?.volume(at: time) ?? 1
    }
}

/// The volume of one audio track over time. `AVMutableAudioMixInputParameters`.
public struct AudioMixInputParameters: Sendable {
    public var trackID: Int
    private var ramps: [Ramp<Double>] = []

    public init(trackID: Int) {
        self.trackID = trackID
    }

    /// From `time` on, the volume is `volume` (1 is unchanged). `setVolume(_:at:)`.
    public mutating func setVolume(_ volume: Double, at time: MediaTime) {
        insert(Ramp(timeRange: MediaTimeRange(start: time, duration: .zero), start: volume, end: volume))
    }

    /// The volume moves linearly over `timeRange`. `setVolumeRamp(fromStartVolume:toEndVolume:timeRange:)`.
    public mutating func setVolumeRamp(fromStartVolume start: Double, toEndVolume end: Double, timeRange: MediaTimeRange) {
        insert(Ramp(timeRange: timeRange, start: start, end: end))
    }

    public func volume(at time: MediaTime) -> Double {
        value(of: ramps, at: time, initial: 1) { a, b, f in a + (b - a) * f }
    }

    private mutating func insert(_ ramp: Ramp<Double>) {
        ramps.removeAll { $0.timeRange.start == ramp.timeRange.start }
        let index = ramps.firstIndex { $0.timeRange.start > ramp.timeRange.start } ?? ramps.count
        ramps.insert(ramp, at: index)
    }
}

import Dispatch
import Foundation
import ReelCapture
import ReelCore

/// The microphone's level as the studio hears it, for the camera page's meter: the
/// sound the session captures, measured as `AVCaptureAudioChannel` does, an average
/// power and a peak held for a second, in decibels below full scale.
///
/// An ``AudioDataOutput`` on the studio's session hands each buffer (about 21 ms) to
/// ``measure(_:)``; ``level`` sums the squares of the last quarter second. Only a few
/// numbers per buffer are kept, in a ring of fixed size, so a session that runs for
/// days holds no more than one that just started.
final class MicrophoneMeter: Sendable {
    /// What the meter shows: average power over ``averageWindow`` and the peak over
    /// ``peakWindow``, in dBFS (0 is full scale; ``floor`` for silence).
    struct Level: Sendable, Equatable {
        var average: Double
        var peak: Double
    }

    /// The quietest level reported: silence reads this rather than minus infinity.
    static let floor = -120.0
    static let averageWindow = 0.25
    static let peakWindow = 1.0
    /// Buffers kept: a second and a half of 1024-sample buffers at 48 kHz, and room to spare.
    static let capacity = 96

    /// One measured buffer: when it arrived (uptime, seconds), its sum of squares, its sample count and its peak.
    private struct Reading {
        var arrived: Double
        var squares: Double
        var count: Int
        var peak: Float
    }

    private enum State {
        /// No sound has come (no microphone, or the session has not started).
        case idle
        /// The newest readings, oldest first, at most ``capacity``.
        case hearing([Reading])
    }

    private let state = PosixMutex(State.idle)

    /// Measures one buffer of sound (all its channels).
    /// - Parameter sample: An audio sample from the session; pictures are ignored.
    func measure(_ sample: SampleBuffer) {
        guard let audio = sample.audioBuffer, audio.frameCount > 0 else { return }
        var squares = 0.0, count = 0
        var peak: Float = 0
        for channel in 0..<max(1, audio.format.channelCount) {
            for value in audio.floatSamples(channel: channel) where value.isFinite {
                squares += Double(value) * Double(value)
                peak = max(peak, abs(value))
                count += 1
            }
        }
        let reading = Reading(arrived: Self.now(), squares: squares, count: count, peak: peak)
        state.withLock { state in
            switch state {
            case .idle:
                state = .hearing([reading])
            case .hearing(var readings):
                state = .idle
                readings.append(reading)
                if readings.count > Self.capacity { readings.removeFirst(readings.count - Self.capacity) }
                state = .hearing(readings)
            }
        }
    }

    /// Forgets what was heard (the microphone changed or was switched off).
    func reset() { state.withLock { $0 = .idle } }

    /// The level now; nil when no sound has arrived in the last ``peakWindow`` (no
    /// microphone, or one that stopped delivering).
    var level: Level? {
        let now = Self.now()
        return state.withLock { state -> Level? in
            guard case .hearing(let readings) = state else { return nil }
            let recent = readings.filter { now - $0.arrived <= Self.averageWindow }
            let held = readings.filter { now - $0.arrived <= Self.peakWindow }
            guard !held.isEmpty else { return nil }
            let count = recent.reduce(0) { $0 + $1.count }
            let power = count > 0 ? recent.reduce(0) { $0 + $1.squares } / Double(count) : 0
            let peak = Double(held.map(\.peak).max() ?? 0)
            return Level(average: Self.decibels(power: power), peak: Self.decibels(amplitude: peak))
        }
    }

    /// 10·log10 of a mean square, no lower than ``floor``.
    static func decibels(power: Double) -> Double {
        power > 0 ? max(floor, 10 * log10(power)) : floor
    }

    /// 20·log10 of an amplitude, no lower than ``floor``.
    static func decibels(amplitude: Double) -> Double {
        amplitude > 0 ? max(floor, 20 * log10(amplitude)) : floor
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

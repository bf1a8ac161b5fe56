public import ReelCore
import Synchronization

/// The sound device's clock: the time of the sample being heard now, which is the samples
/// written minus those still waiting in the server and the card. A player timed by it keeps
/// its pictures to its sound (audio is the master clock). Between writes the reading moves
/// on by the host clock, never past what was written and never backwards.
final class AudioClock: PlaybackClock {
    private struct State {
        var written: Int64 = 0
        var latency: Int64 = 0
        var stamp = MediaTime.invalid
        var last = MediaTime.zero
    }
    let sampleRate: Int32
    private let state = Mutex(State())

    init(sampleRate: Int32) {
        self.sampleRate = sampleRate
    }

    var hostTime: MediaTime {
        let host = HostClock.now()
        return state.withLock { state in
            var heard = MediaTime(value: max(0, state.written - state.latency), timescale: sampleRate)
            if state.stamp.isNumeric, host > state.stamp {
                heard = min(heard + (host - state.stamp), MediaTime(value: state.written, timescale: sampleRate))
            }
            state.last = max(state.last, heard)
            return state.last
        }
    }

    var advancesByItself: Bool { true }

    func onAdvance(_ handler: @escaping @Sendable () -> Void) {}

    /// Samples written so far: the device time of the next sample to write.
    var writtenSamples: Int64 { state.withLock { $0.written } }

    /// After the device dropped what was waiting: the sample being heard stays where it was,
    /// and what is written next follows `latencyMicroseconds` after it.
    func didFlush(latencyMicroseconds: UInt64) {
        let host = HostClock.now()
        let rate = Int64(sampleRate)
        state.withLock { state in
            let heard = max(0, state.written - state.latency)
            state.latency = Int64(min(latencyMicroseconds, 10_000_000)) * rate / 1_000_000
            state.written = heard + state.latency
            state.stamp = host
        }
    }

    /// After a write: `count` more samples, `latencyMicroseconds` still to be heard.
    func didWrite(_ count: Int, latencyMicroseconds: UInt64) {
        let host = HostClock.now()
        let rate = Int64(sampleRate)
        state.withLock { state in
            state.written += Int64(count)
            state.latency = Int64(min(latencyMicroseconds, 10_000_000)) * rate / 1_000_000
            state.stamp = host
        }
    }
}

import ReelCore

/// The sound device's clock: the time of the sample being heard now, which is the samples
/// written minus those still waiting in the server and the card. A player timed by it keeps
/// its pictures to its sound (audio is the master clock). Between writes the reading moves
/// on by the host clock, never past what was written and never backwards.
final class AudioClock: PlaybackClock {
    /// The clock's state under its one lock, its transitions pure functions of the host
    /// time and the stream's readings passed in.
    struct State {
        let sampleRate: Int32
        /// Samples written to the stream.
        private(set) var written: Int64 = 0
        /// Samples still waiting in the server and the card at the last write or flush.
        private(set) var latency: Int64 = 0
        /// The host time of the last write or flush.
        private(set) var stamp = MediaTime.invalid
        /// The last reading handed out (readings never go backwards).
        private(set) var last = MediaTime.zero

        init(sampleRate: Int32) { self.sampleRate = sampleRate }

        /// The device time of the sample heard at host time `host`: what was heard at the last
        /// write, moved on by the host time since, never past what was written, never back.
        mutating func reading(at host: MediaTime) -> MediaTime {
            var heard = MediaTime(value: max(0, written - latency), timescale: sampleRate)
            if stamp.isNumeric, host > stamp {
                heard = min(heard + (host - stamp), MediaTime(value: written, timescale: sampleRate))
            }
            last = max(last, heard)
            return last
        }

        /// The stream dropped what waited: the sample being heard stays, and what is written
        /// next follows `latencyMicroseconds` after it.
        mutating func didFlush(latencyMicroseconds: UInt64, at host: MediaTime) {
            let heard = max(0, written - latency)
            latency = Self.samples(latencyMicroseconds, sampleRate: sampleRate)
            written = heard + latency
            stamp = host
        }

        /// `count` more samples were written, `latencyMicroseconds` of them still to be heard.
        mutating func didWrite(_ count: Int, latencyMicroseconds: UInt64, at host: MediaTime) {
            written += Int64(count)
            latency = Self.samples(latencyMicroseconds, sampleRate: sampleRate)
            stamp = host
        }

        /// A latency in samples, bounded at 10 s.
        private static func samples(_ microseconds: UInt64, sampleRate: Int32) -> Int64 {
            Int64(min(microseconds, 10_000_000)) * Int64(sampleRate) / 1_000_000
        }
    }

    let sampleRate: Int32
    private let state: PosixMutex<State>

    init(sampleRate: Int32) {
        self.sampleRate = sampleRate
        state = PosixMutex(State(sampleRate: sampleRate))
    }

    var hostTime: MediaTime {
        let host = HostClock.now()
        return state.withLock { $0.reading(at: host) }
    }

    var advancesByItself: Bool { true }

    func onAdvance(_ handler: @escaping @Sendable () -> Void) {}

    /// Samples written so far: the device time of the next sample to write.
    var writtenSamples: Int64 { state.withLock { $0.written } }

    /// After the device dropped what was waiting: the sample being heard stays where it was,
    /// and what is written next follows `latencyMicroseconds` after it.
    func didFlush(latencyMicroseconds: UInt64) {
        let host = HostClock.now()
        state.withLock { $0.didFlush(latencyMicroseconds: latencyMicroseconds, at: host) }
    }

    /// After a write: `count` more samples, `latencyMicroseconds` still to be heard.
    func didWrite(_ count: Int, latencyMicroseconds: UInt64) {
        let host = HostClock.now()
        state.withLock { $0.didWrite(count, latencyMicroseconds: latencyMicroseconds, at: host) }
    }
}

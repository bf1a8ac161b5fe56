import ReelALSA
import ReelCore
import ReelPulse

/// What ``AudioOutput`` writes to: a PulseAudio stream or an ALSA PCM, each blocking its
/// writer until the device has room.
protocol SoundSink: AnyObject {
    /// Writes interleaved float samples, blocking until the device has taken them.
    func write(_ samples: [Float]) throws(ReelError)
    /// How long what was written takes to be heard, in microseconds.
    func latencyMicroseconds() -> UInt64
    /// Drops what was written and not yet heard.
    func flush()
    /// Which device it is, as ``AudioDevice/init(spelling:)`` spells it (`pulse`, `alsa:default`).
    var deviceSpelling: String { get }
    /// Underruns the device itself reported (ALSA's xruns); 0 where it reports none.
    var deviceUnderruns: Int { get }
}

extension PulseStream: SoundSink {
    var deviceSpelling: String { "pulse" }
    var deviceUnderruns: Int { 0 }
}

extension ALSAStream: SoundSink {
    var deviceSpelling: String { "alsa:\(device)" }
    var deviceUnderruns: Int { underruns }
}

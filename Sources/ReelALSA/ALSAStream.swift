import CALSA
import CALSAShims
import Foundation
package import ReelCore

/// A playback stream to an ALSA PCM (libasound): interleaved 32-bit float samples written
/// in order, each write blocking until the device has room, so a writer thread is paced by
/// the sound card; the latency still to be heard; underruns recovered and counted.
///
/// A PCM that takes samples faster than real time (the `null` plugin, a `file` plugin over
/// it: what a machine without a sound card has) reports nothing waiting right after a
/// write. Such a device is paced by the host clock instead, as a card would pace it, so the
/// player's clock (the samples heard) still runs at real time.
///
/// The only holder of libasound's pointers; one writer thread at a time.
package final class ALSAStream {
    private let pcm: OpaquePointer
    package let device: String
    package let sampleRate: Int
    package let channels: Int
    /// The device's buffer, in frames.
    private let bufferFrames: Int
    /// Whether the device consumes faster than real time, and is paced by the host clock.
    private var hostPaced = false
    /// Host pacing: the host time the first frame since the last flush is heard, and the
    /// frames written since.
    private var origin = 0.0
    private var writtenSinceOrigin = 0
    /// Underruns: the device ran out of samples (an xrun, or a host-paced device written late).
    package private(set) var underruns = 0

    /// Opens `device` (`default`, `hw:0,0`, `plughw:1`, a PCM of the ALSA configuration) for
    /// playback of 32-bit float samples, resampled and converted by ALSA's `plug` layer
    /// where the hardware wants another format.
    /// - Parameters:
    ///   - device: the PCM's name.
    ///   - bufferDuration: how much sound the device may hold ahead.
    /// - Throws: ``ReelError`` `.deviceNotConnected` with ALSA's message when the PCM cannot
    ///   be opened or does not take the format.
    package init(
        device: String = "default", sampleRate: Int = 48000, channels: Int = 2,
        bufferDuration: Double = 0.1
    ) throws(ReelError) {
        _ = Self.quiet
        var handle: OpaquePointer?
        var status = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard status >= 0, let handle else {
            throw ReelError(.deviceNotConnected, "cannot open the ALSA PCM: \(Self.message(status))", subject: "ALSA \(device)")
        }
        let latency = UInt32(clamping: Int((min(max(bufferDuration, 0.02), 2) * 1_000_000).rounded()))
        status = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            UInt32(clamping: channels), UInt32(clamping: sampleRate), 1, latency)
        guard status >= 0 else {
            snd_pcm_close(handle)
            throw ReelError(
                .deviceNotConnected,
                "the ALSA PCM does not take \(channels) channels of float at \(sampleRate) Hz: "
                    + Self.message(status), subject: "ALSA \(device)")
        }
        var buffer: snd_pcm_uframes_t = 0
        var period: snd_pcm_uframes_t = 0
        _ = snd_pcm_get_params(handle, &buffer, &period)
        pcm = handle
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        bufferFrames = max(Int(clamping: buffer), sampleRate / 50)
    }

    deinit { snd_pcm_close(pcm) }

    /// libasound's own stderr lines off, once (its handler is process-wide).
    private static let quiet: Void = reel_asound_quiet()

    /// Writes interleaved samples (`frames × channels` floats), blocking until the device
    /// has taken them; an underrun is recovered from (and counted), not thrown.
    /// - Throws: ``ReelError`` `.io` with ALSA's message when the device fails for good.
    package func write(_ samples: [Float]) throws(ReelError) {
        let frames = samples.count / channels
        guard frames > 0 else { return }
        var done = 0
        while done < frames {
            let wrote = samples.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(pcm, buffer.baseAddress.map { $0 + done * channels }, snd_pcm_uframes_t(frames - done))
            }
            if wrote >= 0 {
                done += Int(wrote)
                continue
            }
            if wrote == -Int(EPIPE) { underruns += 1 }
            // An underrun (EPIPE) or a suspend (ESTRPIPE): prepare again and write on.
            let recovered = snd_pcm_recover(pcm, Int32(clamping: wrote), 1)
            guard recovered >= 0 else {
                throw ReelError(.io, "ALSA write failed: \(Self.message(Int32(clamping: wrote)))", subject: "ALSA \(device)")
            }
        }
        if !hostPaced, rawDelay() <= 0 {
            // Nothing waits right after a write: the PCM takes samples at once.
            hostPaced = true
            origin = Self.now()
            writtenSinceOrigin = 0
        }
        if hostPaced { paceByHost(frames) }
    }

    /// A device without a clock of its own: `frames` more are heard after those written,
    /// and the writer waits while more than a buffer's worth waits ahead of the host clock.
    private func paceByHost(_ frames: Int) {
        let now = Self.now()
        let heard = (now - origin) * Double(sampleRate)
        if heard > Double(writtenSinceOrigin) + 1 {
            // Written late: what was due went unheard; the sound goes on from now.
            if writtenSinceOrigin > 0 { underruns += 1 }
            origin = now - Double(writtenSinceOrigin) / Double(sampleRate)
        }
        writtenSinceOrigin += frames
        let ahead = Double(writtenSinceOrigin - bufferFrames) / Double(sampleRate) - (Self.now() - origin)
        if ahead > 0 { usleep(UInt32(min(ahead, 2) * 1_000_000)) }
    }

    /// How long the samples written so far take to be heard, in microseconds.
    package func latencyMicroseconds() -> UInt64 {
        if hostPaced {
            let waiting = Double(writtenSinceOrigin) / Double(sampleRate) - (Self.now() - origin)
            return UInt64(max(0, min(waiting, 10)) * 1_000_000)
        }
        let frames = max(0, rawDelay())
        return UInt64(frames) * 1_000_000 / UInt64(max(1, sampleRate))
    }

    /// Drops what was written and not yet played, so that what is written next is heard at once.
    package func flush() {
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
        origin = Self.now()
        writtenSinceOrigin = 0
    }

    /// Waits until all that was written has been played.
    package func drain() {
        if hostPaced {
            let waiting = Double(writtenSinceOrigin) / Double(sampleRate) - (Self.now() - origin)
            if waiting > 0 { usleep(UInt32(min(waiting, 10) * 1_000_000)) }
        }
        snd_pcm_drain(pcm)
    }

    private func rawDelay() -> Int {
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &delay) >= 0 else { return 0 }
        return Int(delay)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func message(_ code: Int32) -> String {
        guard let text = snd_strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

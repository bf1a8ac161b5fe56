import CPulse
package import ReelCore

/// A playback stream to a PulseAudio server: interleaved 32-bit float samples written in
/// order, each write blocking until the server has room (so a writer thread is paced by the
/// sound card), and the latency still to be heard. libpulse's simple API (`pa_simple`).
///
/// The only holder of libpulse's pointers; one writer thread at a time.
package final class PulseStream {
    private let handle: OpaquePointer
    package let sampleRate: Int
    package let channels: Int

    /// Connects to `server` (nil: `PULSE_SERVER`, else the user's) and opens a stream to
    /// `sink` (nil: the server's default sink).
    /// - Parameters:
    ///   - name: the application's name as the server shows it.
    ///   - bufferDuration: how much sound the server may hold ahead (its target length).
    /// - Throws: ``ReelError`` `.deviceNotConnected` with libpulse's message when there is no server.
    package init(name: String, server: String? = nil, sink: String? = nil, sampleRate: Int = 48000, channels: Int = 2, bufferDuration: Double = 0.1) throws(ReelError) {
        var spec = pa_sample_spec()
        spec.format = PA_SAMPLE_FLOAT32LE
        spec.rate = UInt32(clamping: sampleRate)
        spec.channels = UInt8(clamping: channels)
        let bytesPerSecond = Double(sampleRate * channels * 4)
        var attributes = pa_buffer_attr()
        attributes.maxlength = UInt32.max
        attributes.tlength = UInt32(clamping: Int((bytesPerSecond * min(max(bufferDuration, 0.01), 2)).rounded()))
        attributes.prebuf = 0 // start at once (a larger prebuf than the server grants tlength never starts)
        attributes.minreq = UInt32.max
        attributes.fragsize = UInt32.max
        var error: Int32 = 0
        guard let handle = pa_simple_new(server, name, PA_STREAM_PLAYBACK, sink, "playback", &spec, nil, &attributes, &error) else {
            throw ReelError(.deviceNotConnected, "no PulseAudio server: \(Self.message(error))", subject: "PulseAudio")
        }
        self.handle = handle
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { pa_simple_free(handle) }

    /// Writes interleaved samples (`frames × channels` floats), blocking until the server
    /// has taken them.
    package func write(_ samples: [Float]) throws(ReelError) {
        var error: Int32 = 0
        let result = samples.withUnsafeBytes { pa_simple_write(handle, $0.baseAddress, $0.count, &error) }
        guard result >= 0 else { throw ReelError(.io, "PulseAudio write failed: \(Self.message(error))", subject: "PulseAudio") }
    }

    /// How long the samples written so far take to be heard (the server's buffer and the
    /// sink's), in microseconds.
    package func latencyMicroseconds() -> UInt64 {
        var error: Int32 = 0
        let latency = pa_simple_get_latency(handle, &error)
        return latency == UInt64.max ? 0 : latency
    }

    /// Drops what was written and not yet played, so that what is written next is heard at once.
    package func flush() {
        var error: Int32 = 0
        _ = pa_simple_flush(handle, &error)
    }

    /// Waits until all that was written has been played.
    package func drain() {
        var error: Int32 = 0
        _ = pa_simple_drain(handle, &error)
    }

    private static func message(_ code: Int32) -> String {
        guard let text = pa_strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

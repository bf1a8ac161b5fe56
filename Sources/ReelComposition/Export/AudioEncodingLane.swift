import ReelAV
import ReelCore

/// Float audio in, AAC packets out to a muxer stream: buffers what comes in to the
/// encoder's frame size and numbers the frames by sample, so the stream has no gap.
final class AudioEncodingLane {
    private let encoder: Encoder
    private let stream: Int
    private let muxer: Muxer
    private let frame: Frame
    private let packet: Packet
    private var pending: AudioBuffer?
    private var sent: Int64 = 0

    init(channels: Int, muxer: Muxer) throws(ReelError) {
        var configuration = AudioEncoderConfiguration(encoderName: "aac", sampleRate: 48000,
                                                      channelLayout: .default(channels: channels), bitRate: 64_000 * channels)
        configuration.globalHeader = muxer.wantsGlobalHeader
        encoder = try Encoder(audio: configuration)
        stream = try muxer.addStream(for: encoder)
        self.muxer = muxer
        frame = try encoder.makeAudioFrame(samples: max(encoder.frameSize, 1024))
        packet = try Packet()
    }

    /// Samples written so far.
    var sampleCount: Int64 { sent + Int64(pending?.frameCount ?? 0) }

    func append(_ buffer: AudioBuffer) throws(ReelError) {
        if pending == nil { pending = buffer } else { try pending?.append(buffer) }
        let size = max(encoder.frameSize, 1024)
        while let buffer = pending, buffer.frameCount >= size {
            try send(buffer.slice(from: 0, count: size))
            pending = buffer.slice(from: size, count: buffer.frameCount - size)
        }
    }

    /// Encodes what is left and drains the encoder.
    func finish() throws(ReelError) {
        if let rest = pending, rest.frameCount > 0 { try send(rest) }
        pending = nil
        _ = try encoder.send(nil)
        try receive()
    }

    private func send(_ buffer: AudioBuffer) throws(ReelError) {
        try frame.copyAudio(from: buffer, offset: 0, count: buffer.frameCount)
        frame.presentationTimestamp = sent
        sent += Int64(buffer.frameCount)
        while try encoder.send(frame) == .needsInput { try receive() }
        try receive()
    }

    private func receive() throws(ReelError) {
        while try encoder.receive(into: packet) == .produced {
            try muxer.write(packet, streamIndex: stream)
        }
    }
}

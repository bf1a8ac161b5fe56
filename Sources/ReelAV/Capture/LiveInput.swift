import CFFmpeg
package import ReelCore

/// A live device opened through libavdevice (`pulse`, `alsa`, `x11grab`, `video4linux2`)
/// with its decoder: sound comes out resampled to the session's 48 kHz mono float,
/// pictures as yuv420p at the device's own size. Reads block until the device has data,
/// so a capture device runs one of these on a thread of its own.
package final class LiveInput {
    package let subject: String
    package let mediaType: MediaType
    package let width: Int
    package let height: Int
    private let demuxer: Demuxer
    private let decoder: Decoder
    private let streamIndex: Int
    private let packet: Packet
    private let frame: Frame
    private let scaler = Scaler()
    private let resampler: Resampler

    /// The sample rate every live microphone is delivered at.
    package static let sampleRate = 48000

    /// Opens `url` with the device input `inputFormat` and its private `options`.
    /// - Throws: ``ReelError`` with FFmpeg's message about `subject` (the device ID), or
    ///   `.unsupported` when the device gives no stream of `mediaType`.
    package init(url: String, inputFormat: String, options: [String: String], subject: String,
                 mediaType: MediaType) throws(ReelError) {
        demuxer = try Demuxer(device: url, inputFormat: inputFormat, options: options, subject: subject)
        guard let stream = demuxer.streams.first(where: { $0.mediaType == mediaType }) else {
            throw ReelError(.unsupported, "the device gives no \(mediaType)", subject: subject)
        }
        self.subject = subject
        self.mediaType = mediaType
        streamIndex = stream.index
        width = stream.width
        height = stream.height
        // One thread: frame threading would hold back frames, which a live source cannot afford.
        decoder = try Decoder(demuxer: demuxer, streamIndex: stream.index, threads: 1)
        packet = try Packet()
        frame = try Frame()
        resampler = try Resampler(output: AudioFormat(sampleFormat: .floatPlanar, sampleRate: Self.sampleRate,
                                                      channelLayout: .mono))
    }

    /// The next stretch of sound, 48 kHz mono float planar; nil when the device ends.
    /// - Throws: ``ReelError`` when the device fails (unplugged, server gone).
    package func readAudio() throws(ReelError) -> AudioBuffer? {
        guard try decodeNext() else { return nil }
        return try resampler.convert(frame)
    }

    /// The next picture, converted into a new yuv420p buffer at the device's size; nil when
    /// the device ends.
    /// - Throws: ``ReelError`` when the device fails.
    package func readPicture() throws(ReelError) -> PixelBuffer? {
        guard try decodeNext() else { return nil }
        let picture = try PixelBuffer(width: frame.width & ~1, height: frame.height & ~1, pixelFormat: .yuv420p)
        try scaler.convert(frame, into: picture)
        return picture
    }

    private func decodeNext() throws(ReelError) -> Bool {
        while true {
            if try decoder.receive(into: frame) == .produced { return true }
            guard try demuxer.read(into: packet) else { return false }
            guard packet.streamIndex == streamIndex else { continue }
            do throws(ReelError) {
                _ = try decoder.send(packet)
            } catch {
                throw error.about(subject)
            }
        }
    }

    /// The sources libavdevice lists for `inputFormat` (`avdevice_list_input_sources`):
    /// names and descriptions, with the default first. Empty where the input lists none.
    package static func sources(inputFormat: String) -> [(name: String, description: String)] {
        FFmpeg.prepare()
        guard let devices = try? DeviceLibrary.load(), let format = av_find_input_format(inputFormat) else { return [] }
        var list: UnsafeMutablePointer<AVDeviceInfoList>?
        defer { devices.freeListDevices(&list) }
        guard devices.listInputSources(format, nil, nil, &list) >= 0, let list else { return [] }
        var found: [(name: String, description: String)] = []
        for index in 0..<Int(list.pointee.nb_devices) {
            guard let info = list.pointee.devices[index], let name = FFmpeg.string(info.pointee.device_name) else { continue }
            let entry = (name: name, description: FFmpeg.string(info.pointee.device_description) ?? name)
            if index == Int(list.pointee.default_device) { found.insert(entry, at: 0) } else { found.append(entry) }
        }
        return found
    }
}

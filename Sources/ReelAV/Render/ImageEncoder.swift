import CFFmpeg
package import ReelCore

/// Encodes one picture as a PNG or JPEG file's bytes with FFmpeg's `png` and
/// `mjpeg` encoders.
package enum ImageEncoder {
    /// PNG bytes of `buffer` (converted to RGBA or RGB first).
    package static func png(_ buffer: PixelBuffer) throws(ReelError) -> [UInt8] {
        let format: PixelFormat = buffer.pixelFormat == .rgba || buffer.pixelFormat == .bgra ? .rgba : .rgb24
        return try encode(buffer, encoder: "png", format: format, quality: nil)
    }

    /// JPEG bytes of `buffer`; `quality` 1 (best) … 31 (smallest), FFmpeg's qscale.
    package static func jpeg(_ buffer: PixelBuffer, quality: Int = 3) throws(ReelError) -> [UInt8] {
        try encode(buffer, encoder: "mjpeg", format: PixelFormat(rawValue: "yuvj420p"), quality: quality)
    }

    private static func encode(_ buffer: PixelBuffer, encoder name: String, format: PixelFormat,
                               quality: Int?) throws(ReelError) -> [UInt8] {
        var configuration = VideoEncoderConfiguration(encoderName: name, width: buffer.width, height: buffer.height,
                                                      pixelFormat: format, timeBase: Rational(1, 25))
        configuration.quality = quality
        configuration.fullRange = name == "mjpeg"
        configuration.threads = 1
        let encoder = try Encoder(video: configuration)
        let frame = try encoder.makeVideoFrame()
        try Scaler().convert(buffer, into: frame)
        frame.presentationTimestamp = 0
        _ = try encoder.send(frame)
        _ = try encoder.send(nil)
        let packet = try Packet()
        var bytes: [UInt8] = []
        while try encoder.receive(into: packet) == .produced {
            if let data = packet.pointer.pointee.data {
                bytes += UnsafeBufferPointer(start: data, count: packet.size)
            }
        }
        guard !bytes.isEmpty else {
            throw ReelError(.ffmpeg, "the \(name) encoder produced nothing", operation: "avcodec_receive_packet")
        }
        return bytes
    }
}

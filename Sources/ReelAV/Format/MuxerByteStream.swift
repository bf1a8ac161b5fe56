import CFFmpeg
package import Foundation
package import ReelCore

/// Where a ``Muxer`` writes when its output is not a file: an `AVIOContext` whose bytes
/// reach ``onBytes`` with FFmpeg's data markers (`AVIO_DATA_MARKER_*`, set through the
/// context's `write_data_type`), so that a segmenter knows where each fragment starts
/// without reading the boxes back. The context is not seekable, which is what FFmpeg's
/// MP4 muxer needs to know to write fragments forward only.
package final class MuxerByteStream: @unchecked Sendable {
    /// What a run of bytes is, as the muxer marked it.
    package enum Marker: Sendable, Equatable {
        /// Bytes before any marker, or the rest of a run after a buffer-full flush.
        case unknown
        /// The file's header (an MP4's ftyp and moov).
        case header
        /// The start of a fragment whose first picture is a keyframe, at `time`.
        case syncPoint(time: MediaTime?)
        /// The start of a fragment that does not start with a keyframe.
        case boundaryPoint(time: MediaTime?)
        /// The trailer.
        case trailer
    }

    /// Called with each run of bytes on the thread that writes to the muxer.
    package typealias Receiver = (Data, Marker) -> Void

    let io: UnsafeMutablePointer<AVIOContext>
    private let receiver: Receiver

    /// - Parameter receiver: Takes each run of bytes and what it starts with.
    package init(receiver: @escaping Receiver) throws(ReelError) {
        self.receiver = receiver
        let size = 64 * 1024
        guard let buffer = av_malloc(size) else {
            throw ReelError(.outOfMemory, "cannot allocate the output buffer", operation: "av_malloc")
        }
        guard
            let context = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 1, nil, nil,
                { opaque, bytes, count in
                    MuxerByteStream.deliver(
                        opaque, bytes, count, AVIO_DATA_MARKER_UNKNOWN,
                        Int64(bitPattern: 0x8000_0000_0000_0000))
                }, nil)
        else {
            av_free(buffer)
            throw ReelError(.outOfMemory, "cannot allocate the output context", operation: "avio_alloc_context")
        }
        io = context
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.seekable = 0
        context.pointee.write_data_type = { opaque, bytes, count, type, time in
            MuxerByteStream.deliver(opaque, bytes, count, type, time)
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVIOContext>? = io
        av_freep(&io.pointee.buffer)
        avio_context_free(&context)
    }

    /// Hands what the muxer has buffered to the receiver.
    package func flush() { avio_flush(io) }

    private static func deliver(
        _ opaque: UnsafeMutableRawPointer?, _ bytes: UnsafeMutablePointer<UInt8>?, _ count: Int32,
        _ type: AVIODataMarkerType, _ time: Int64
    ) -> Int32 {
        guard let opaque, let bytes, count > 0 else { return 0 }
        let stream = Unmanaged<MuxerByteStream>.fromOpaque(opaque).takeUnretainedValue()
        let moment = time == Int64(bitPattern: 0x8000_0000_0000_0000) ? nil : MediaTime(value: time, timescale: 1_000_000)
        let marker: Marker
        switch type {
        case AVIO_DATA_MARKER_HEADER: marker = .header
        case AVIO_DATA_MARKER_SYNC_POINT: marker = .syncPoint(time: moment)
        case AVIO_DATA_MARKER_BOUNDARY_POINT: marker = .boundaryPoint(time: moment)
        case AVIO_DATA_MARKER_TRAILER: marker = .trailer
        default: marker = .unknown
        }
        stream.receiver(Data(bytes: bytes, count: Int(count)), marker)
        return count
    }
}

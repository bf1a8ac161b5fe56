import CFFmpeg
package import ReelCore

/// An owned `AVPacket`: one compressed frame. Reused across reads; `av_packet_unref`
/// between uses, `av_packet_free` in `deinit`.
package final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    package init() throws(ReelError) {
        guard let packet = av_packet_alloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a packet", operation: "av_packet_alloc")
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    package var streamIndex: Int { Int(pointer.pointee.stream_index) }
    package var presentationTimestamp: Int64 { pointer.pointee.pts }
    package var decodeTimestamp: Int64 { pointer.pointee.dts }
    package var durationTicks: Int64 { pointer.pointee.duration }
    package var size: Int { Int(pointer.pointee.size) }
    package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// Whether the demuxer marks the payload as damaged or cut short (`AV_PKT_FLAG_CORRUPT`).
    package var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
    /// Byte offset in the file, or -1.
    package var position: Int64 { pointer.pointee.pos }

    /// Drops the payload, keeping the allocation.
    package func reset() { av_packet_unref(pointer) }

    /// Re-expresses the timestamps from one time base in another. `av_packet_rescale_ts`.
    package func rescale(from source: Rational, to target: Rational) {
        av_packet_rescale_ts(pointer, source.av, target.av)
    }

    /// Sets the stream the packet belongs to in an output.
    package func setStreamIndex(_ index: Int) { pointer.pointee.stream_index = Int32(index) }

    /// Moves every timestamp by `ticks`.
    package func shift(by ticks: Int64) {
        if pointer.pointee.pts != FFmpeg.noTimestamp { pointer.pointee.pts += ticks }
        if pointer.pointee.dts != FFmpeg.noTimestamp { pointer.pointee.dts += ticks }
    }
}

extension Packet {
    /// A new packet holding a reference to the same payload. `av_packet_clone`.
    package func clone() throws(ReelError) -> Packet {
        let copy = try Packet()
        try FFmpeg.check(av_packet_ref(copy.pointer, pointer), "av_packet_ref")
        return copy
    }
}

extension Packet {
    /// Sets the packet's duration in its current time base.
    package func setDuration(_ ticks: Int64) { pointer.pointee.duration = ticks }
}

extension Packet {
    /// Whether the demuxer marks the packet as needed only to decode others, not to be shown
    /// (`AV_PKT_FLAG_DISCARD`): what a source's edit list hides before its start or after its end.
    package var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }

    /// Clears the discard mark, for a copy whose own edit list does the hiding.
    package func clearDiscarded() { pointer.pointee.flags &= ~AV_PKT_FLAG_DISCARD }

    /// Sets the presentation and decode timestamps (in the packet's current time base).
    package func setTimestamps(presentation: Int64, decode: Int64) {
        pointer.pointee.pts = presentation
        pointer.pointee.dts = decode
    }
}

import CFFmpeg
package import ReelCore

extension Muxer {
    /// Adds a stream that carries `demuxer`'s stream `index` unchanged (stream copy), with
    /// that stream's time base. Returns the new stream's index.
    package func addStream(copying demuxer: Demuxer, streamIndex index: Int) throws(ReelError) -> Int {
        guard let source = demuxer.codecParameters(ofStream: index) else {
            throw ReelError(.invalidArgument, "no stream \(index)", subject: demuxer.path)
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw ReelError(.outOfMemory, "cannot add a stream", subject: path, operation: "avformat_new_stream")
        }
        try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, source), "avcodec_parameters_copy", subject: path)
        stream.pointee.codecpar.pointee.codec_tag = 0 // let the muxer pick the tag its format wants
        stream.pointee.time_base = demuxer.streams[index].timeBase.av
        return Int(stream.pointee.index)
    }

    /// Writes a copied packet: its timestamps, in `source` time base, are moved by `offset`
    /// and rescaled to the output stream's time base. `join` carries, per output stream, the
    /// last timestamp written and the nudge of the current clip: a clip whose first packet
    /// would go back in time (AAC's priming samples start before zero) is moved later by
    /// just enough to keep decode timestamps increasing.
    package func writeCopy(_ packet: Packet, streamIndex: Int, source: Rational, offset: MediaTime,
                           join: inout StreamJoin) throws(ReelError) {
        packet.shift(by: source.timestamp(offset))
        packet.setStreamIndex(streamIndex)
        packet.pointer.pointee.pos = -1
        packet.rescale(from: source, to: timeBase(ofStream: streamIndex))
        let dts = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
        if join.nudge[streamIndex] == nil {
            let last = join.last[streamIndex] ?? Int64.min
            join.nudge[streamIndex] = last == Int64.min || dts > last ? 0 : last + 1 - dts
        }
        packet.shift(by: join.nudge[streamIndex] ?? 0)
        join.last[streamIndex] = max(join.last[streamIndex] ?? Int64.min, dts + (join.nudge[streamIndex] ?? 0))
        try writeRaw(packet)
    }
}

extension Muxer {
    /// Writes a copied packet with every timestamp and its duration multiplied by
    /// `stretch` (4/1 plays four times as slow), in the stream's own time base.
    package func writeStretched(_ packet: Packet, streamIndex: Int, source: Rational, stretch: Rational) throws(ReelError) {
        let p = packet.pointer
        func scaled(_ value: Int64) -> Int64 {
            value == FFmpeg.noTimestamp ? value
                : av_rescale(value, Int64(stretch.numerator), Int64(stretch.denominator))
        }
        p.pointee.pts = scaled(p.pointee.pts)
        p.pointee.dts = scaled(p.pointee.dts)
        p.pointee.duration = scaled(p.pointee.duration)
        packet.setStreamIndex(streamIndex)
        p.pointee.pos = -1
        packet.rescale(from: source, to: timeBase(ofStream: streamIndex))
        try writeRaw(packet)
    }
}

/// What ``Muxer/writeCopy(_:streamIndex:source:offset:join:)`` remembers between packets.
package struct StreamJoin {
    var last: [Int: Int64] = [:]
    var nudge: [Int: Int64] = [:]

    package init() {}

    /// Call at the start of each clip.
    package mutating func beginClip() { nudge.removeAll() }
}

extension Demuxer {
    /// The first coding parameter in which stream `index` differs from `other`'s stream
    /// `otherIndex`, described for a person (`width 1276, not 1280`), or nil when a stream
    /// copy can join them.
    package func parameterDifference(stream index: Int, from other: Demuxer, stream otherIndex: Int) -> String? {
        guard let a = codecParameters(ofStream: index)?.pointee, let b = other.codecParameters(ofStream: otherIndex)?.pointee else {
            return "a missing stream"
        }
        if a.codec_id != b.codec_id {
            return "codec \(FFmpeg.string(avcodec_get_name(a.codec_id)) ?? "?"), not \(FFmpeg.string(avcodec_get_name(b.codec_id)) ?? "?")"
        }
        if a.width != b.width { return "width \(a.width), not \(b.width)" }
        if a.height != b.height { return "height \(a.height), not \(b.height)" }
        if a.format != b.format { return "pixel or sample format \(a.format), not \(b.format)" }
        if a.sample_rate != b.sample_rate { return "sample rate \(a.sample_rate), not \(b.sample_rate)" }
        if a.ch_layout.nb_channels != b.ch_layout.nb_channels {
            return "\(a.ch_layout.nb_channels) channels, not \(b.ch_layout.nb_channels)"
        }
        if a.profile != b.profile { return "profile \(a.profile), not \(b.profile)" }
        let sameExtra = a.extradata_size == b.extradata_size
            && (a.extradata_size == 0 || memcmp(a.extradata, b.extradata, Int(a.extradata_size)) == 0)
        if !sameExtra { return "codec set-up data (extradata: SPS/PPS) that differs" }
        return nil
    }
}

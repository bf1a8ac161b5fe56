import CFFmpeg
package import ReelCore

/// Where one stream's packets put it on the timeline: what a player presents of it.
package struct PacketExtent: Sendable {
    /// The first presented instant: the earliest timestamp, after the samples a packet asks
    /// to skip (AAC priming behind an edit list).
    package var start: MediaTime
    /// The last presented instant: the latest timestamp plus duration, less any padding a
    /// packet asks to discard.
    package var end: MediaTime
    /// How many packets the stream has.
    package var count: Int
    /// The longest packet: a video frame's or an audio frame's duration.
    package var longestPacket: MediaTime
}

extension Demuxer {
    /// Whether the header leaves the length of the file unsaid: no container duration and
    /// an audio or video stream without one. A WebM that a browser's MediaRecorder wrote, or
    /// any Matroska written to a pipe, arrives like this (the muxer could not go back to fill
    /// the duration in), and FFmpeg's own estimate from the bit rate is a few milliseconds.
    package var lacksDuration: Bool {
        guard !duration.isNumeric else { return false }
        return streams.contains { ($0.mediaType == .video || $0.mediaType == .audio) && !$0.duration.isNumeric }
    }

    /// Each stream's extent from its packets' timestamps, in one pass that reads every packet
    /// without decoding, and leaves the demuxer at the end of the file. Nil for a stream
    /// without a timed packet.
    /// - Throws: ``ReelError`` for a read error partway (a damaged file), about the path.
    package func packetExtents() throws(ReelError) -> [PacketExtent?] {
        var first = [Int64?](repeating: nil, count: streams.count)
        var end = [Int64?](repeating: nil, count: streams.count)
        var counts = [Int](repeating: 0, count: streams.count)
        var longest = [Int64](repeating: 0, count: streams.count)
        // Packets stored without a duration (an MP4's video, as FFmpeg reads it) last the
        // stream's usual interval: their timestamps are kept to find it.
        var undated = [[Int64]](repeating: [], count: streams.count)
        var timestamps = [[Int64]](repeating: [], count: streams.count)
        let packet = try Packet()
        while try read(into: packet) {
            let index = packet.streamIndex
            guard streams.indices.contains(index) else { continue }
            counts[index] += 1
            let pts = packet.presentationTimestamp != FFmpeg.noTimestamp ? packet.presentationTimestamp : packet.decodeTimestamp
            guard pts != FFmpeg.noTimestamp else { continue }
            let duration = max(packet.durationTicks, 0)
            longest[index] = max(longest[index], duration)
            if duration == 0 {
                undated[index].append(pts)
                timestamps[index].append(pts)
            } else if !undated[index].isEmpty {
                timestamps[index].append(pts)
            }
            let (skip, discard) = trimmedTicks(packet, stream: streams[index])
            let (shown, startOverflow) = pts.addingReportingOverflow(min(skip, duration))
            let (last, endOverflow) = pts.addingReportingOverflow(duration - min(discard, duration))
            guard !startOverflow, !endOverflow else { continue }
            first[index] = min(first[index] ?? shown, shown)
            end[index] = max(end[index] ?? last, last)
        }
        // (Not in a movie starting after zero, whose header gives an end time as a duration.)
        let stored = formatName.hasPrefix("mov,") && !startsAfterZero
        for index in streams.indices where !undated[index].isEmpty {
            let sorted = timestamps[index].sorted()
            let intervals = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.filter { $0 > 0 }.sorted()
            guard !intervals.isEmpty else { continue }
            let usual = intervals[intervals.count / 2]
            longest[index] = max(longest[index], usual)
            for pts in undated[index] where pts <= Int64.max - usual { end[index] = max(end[index] ?? pts, pts + usual) }
            // An MP4 stores every sample's duration (FFmpeg leaves it off packets with a
            // composition offset): the track ends where its samples' durations add up to,
            // so the last picture lasts what the file says, not a usual interval.
            if stored, let last = undated[index].max(), last == sorted.last, let trackEnd = storedTrackEnd(index, firstShown: max(first[index] ?? 0, 0)),
               trackEnd > last {
                end[index] = trackEnd
            }
        }
        return streams.map { stream in
            let index = stream.index
            guard streams.indices.contains(index), let start = first[index], let last = end[index] else { return nil }
            return PacketExtent(start: stream.timeBase.time(start), end: stream.timeBase.time(last), count: counts[index],
                                longestPacket: stream.timeBase.time(longest[index]))
        }
    }

    /// Where an MP4 track's stored samples end, in its ticks: its first presented instant
    /// (the header's, else `firstShown`) plus the duration its header gives (the sum of its
    /// samples' durations, as its edit list presents them). Nil without a duration.
    private func storedTrackEnd(_ index: Int, firstShown: Int64) -> Int64? {
        guard let stream = context.pointee.streams[index] else { return nil }
        let duration = stream.pointee.duration
        let start = stream.pointee.start_time != FFmpeg.noTimestamp ? stream.pointee.start_time : firstShown
        guard duration > 0 else { return nil }
        let (end, overflow) = start.addingReportingOverflow(duration)
        return overflow ? nil : end
    }

    /// Whether the header's lengths cannot be trusted because the file is an MP4 or
    /// QuickTime movie whose audio or video starts well after zero: a fragmented file cut
    /// from a longer one (an HLS or DASH media segment after its initialization segment).
    /// FFmpeg gives such a track's end time (the last fragment's decode end) as its
    /// duration, so a 4 s segment at 8 s reads as 12 s long, and the container's duration
    /// likewise. Ordinary movies start at zero (or within AAC priming of it).
    package var startsAfterZero: Bool {
        guard formatName.hasPrefix("mov,") else { return false }
        let late = MediaTime(value: 1, timescale: 10)
        return streams.contains {
            ($0.mediaType == .video || $0.mediaType == .audio) && $0.startTime.isNumeric && $0.startTime > late
        }
    }

    /// The streams as their packets describe them, for a file whose header does not say
    /// (``lacksDuration``): `startTime`, `duration` and `frameCount` filled in from
    /// ``packetExtents()`` wherever the header left them out, or, when `replacing` (a header
    /// that cannot be trusted, ``startsAfterZero``), taken from the packets throughout.
    /// - Parameter replacing: Whether the packets' start and length replace the header's.
    /// - Throws: ``ReelError`` for a read error partway (a damaged file), about the path.
    package func streamsMeasuredFromPackets(replacing: Bool = false) throws(ReelError) -> [StreamInfo] {
        let extents = try packetExtents()
        return streams.map { stream in
            var measured = stream
            guard extents.indices.contains(stream.index), let extent = extents[stream.index] else { return measured }
            if replacing {
                measured.startTime = extent.start
                measured.duration = .invalid
            }
            if !measured.startTime.isNumeric { measured.startTime = extent.start }
            if !measured.duration.isNumeric {
                let length = extent.end - measured.startTime
                if length.isNumeric, length > .zero { measured.duration = length }
            }
            if measured.frameCount == 0 { measured.frameCount = extent.count }
            return measured
        }
    }

    /// The samples an audio packet asks to skip at its start and discard at its end
    /// (`AV_PKT_DATA_SKIP_SAMPLES`), in the stream's ticks.
    private func trimmedTicks(_ packet: Packet, stream: StreamInfo) -> (skip: Int64, discard: Int64) {
        guard stream.mediaType == .audio, stream.sampleRate > 0, stream.timeBase.isPositive else { return (0, 0) }
        var size = 0
        guard let data = av_packet_get_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else {
            return (0, 0)
        }
        let bytes = UnsafeRawPointer(data)
        let skip = Int64(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        let discard = Int64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        // samples / rate seconds = ticks × num / den
        let scale = Int64(stream.timeBase.denominator), rate = Int64(stream.sampleRate) * Int64(stream.timeBase.numerator)
        return (skip * scale / rate, discard * scale / rate)
    }
}

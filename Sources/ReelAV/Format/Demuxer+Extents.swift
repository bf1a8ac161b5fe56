import CFFmpeg
package import ReelCore

extension Demuxer {
    /// Whether the header leaves the length of the file unsaid: no container duration and
    /// an audio or video stream without one. A WebM that a browser's MediaRecorder wrote, or
    /// any Matroska written to a pipe, arrives like this (the muxer could not go back to fill
    /// the duration in), and FFmpeg's own estimate from the bit rate is a few milliseconds.
    package var lacksDuration: Bool {
        guard !duration.isNumeric else { return false }
        return streams.contains { ($0.mediaType == .video || $0.mediaType == .audio) && !$0.duration.isNumeric }
    }

    /// The streams as their packets describe them: each stream's first presentation time,
    /// the end of its last packet (timestamp plus duration, the latest over the stream, so
    /// reordered frames count where they show) and its packet count, for a file whose header
    /// does not say (``lacksDuration``). Reads every packet once, without decoding, and
    /// leaves the demuxer at the end of the file: open another to read samples.
    /// - Returns: ``streams`` with `startTime`, `duration` and `frameCount` filled in from
    ///   the packets wherever the header left them out.
    /// - Throws: ``ReelError`` for a read error partway (a damaged file), about the path.
    package func streamsMeasuredFromPackets() throws(ReelError) -> [StreamInfo] {
        var first = [Int64?](repeating: nil, count: streams.count)
        var end = [Int64?](repeating: nil, count: streams.count)
        var counts = [Int](repeating: 0, count: streams.count)
        let packet = try Packet()
        while try read(into: packet) {
            let index = packet.streamIndex
            guard streams.indices.contains(index) else { continue }
            counts[index] += 1
            let pts = packet.presentationTimestamp != FFmpeg.noTimestamp ? packet.presentationTimestamp : packet.decodeTimestamp
            guard pts != FFmpeg.noTimestamp else { continue }
            first[index] = min(first[index] ?? pts, pts)
            let (last, overflow) = pts.addingReportingOverflow(max(packet.durationTicks, 0))
            guard !overflow else { continue }
            end[index] = max(end[index] ?? last, last)
        }
        return streams.map { stream in
            var measured = stream
            let index = stream.index
            guard streams.indices.contains(index) else { return measured }
            if !measured.startTime.isNumeric, let start = first[index] { measured.startTime = stream.timeBase.time(start) }
            if !measured.duration.isNumeric, let last = end[index] {
                let start = measured.startTime.isNumeric ? measured.startTime : .zero
                let length = stream.timeBase.time(last) - start
                if length.isNumeric, length > .zero { measured.duration = length }
            }
            if measured.frameCount == 0 { measured.frameCount = counts[index] }
            return measured
        }
    }
}

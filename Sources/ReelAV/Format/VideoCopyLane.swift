package import ReelCore

/// Copies a video stream from clip after clip into one output stream without decoding,
/// and plans the edit list that shows of each clip exactly its range.
///
/// Each clip's packets are laid end to end in the output's media, from the keyframe its
/// range needs to the keyframe after its range, including what the source's own edit list
/// hides (frames before a cut point that the first shown frame is predicted from, frames
/// past the end). One edit-list entry per clip then shows the range and nothing else, so
/// hidden frames stay hidden in the middle of a join, where a single-entry edit list
/// (all FFmpeg's muxer can write) would show them.
package final class VideoCopyLane {
    private let muxer: Muxer
    package let streamIndex: Int
    private let packet: Packet
    /// Where the media copied so far ends, in the output stream's time base.
    private var mediaEnd: Int64 = 0
    package private(set) var edits: [EditListEntry] = []
    /// Packets copied, hidden ones included.
    package private(set) var packetCount = 0

    package init(muxer: Muxer, streamIndex: Int) throws(ReelError) {
        self.muxer = muxer
        self.streamIndex = streamIndex
        packet = try Packet()
    }

    /// Where the timeline shown so far ends.
    package var end: MediaTime { edits.last?.end ?? .zero }

    /// Copies what `range` of `demuxer`'s stream `stream` needs and shows that range at
    /// `target` on the output's timeline (after a gap, when `target` is later than ``end``).
    /// Call after the muxer's header is written. Other streams of `demuxer` are skipped.
    /// - Parameters:
    ///   - range: source times, as the asset layer reports them (the source's edit list applied).
    ///   - trackRange: what the source track shows (its `timeRange`): before its start
    ///     nothing shows (an empty edit); past its end the last picture holds, or nothing
    ///     shows where the source hides frames after its end.
    ///   - onPacket: called after each packet with the output time it is shown at, so that
    ///     the caller can write other streams up to there and the file interleaves.
    /// - Throws: ``ReelError`` when `target` is before ``end``, the range holds no packet,
    ///   or reading or writing fails.
    package func copy(from demuxer: Demuxer, stream: Int, range: MediaTimeRange, at target: MediaTime,
                      trackRange: MediaTimeRange? = nil,
                      onPacket: (MediaTime) throws(ReelError) -> Void = { _ throws(ReelError) in }) throws(ReelError) {
        guard target >= end else {
            throw ReelError(.invalidArgument, "starts at \(target.seconds) s, before the clip before ends", subject: demuxer.path)
        }
        for index in demuxer.streams.indices { demuxer.setDiscarded(index != stream, streamIndex: index) }
        if range.start > .zero {
            guard try demuxer.seek(streamIndex: stream, to: range.start) else {
                throw ReelError(.invalidData, "has no keyframe to start the copy from", subject: demuxer.path)
            }
        }
        let source = demuxer.streams[stream].timeBase
        let output = muxer.timeBase(ofStream: streamIndex)
        let endTicks = source.timestamp(range.end)
        // Where the range starts before the track's first picture (a track that starts late,
        // such as video after AAC priming in a remuxed Matroska file), the edit list shows
        // nothing until it. (Leaving room in the media for the clip before to hold its last
        // picture instead puts the clip 21 ms early in FFmpeg's reading, which counts frame
        // durations across an entry and skips the room.)
        var lead = trackRange.map { max(.zero, min($0.start - range.start, range.duration)) } ?? .zero
        let startTicks = source.timestamp(range.start)
        // The pictures on either side of the range's start, and the shortest step between
        // pictures: a start in a gap (a camera that dropped frames there) is found after the copy.
        var before = Int64.min, after = Int64.max
        var shownTimes: [Int64] = []
        var offset: Int64?
        var presentationEnd = Int64.min
        var lastDecode = Int64.min
        var lastStep: Int64 = 0
        while try demuxer.read(into: packet) {
            guard packet.streamIndex == stream else { continue }
            let pts = packet.presentationTimestamp, dts = packet.decodeTimestamp
            // A keyframe at or past the range's end starts a group of pictures the range does not need.
            if offset != nil, packet.isKeyframe, pts != FFmpeg.noTimestamp, pts >= endTicks { break }
            guard pts != FFmpeg.noTimestamp || dts != FFmpeg.noTimestamp else { continue }
            if pts != FFmpeg.noTimestamp {
                if pts < startTicks { before = max(before, pts) } else { after = min(after, pts) }
                shownTimes.append(pts)
            }
            packet.rescale(from: source, to: output)
            let decode = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
            let presentation = packet.presentationTimestamp != FFmpeg.noTimestamp ? packet.presentationTimestamp : decode
            // The clip's media starts where the last clip's ended. Timestamps come from the file:
            // sums that do not fit 64 bits are a damaged file, not a trap.
            let (shift, o1) = offset.map { ($0, false) } ?? mediaEnd.subtractingReportingOverflow(decode)
            let (placed, o2) = decode.addingReportingOverflow(shift)
            let (shownAt, o3) = presentation.addingReportingOverflow(shift)
            let duration = packet.durationTicks > 0 ? packet.durationTicks : lastStep
            let (shownUntil, o4) = shownAt.addingReportingOverflow(duration)
            guard !(o1 || o2 || o3 || o4) else {
                throw ReelError(.invalidData, "has timestamps out of range near \(source.time(pts).seconds) s", subject: demuxer.path)
            }
            offset = shift
            guard placed > lastDecode else { continue } // a repeated decode time cannot be stored
            if lastDecode != Int64.min { lastStep = placed &- lastDecode }
            lastDecode = placed
            packet.setTimestamps(presentation: shownAt, decode: placed)
            // A fragmented file's packets may come without durations; the muxer would end the
            // last picture at its start (a frame short), so each gets the step before it.
            if packet.durationTicks <= 0, duration > 0 { packet.setDuration(duration) }
            presentationEnd = max(presentationEnd, shownUntil)
            packet.clearDiscarded()
            packet.setStreamIndex(streamIndex)
            packet.pointer.pointee.pos = -1
            try muxer.writeRaw(packet)
            packetCount += 1
            let shown = output.time(shownAt) - output.time(shift) - range.start
            try onPacket(target + max(.zero, min(shown, range.duration)))
        }
        guard let offset else {
            throw ReelError(.invalidData, "holds no video packet in \(range.start.seconds)–\(range.end.seconds) s",
                            subject: demuxer.path)
        }
        // A start inside a gap between pictures (longer than one and a half of the stream's
        // shortest step: frames the camera dropped): FFmpeg's reading shows the first picture
        // after the start at the start (it moves the first shown picture to zero), which put a
        // replay's pictures 100 ms ahead of its sound. Nothing shows until that picture instead,
        // as for a track that starts late, so every reader places it at its own time.
        shownTimes.sort()
        let step = zip(shownTimes, shownTimes.dropFirst()).map { $1 &- $0 }.filter { $0 > 0 }.min()
        if let step, before != Int64.min, after != Int64.max, after > startTicks,
           Double(after) - Double(before) > 1.5 * Double(step) {
            lead = max(lead, min(source.time(after) - range.start, range.duration))
        }
        if target > end { edits.append(EditListEntry(start: end, end: target, mediaStart: nil)) }
        // The range in the output's media. Where it runs past the clip's last picture (a clip
        // whose sound outlasts it), the next clip's media starts later, so that picture holds;
        // where the source hides pictures after its end, they cannot hold, and the rest is a gap.
        let mediaStart = range.start + output.time(offset)
        let slack = MediaTime(value: 1, timescale: 1000)
        let trackEnd = trackRange.map { max($0.end, range.start) } ?? range.end
        let shownEnd = range.start + output.time(presentationEnd) - mediaStart
        let holds = range.end <= trackEnd + slack || shownEnd <= trackEnd + slack
        let mediaDuration = holds ? range.duration : trackEnd - range.start
        let holdEnd = output.timestamp(mediaStart + mediaDuration, method: .roundTowardPositiveInfinity)
        mediaEnd = max(lastDecode &+ max(lastStep, 1), presentationEnd, holdEnd)
        lastPictureEnd = output.time(presentationEnd)
        let gap = min(lead, max(mediaDuration, .zero))
        if gap > .zero { edits.append(EditListEntry(start: target, end: target + gap, mediaStart: nil)) }
        if mediaDuration > gap {
            edits.append(EditListEntry(start: target + gap, end: target + mediaDuration, mediaStart: mediaStart + gap))
        }
        if mediaDuration < range.duration {
            edits.append(EditListEntry(start: target + mediaDuration, end: target + range.duration, mediaStart: nil))
        }
    }

    /// The end of the last clip's media, past which nothing can hold its picture.
    private var lastPictureEnd: MediaTime = .zero

    /// Ends the timeline: the last clip can hold no picture past its media (no clip follows
    /// to leave room for it), so its entry ends with its last picture. Returns the end.
    @discardableResult
    package func finishTimeline() -> MediaTime {
        if var last = edits.last, let media = last.mediaStart, media + (last.end - last.start) > lastPictureEnd {
            last.end = last.start + max(.zero, lastPictureEnd - media)
            edits[edits.count - 1] = last
            if last.end <= last.start { edits.removeLast() }
        }
        return end
    }

    /// Writes the planned edit list into the finished file at `path` (after the muxer's
    /// trailer and ``finishTimeline()``), placing the index in front when `indexFirst`.
    package func writeEdits(to path: String, indexFirst: Bool) throws(ReelError) {
        finishTimeline()
        try MovieIndex.rewrite(path, edits: [streamIndex: edits], indexFirst: indexFirst)
    }
}

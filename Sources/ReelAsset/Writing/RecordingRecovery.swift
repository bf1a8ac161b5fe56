public import Foundation
import ReelAV
public import ReelCore

/// Turns an interrupted fragmented recording (`NAME.partial.mp4`, left by a writer with a
/// ``AssetWriter/movieFragmentInterval`` when its process died) into an ordinary file with
/// the index at the front. Nothing is decoded: every complete sample is copied as it is,
/// and a last fragment the crash cut short is left out.
public enum RecordingRecovery {
    /// What a recovery copied.
    public struct Report: Sendable {
        /// The length of the recovered file.
        public var duration: MediaTime
        /// Video frames copied.
        public var videoFrames: Int
        /// Samples of the damaged tail that were left out.
        public var droppedSamples: Int
    }

    /// Copies `source` into `destination` (written under a temporary name and renamed when
    /// complete; `source` is only read).
    /// - Parameters:
    ///   - source: The damaged or unfinished recording.
    ///   - destination: The playable copy to write.
    ///   - fileType: The copy's container.
    /// - Returns: What was kept and what was left out.
    /// - Throws: ``ReelError`` about `source` when it is not a readable recording or holds no
    ///   complete sample, or about `destination` when it cannot be written.
    public static func recover(_ source: URL, to destination: URL, fileType: FileType = .mp4) throws(ReelError) -> Report {
        let path = source.path
        try SourceFile.check(path)
        guard source.standardizedFileURL != destination.standardizedFileURL else {
            throw ReelError(.invalidArgument, "the output would overwrite the recording", subject: destination.path)
        }
        let demuxer: Demuxer
        do {
            demuxer = try Demuxer(path: path)
        } catch where error.code == .invalidData || error.code == .ffmpeg {
            var plain = error
            plain.message = "not a recording that can be recovered: \(error.message)"
            throw plain
        }
        guard demuxer.streams.contains(where: { $0.mediaType == .video }) else {
            throw ReelError(.invalidData, "has no video track to recover", subject: path)
        }
        // What the muxer would refuse in its own words (about the output, naming its internals)
        // is said here about the recording.
        for stream in demuxer.streams where stream.mediaType == .video && (stream.width <= 0 || stream.height <= 0) {
            throw ReelError(.invalidData, "its video track (track \(stream.index + 1)) has no picture size in its header: the header is damaged, nothing to recover",
                            subject: path)
        }
        let folder = destination.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw ReelError(.fileNotFound, "the folder \(folder.path) does not exist", subject: destination.path)
        }
        return try copy(demuxer, from: source, to: destination, fileType: fileType, earlier: primingInView(path, demuxer.streams),
                        duration: nil, optimizeForNetworkUse: true, honoursEditLists: true)
    }

    /// The AAC priming a writer's `.partial` file leaves in view, per stream, to be moved
    /// before 0 (where the copy's edit list hides it, as a finished recording's does).
    ///
    /// A fragmented file's index is written before its first sample, so it cannot hide the
    /// encoder's priming with an edit list. FFmpeg's muxer shifts every track by the priming
    /// (its video starts one AAC frame after 0); ``AssetWriter`` shifts the sound alone, so
    /// that picture and sound both start at 0 and the sound is one AAC frame late (21.3 ms
    /// at 48 kHz) until the finished file takes the shift back. A recovered `.partial` kept
    /// that lag. So: in a fragmented file whose video and AAC sound both start at exactly 0,
    /// with nothing hidden, the first AAC frame (1024 samples, FFmpeg's encoder's priming and
    /// the writer's shift) is the priming.
    static func primingInView(_ path: String, _ streams: [StreamInfo]) -> [Int: MediaTime] {
        let aac = streams.filter { $0.mediaType == .audio && $0.codecName == "aac" && $0.sampleRate > 0 }
        guard !aac.isEmpty, streams.contains(where: { $0.mediaType == .video }), MovieIndex.isFragmented(path),
              let demuxer = try? Demuxer(path: path), let packet = try? Packet() else { return [:] }
        // Each stream's first packet: whether it starts at 0 with nothing hidden.
        var startsAtZero: [Int: Bool] = [:]
        let wanted = Set(streams.filter { $0.mediaType == .video || $0.mediaType == .audio }.map(\.index))
        var read = 0
        while startsAtZero.count < wanted.count, read < 1000, (try? demuxer.read(into: packet)) == true {
            read += 1
            guard wanted.contains(packet.streamIndex), startsAtZero[packet.streamIndex] == nil else { continue }
            startsAtZero[packet.streamIndex] = packet.presentationTimestamp == 0 && !packet.isDiscarded
        }
        let videoAtZero = streams.contains { $0.mediaType == .video && startsAtZero[$0.index] == true }
        guard videoAtZero else { return [:] }
        var earlier: [Int: MediaTime] = [:]
        for stream in aac where startsAtZero[stream.index] == true {
            earlier[stream.index] = MediaTime(value: 1024, timescale: Int32(clamping: stream.sampleRate))
        }
        return earlier
    }

    /// Turns a finished fragmented recording into an ordinary file at `destination`: the
    /// whole index (first when `optimizeForNetworkUse`), the streams in `earlier` moved that
    /// much earlier (the writer's AAC priming shift, which an edit list now hides, as FFmpeg's
    /// MP4 muxer does for AAC), and every stream cut at `duration` (the last sound packet
    /// shortened to end there, so that the sound ends with the last picture).
    ///
    /// `firstPicture` is the stream and time of the first picture the writer encoded. Where the
    /// file has it later, FFmpeg moved every track by that much when it wrote the fragments (an
    /// encoder with B-frames starts decoding before its first picture shows, and a fragment
    /// cannot start before zero): every stream is moved back by it, so the file starts where
    /// the session did, as an ordinary file's edit list has it.
    package static func complete(_ source: URL, to destination: URL, fileType: FileType, earlier: [Int: MediaTime],
                                 firstPicture: (stream: Int, time: MediaTime)? = nil, duration: MediaTime?,
                                 optimizeForNetworkUse: Bool) throws(ReelError) {
        let demuxer = try Demuxer(path: source.path)
        var earlier = earlier
        var stretched: [Int: MediaTime] = [:]
        if let firstPicture, demuxer.streams.indices.contains(firstPicture.stream) {
            let written = demuxer.streams[firstPicture.stream].startTime
            if written.isNumeric, firstPicture.time.isNumeric, written > firstPicture.time {
                let moved = written - firstPicture.time
                for stream in demuxer.streams {
                    earlier[stream.index] = (earlier[stream.index] ?? .zero) + moved
                    // FFmpeg wrote the other tracks' first sample from zero, stretched over the
                    // move (a fragment's track must start at zero): it starts `moved` later.
                    if stream.index != firstPicture.stream { stretched[stream.index] = moved }
                }
            }
        }
        // The writer's own recording hides nothing but the AAC priming, which the muxer's edit
        // list hides once `earlier` moves it before 0: no second pass over the index, which
        // cost the next segment's capture frames under load (the seed's segments).
        _ = try copy(demuxer, from: source, to: destination, fileType: fileType, earlier: earlier, stretched: stretched,
                     duration: duration, optimizeForNetworkUse: optimizeForNetworkUse, honoursEditLists: false)
    }

    private static func copy(_ demuxer: Demuxer, from source: URL, to destination: URL, fileType: FileType,
                             earlier: [Int: MediaTime], stretched: [Int: MediaTime] = [:], duration: MediaTime?,
                             optimizeForNetworkUse: Bool, honoursEditLists: Bool) throws(ReelError) -> Report {
        let path = source.path
        let copied = demuxer.streams.filter { $0.mediaType == .video || $0.mediaType == .audio }
        let fileSize = demuxer.fileSize
        let partial = TemporaryOutput(beside: destination)
        let temporary = partial.url
        defer { partial.release() }
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: fileType.muxerName)
            var outputs: [Int: Int] = [:]
            do throws(ReelError) {
                for stream in copied {
                    let index = try muxer.addStream(copying: demuxer, streamIndex: stream.index)
                    if let matrix = stream.displayMatrix, !matrix.isIdentity { try muxer.setDisplayMatrix(matrix, streamIndex: index) }
                    if let language = stream.language { muxer.setMetadata("language", language, streamIndex: index) }
                    outputs[stream.index] = index
                }
                for (key, value) in demuxer.metadata where ["creation_time", "title", "location", "make", "model"].contains(key) {
                    muxer.setMetadata(key, value)
                }
                for stream in demuxer.streams where outputs[stream.index] == nil {
                    demuxer.setDiscarded(true, streamIndex: stream.index)
                }
                if honoursEditLists {
                    // The index goes in front after the edit lists are set (MovieIndex), not through +faststart.
                    let videoBase = copied.first { $0.mediaType == .video }?.timeBase ?? Rational(1, 1000)
                    try muxer.writeHeader(options: MovieIndex.movieTimescaleOptions(videoTimeBase: videoBase, for: fileType.muxerName))
                } else {
                    try muxer.writeHeader(options: optimizeForNetworkUse && fileType.isISOBaseMedia ? ["movflags": "+faststart"] : [:])
                }
            } catch {
                // The output that cannot be created or written (a full disk, no permission)
                // is said as it is; what the muxer refuses is said about the recording.
                let ioCodes: Set<Int32> = [-5, -13, -28, -30, -122]  // AVERROR(EIO, EACCES, ENOSPC, EROFS, EDQUOT)
                if [.diskFull, .io, .permissionDenied].contains(error.code) || error.operation == "avio_open"
                    || error.ffmpegCode.map(ioCodes.contains) == true {
                    throw error
                }
                let codecs = copied.map { "\($0.mediaType) \($0.codecName)" }.joined(separator: ", ")
                throw ReelError(.unsupported,
                                "its tracks (\(codecs)) cannot be copied as they are into a .\(destination.pathExtension) file; try another -o extension (.mov takes more codecs)",
                                subject: path)
            }
            let packet = try Packet()
            var join = StreamJoin()
            var frames = 0
            var dropped = 0
            var end = MediaTime.zero
            var damaged = false
            // Per copied stream: the first decode time, and the span the source's edit list
            // shows (packets it hides are copied, as later ones may need them).
            var firstDecode: [Int: MediaTime] = [:]
            // Per source stream: the last decode time read, and the step to it from the one before.
            var lastDecode: [Int: Int64] = [:]
            var step: [Int: Int64] = [:]
            var shown: [Int: MediaTimeRange] = [:]
            while true {
                let more: Bool
                do throws(ReelError) {
                    more = try demuxer.read(into: packet)
                } catch {
                    break // the crash cut the file inside a fragment: what came before is whole
                }
                guard more else { break }
                guard let output = outputs[packet.streamIndex] else { continue }
                // Once one sample is damaged, everything after it in the file is the unfinished tail.
                if damaged || packet.isCorrupt || (fileSize > 0 && packet.position + Int64(packet.size) > fileSize) {
                    damaged = true
                    dropped += 1
                    continue
                }
                let base = demuxer.streams[packet.streamIndex].timeBase
                if let late = stretched[packet.streamIndex], lastDecode[packet.streamIndex] == nil, packet.presentationTimestamp == 0 {
                    let ticks = base.timestamp(late)
                    packet.shift(by: ticks)
                    if packet.durationTicks > ticks { packet.setDuration(packet.durationTicks - ticks) }
                }
                // A packet read without a duration lasts as long as the step before it: the muxer
                // ends a track at its last packet's end, so a zero there hid the last picture.
                let decodeTicks = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
                if decodeTicks != FFmpeg.noTimestamp {
                    if let previous = lastDecode[packet.streamIndex], decodeTicks > previous {
                        step[packet.streamIndex] = decodeTicks - previous
                    }
                    lastDecode[packet.streamIndex] = decodeTicks
                }
                if packet.durationTicks <= 0, let step = step[packet.streamIndex] { packet.setDuration(step) }
                let offset = MediaTime.zero - (earlier[packet.streamIndex] ?? .zero)
                let begin = base.time(packet.presentationTimestamp) + offset
                if let duration, begin.isNumeric {
                    // Past the session's end: left out; across it: shortened to end there.
                    guard begin < duration else { continue }
                    let room = base.timestamp(duration - begin)
                    if packet.durationTicks <= 0 || packet.durationTicks > room { packet.setDuration(room) }
                }
                let stop = base.time(packet.presentationTimestamp + max(packet.durationTicks, 0)) + offset
                if stop.isNumeric { end = max(end, stop) }
                if demuxer.streams[packet.streamIndex].mediaType == .video { frames += 1 }
                let decode = base.time(packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp
                                                                                     : packet.presentationTimestamp) + offset
                if firstDecode[output] == nil, decode.isNumeric { firstDecode[output] = decode }
                // Hidden: what the reader marks, and what it (or `earlier`) moved before the
                // edit's start (AAC priming too); a packet across the start shows from there.
                let start = max(begin, .zero)
                if !packet.isDiscarded, start.isNumeric, stop.isNumeric, stop > .zero {
                    shown[output] = shown[output].map { MediaTimeRange(start: min($0.start, start), end: max($0.end, stop)) }
                        ?? MediaTimeRange(start: start, end: stop)
                }
                try muxer.writeCopy(packet, streamIndex: output, source: base, offset: offset, join: &join)
            }
            guard frames > 0 else {
                throw ReelError(.invalidData, "holds no complete video frame: nothing to recover", subject: path)
            }
            try muxer.finish()
            if honoursEditLists, fileType.isISOBaseMedia {
                // What the source's edit lists show. (A fragmented file's edit list is not read for
                // its end: FFmpeg's muxer sets it to the samples in the index, not the fragments'.)
                var edits: [Int: [EditListEntry]] = [:]
                for (stream, range) in shown {
                    guard let decode = firstDecode[stream] else { continue }
                    let lead = range.start > .zero ? [EditListEntry(start: .zero, end: range.start, mediaStart: nil)] : []
                    edits[stream] = lead + [EditListEntry(start: range.start, end: range.end, mediaStart: range.start - decode)]
                }
                try MovieIndex.rewrite(temporary.path, edits: edits, indexFirst: true)
            }
            try AssetWriter.moveIntoPlace(temporary, destination: destination)
            return Report(duration: end, videoFrames: frames, droppedSamples: dropped)
        } catch {
            partial.discard()
            throw error.renamingSubject(temporary.path, to: destination.path)
        }
    }
}

import ReelAV
import ReelCore

/// The decoding state of one output inside an ``AssetReader``: its queued packets,
/// decoder, converter and the decoded samples waiting to be taken.
final class ReaderLane {
    let output: AssetReaderTrackOutput
    private let decoder: Decoder
    private let frame: Frame
    private let timeBase: Rational
    private var range: MediaTimeRange
    private let mediaType: MediaType

    private var packets: [Packet] = []
    private var packetHead = 0
    private var ready: [SampleBuffer] = []
    private var drained = false
    private var pastEnd = false

    // Video
    private let scaler = Scaler()
    private var pool: PixelBufferPool?
    /// The frame held until the next one's time gives its duration; its packet's own duration,
    /// nil when the container gave none.
    private var pending: (frame: Frame, time: MediaTime, packetDuration: MediaTime?)?
    private let fallbackFrameDuration: MediaTime
    /// Where an MP4 video track ends: the last picture lasts until then.
    private let storedEnd: MediaTime?
    /// The track's frames per second, when known: a packet whose stored duration is one frame
    /// at that rate (within 2 %: the seed clips' last frame is held a little longer, so their
    /// average is 24.88 against 25 fps) is taken to show its picture for that duration, known
    /// before it is decoded, so that a picture nobody looks at may be left undecoded.
    private let nominalFrameRate: Double

    // Audio
    private var resampler: Resampler?
    private var audioClock: MediaTime = .invalid

    init(output: AssetReaderTrackOutput, demuxer: Demuxer, range: MediaTimeRange) throws(ReelError) {
        self.output = output
        let track = output.track
        mediaType = track.mediaType
        guard mediaType == .video || mediaType == .audio else {
            throw ReelError(.unsupported, "reading \(mediaType) tracks is not supported (track \(track.trackID))")
        }
        decoder = try Decoder(demuxer: demuxer, streamIndex: track.streamIndex)
        frame = try Frame()
        timeBase = demuxer.streams[track.streamIndex].timeBase
        // Sound ends where the container presents its end (an MP4's edit list trims the last
        // AAC frame's padding), as AVAssetReader's does: the decoder hands out whole frames.
        let presentedEnd = track.timeRange.end
        if mediaType == .audio, presentedEnd.isNumeric, presentedEnd > .zero, presentedEnd < range.end {
            self.range = MediaTimeRange(start: range.start, end: max(range.start, presentedEnd))
        } else {
            self.range = range
        }
        // An MP4 track says where its last picture ends (its samples' stored durations, cut by
        // its edit list), but FFmpeg gives packets with a composition offset (B-frames) a usual
        // interval instead: the last picture lasts until the track's end, as AVAssetReader's
        // last sample does (a HandBrake file's last frame holds longer than the others).
        let stored = demuxer.streams[track.streamIndex].duration.isNumeric && demuxer.formatName.hasPrefix("mov,")
        storedEnd = mediaType == .video && stored && presentedEnd.isNumeric ? presentedEnd : nil
        let rate = track.nominalFrameRate > 0 ? track.nominalFrameRate : 25
        fallbackFrameDuration = track.minFrameDuration.isNumeric ? track.minFrameDuration
            : MediaTime(seconds: 1 / rate, preferredTimescale: 90000)
        nominalFrameRate = track.nominalFrameRate
        if mediaType == .audio, let settings = output.audioSettings {
            let channels = settings.channelCount ?? track.channelCount
            let layout = settings.channelCount == nil ? (track.channelLayout ?? .default(channels: channels))
                : .default(channels: channels)
            resampler = try Resampler(output: AudioFormat(sampleFormat: settings.sampleFormat,
                                                          sampleRate: settings.sampleRate ?? track.sampleRate,
                                                          channelLayout: layout))
        }
    }

    var hasQueuedPackets: Bool { packetHead < packets.count }

    /// Forgets what was queued, decoded and held, and flushes the decoder, to read `range`
    /// afresh after the demuxer has been moved (a seek): the decoder, its threads and the
    /// converters stay open.
    func restart(range newRange: MediaTimeRange) {
        decoder.flush()
        packets.removeAll(keepingCapacity: true)
        packetHead = 0
        ready.removeAll()
        drained = false
        pastEnd = false
        pending = nil
        audioClock = .invalid
        let presentedEnd = output.track.timeRange.end
        if mediaType == .audio, presentedEnd.isNumeric, presentedEnd > .zero, presentedEnd < newRange.end {
            range = MediaTimeRange(start: newRange.start, end: max(newRange.start, presentedEnd))
        } else {
            range = newRange
        }
        if let resampler { self.resampler = try? Resampler(output: resampler.output) }
    }

    /// Nothing more will come out of this lane.
    var isFinished: Bool { (drained || pastEnd) && ready.isEmpty }

    func enqueue(_ packet: Packet) throws(ReelError) {
        packets.append(try packet.clone())
    }

    func nextReadySample() throws(ReelError) -> SampleBuffer? {
        // Taken out, not left behind in the array: a picture handed out belongs to the caller
        // alone, and goes back to its pool as soon as the caller lets go of it.
        guard !ready.isEmpty else { return nil }
        return ready.removeFirst()
    }

    /// Sends queued packets to the decoder and collects what it decodes.
    /// Damaged packets skipped so far; the decoder conceals them, as ffmpeg does, up to a limit.
    private(set) var damagedPackets = 0
    static let damagedPacketLimit = 100

    func decodeQueued() throws(ReelError) {
        while packetHead < packets.count, !pastEnd {
            if mediaType == .video, let wanted = output.picturesWanted {
                decoder.skipsNonReferenceFrames = !isWanted(packets[packetHead], wanted)
            }
            let result: CodecResult
            do {
                result = try decoder.send(packets[packetHead])
            } catch where error.code == .invalidData && damagedPackets < Self.damagedPacketLimit {
                damagedPackets += 1
                packetHead += 1
                continue
            }
            if result == .needsInput {
                try receiveAll()
                continue
            }
            packetHead += 1
            try receiveAll()
        }
        if packetHead == packets.count {
            packets.removeAll(keepingCapacity: true)
            packetHead = 0
        }
        if pastEnd { try finishPending() }
    }

    /// The file has ended: flush the decoder and emit everything it held.
    func drain() throws(ReelError) {
        guard !drained else { return }
        if !pastEnd {
            try decodeQueued()
            _ = try decoder.send(nil)
            try receiveAll()
        }
        try finishPending()
        if let resampler, !pastEnd, let tail = try resampler.flush() { emitAudio(tail, at: audioClock) }
        drained = true
    }

    private func receiveAll() throws(ReelError) {
        while !pastEnd {
            let result: CodecResult
            do {
                result = try decoder.receive(into: frame)
            } catch where error.code == .invalidData && damagedPackets < Self.damagedPacketLimit {
                damagedPackets += 1
                continue
            }
            guard result == .produced else { break }
            if mediaType == .video {
                try takeVideoFrame()
            } else {
                try takeAudioFrame()
            }
        }
    }

    // MARK: - Video

    /// Whether `packet`'s picture may be looked at: true unless its interval is known (its
    /// stored duration is one frame at the track's rate; FFmpeg's MP4 demuxer leaves it 0, and
    /// then one frame at the track's rate is taken) and no time looked at falls in it.
    private func isWanted(_ packet: Packet, _ wanted: (MediaTimeRange) -> Bool) -> Bool {
        let start = timeBase.time(packet.presentationTimestamp)
        guard nominalFrameRate > 0, start.isNumeric else { return true }
        let frame = MediaTime(seconds: 1 / nominalFrameRate, preferredTimescale: 90000)
        let stored = timeBase.time(packet.durationTicks)
        let duration = stored.isNumeric && stored > .zero ? stored : frame
        guard abs(duration.seconds * nominalFrameRate - 1) < 0.02 else { return true }
        return wanted(MediaTimeRange(start: start, duration: duration))
    }

    private func takeVideoFrame() throws(ReelError) {
        let time = timeBase.time(frame.bestEffortTimestamp)
        guard time.isNumeric else { return }
        if let pending {
            // A frame's duration is the gap to the next one: exact for VFR sources.
            if time > pending.time {
                try emitVideo(pending.frame, at: pending.time, duration: time - pending.time)
            } else {
                return // a duplicate or backwards timestamp: keep the earlier frame
            }
        }
        pending = nil
        if time >= range.end {
            pastEnd = true
            return
        }
        // Keep a reference, not a converted copy: frames before the range are never converted.
        pending = (try frame.clone(), time, frame.packetDuration > 0 ? timeBase.time(frame.packetDuration) : nil)
    }

    private func finishPending() throws(ReelError) {
        guard let pending else { return }
        self.pending = nil
        let toTrackEnd = storedEnd.flatMap { $0 > pending.time ? $0 - pending.time : nil }
        try emitVideo(pending.frame, at: pending.time, duration: toTrackEnd ?? pending.packetDuration ?? fallbackFrameDuration)
    }

    private func emitVideo(_ decoded: Frame, at time: MediaTime, duration: MediaTime) throws(ReelError) {
        guard time < range.end, time + duration > range.start else { return }
        // A picture no one will look at is not converted (a fast-forward's skipped frames).
        if let wanted = output.picturesWanted, !wanted(MediaTimeRange(start: time, duration: duration)) { return }
        let buffer = try convertPicture(decoded)
        ready.append(SampleBuffer(pixelBuffer: buffer, presentationTime: time, duration: duration))
    }

    private func convertPicture(_ frame: Frame) throws(ReelError) -> PixelBuffer {
        let settings = output.videoSettings ?? VideoOutputSettings()
        let (width, height) = Self.targetSize(settings, sourceWidth: frame.width, sourceHeight: frame.height)
        if pool == nil || pool?.width != width || pool?.height != height {
            pool = try PixelBufferPool(width: width, height: height, pixelFormat: settings.pixelFormat,
                                       maximumFreeBuffers: 16)
        }
        guard let pool else { throw ReelError(.outOfMemory, "no pixel buffer pool") }
        let buffer = pool.makePixelBuffer()
        try scaler.convert(frame, into: buffer, matrix: settings.colorMatrix)
        if output.appliesPreferredTrackTransform, let orientation = output.track.orientation, orientation != .up {
            return try buffer.oriented(orientation)
        }
        return buffer
    }

    static func targetSize(_ settings: VideoOutputSettings, sourceWidth: Int, sourceHeight: Int) -> (Int, Int) {
        let even = settings.pixelFormat.requiresEvenDimensions
        func round(_ value: Double) -> Int {
            let whole = max(1, Int(value.rounded()))
            return even ? max(2, whole + (whole % 2)) : whole
        }
        switch (settings.width, settings.height) {
        case (let width?, let height?): return (width, height)
        case (let width?, nil): return (width, round(Double(width) * Double(sourceHeight) / Double(sourceWidth)))
        case (nil, let height?): return (round(Double(height) * Double(sourceWidth) / Double(sourceHeight)), height)
        case (nil, nil): return (sourceWidth, sourceHeight)
        }
    }

    // MARK: - Audio

    private func takeAudioFrame() throws(ReelError) {
        let time = timeBase.time(frame.bestEffortTimestamp)
        let buffer: AudioBuffer
        if let resampler {
            buffer = try resampler.convert(frame)
            let changesRate = resampler.output.sampleRate != frame.sampleRate
            // Without a rate change each frame keeps its own exact time; with one, a
            // running clock from the first frame counts the resampled output.
            if !changesRate || !audioClock.isValid { audioClock = time }
        } else {
            guard let native = try frame.audioBuffer() else {
                throw ReelError(.unsupported, "the decoder's sample format cannot be handed out as is; ask for a format")
            }
            buffer = native
            audioClock = time
        }
        guard audioClock.isNumeric else { return }
        emitAudio(buffer, at: audioClock)
        audioClock = audioClock + buffer.duration
    }

    private func emitAudio(_ buffer: AudioBuffer, at time: MediaTime) {
        guard buffer.frameCount > 0, time.isNumeric else { return }
        let rate = Int64(buffer.format.sampleRate)
        let end = time + buffer.duration
        if time >= range.end {
            pastEnd = true
            return
        }
        guard end > range.start else { return }
        var first = 0
        var count = buffer.frameCount
        if time < range.start {
            first = Int((range.start - time).multiplied(byRatio: rate, divisor: 1)
                .convertScale(1, method: .roundTowardPositiveInfinity).value)
        }
        if end > range.end {
            count = Int((range.end - time).multiplied(byRatio: rate, divisor: 1)
                .convertScale(1, method: .roundTowardNegativeInfinity).value)
        }
        count -= first
        guard count > 0 else { return }
        let start = time + MediaTime(value: Int64(first), timescale: Int32(clamping: rate))
        let trimmed = first == 0 && count == buffer.frameCount ? buffer : buffer.slice(from: first, count: count)
        ready.append(SampleBuffer(audioBuffer: trimmed, presentationTime: start))
    }
}

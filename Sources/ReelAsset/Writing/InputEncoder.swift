import Foundation
import Dispatch
import ReelAV
import ReelCore

/// One input's encoding pipeline inside an ``AssetWriter``: a serial queue that
/// converts appended media to the encoder's format, encodes it and hands packets to
/// the shared muxer.
///
/// A counting semaphore bounds the work in flight; that bound is what
/// ``AssetWriterInput/isReadyForMoreMediaData`` reports. The FFmpeg objects are only
/// touched on `queue`, which is why the class can be `@unchecked Sendable`.
final class InputEncoder: @unchecked Sendable {
    let encoder: Encoder
    let streamIndex: Int
    let mediaType: MediaType
    private let muxer: SharedMuxer
    /// Added to every packet's timestamps (encoder ticks), set before the first frame.
    var timestampShift: Int64 = 0
    /// Audio samples laid this many earlier than appended (the head before zero is dropped),
    /// set before the first frame: see `AssetWriter.shiftForPriming`.
    var leadTrim: Int64 = 0
    /// A segmented writer's segment boundaries (the first, on the session's timeline, and the
    /// interval): the first picture at or after each is made a keyframe, so segments are cut by
    /// time whatever frames the source dropped (`preferredOutputSegmentInterval`). Set before
    /// the first frame; nil leaves keyframes to the encoder.
    var keyframeBoundaries: (first: MediaTime, interval: MediaTime)? {
        didSet { nextKeyframeBoundary = keyframeBoundaries?.first }
    }
    /// The next boundary whose first picture is still to come (queue only).
    private var nextKeyframeBoundary: MediaTime?
    private let queue: DispatchQueue
    private let slots: DispatchSemaphore
    let capacity: Int
    private let onError: @Sendable (ReelError) -> Void

    // Video state (queue only).
    private let scaler = Scaler()
    private var videoFrame: Frame?
    private var durations: [Int64: Int64] = [:]
    private var lastVideoTicks: Int64?
    /// The first picture's time (encoder ticks); read once the queue is idle.
    private(set) var firstVideoTicks: Int64?
    /// Where the last appended picture or sample ends (encoder ticks from the session's start),
    /// set by ``finish(endTicks:)``.
    private(set) var appendedEndTicks: Int64?
    private var lastDelta: Int64 = 0
    private let packet: Packet

    // Audio state (queue only).
    private var resampler: Resampler?
    private var fifo: AudioBuffer?
    private var fifoHead = 0
    private var samplesQueued: Int64 = 0
    private var audioStart: Int64?
    private var audioFrame: Frame?

    private var failed = false

    init(encoder: Encoder, streamIndex: Int, mediaType: MediaType, muxer: SharedMuxer, capacity: Int,
         label: String, onError: @escaping @Sendable (ReelError) -> Void) throws(ReelError) {
        self.encoder = encoder
        self.streamIndex = streamIndex
        self.mediaType = mediaType
        self.muxer = muxer
        self.capacity = capacity
        self.onError = onError
        packet = try Packet()
        queue = DispatchQueue(label: "reel.writer.\(label)")
        slots = DispatchSemaphore(value: capacity)
        if mediaType == .audio { resampler = try Resampler(output: encoder.audioFormat) }
    }

    private let inFlightLock = NSLockBox()
    private var inFlight = 0

    /// Whether another append would start at once rather than wait.
    var hasRoom: Bool { inFlightLock.withLock { inFlight < capacity } }

    private func submit(_ work: @escaping @Sendable (InputEncoder) throws(ReelError) -> Void) {
        slots.wait()
        inFlightLock.withLock { inFlight += 1 }
        queue.async { [self] in
            defer {
                inFlightLock.withLock { inFlight -= 1 }
                slots.signal()
            }
            guard !failed else { return }
            do throws(ReelError) {
                try work(self)
            } catch {
                failed = true
                onError(error)
            }
        }
    }

    // MARK: - Video

    /// Queues a picture at `ticks` (encoder time base), lasting `duration` ticks when known.
    func appendVideo(_ buffer: PixelBuffer, ticks: Int64, duration: Int64?) {
        submit { encoder throws(ReelError) in try encoder.encodeVideo(buffer, ticks: ticks, duration: duration) }
    }

    private func encodeVideo(_ buffer: PixelBuffer, ticks: Int64, duration: Int64?) throws(ReelError) {
        dispatchPrecondition(condition: .onQueue(queue))
        if let last = lastVideoTicks {
            lastDelta = ticks - last
            if durations[last] == nil { durations[last] = lastDelta }
        }
        if let duration, duration > 0 { durations[ticks] = duration }
        lastVideoTicks = ticks
        if firstVideoTicks == nil { firstVideoTicks = ticks }
        let frame: Frame
        if let existing = videoFrame { frame = existing } else { frame = try encoder.makeVideoFrame() }
        videoFrame = frame
        try frame.makeWritable()
        try scaler.convert(buffer, into: frame)
        frame.presentationTimestamp = ticks
        frame.isForcedKeyframe = passesKeyframeBoundary(ticks)
        try send(frame)
    }

    /// Whether the picture at `ticks` is the first at or after a segment boundary (moving the
    /// next boundary past it).
    private func passesKeyframeBoundary(_ ticks: Int64) -> Bool {
        guard let interval = keyframeBoundaries?.interval, interval > .zero, var boundary = nextKeyframeBoundary else {
            return false
        }
        let timeBase = encoder.timeBase
        guard ticks >= timeBase.timestamp(boundary, method: .roundTowardPositiveInfinity) else { return false }
        let time = timeBase.time(ticks)
        // A long pause in the source skips the boundaries inside it at once.
        let skipped = ((time - boundary).seconds / interval.seconds).rounded(.down)
        if skipped > 2, skipped < 1e12 { boundary = boundary + interval * (Int64(skipped) - 1) }
        while timeBase.timestamp(boundary, method: .roundTowardPositiveInfinity) <= ticks { boundary = boundary + interval }
        nextKeyframeBoundary = boundary
        return true
    }

    // MARK: - Audio

    /// Queues audio whose first sample plays at `startSample` (in samples of the encoder's rate
    /// from the session start). Gaps over 20 ms are filled with silence; overlaps are dropped.
    func appendAudio(_ buffer: AudioBuffer, startSample: Int64) {
        submit { encoder throws(ReelError) in try encoder.encodeAudio(buffer, startSample: startSample) }
    }

    private func encodeAudio(_ input: AudioBuffer, startSample: Int64) throws(ReelError) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let resampler else { return }
        var converted = try resampler.convert(input)
        let rate = Int64(encoder.audioFormat.sampleRate)
        if audioStart == nil {
            // Sound wholly before the session's start is not the first sound: the next run may
            // be, and its own start places it (else it would be laid from zero, late by its offset).
            if startSample < 0, Int64(converted.frameCount) <= -startSample { return }
            if startSample < 0 {
                converted = converted.slice(from: Int(-startSample), count: converted.frameCount)
                audioStart = 0
            } else {
                audioStart = startSample
            }
        }
        let expected = (audioStart ?? 0) + samplesQueued
        let tolerance = rate / 50
        if startSample > expected + tolerance {
            try enqueueSamples(try AudioBuffer(format: converted.format, frameCount: Int(startSample - expected)))
        } else if startSample < expected - tolerance {
            let overlap = Int(expected - startSample)
            converted = converted.slice(from: overlap, count: converted.frameCount)
        }
        try enqueueSamples(converted)
        try encodeWholeAudioFrames(final: false)
    }

    private func enqueueSamples(_ buffer: AudioBuffer) throws(ReelError) {
        guard buffer.frameCount > 0 else { return }
        if var existing = fifo {
            if fifoHead > 0 {
                existing = existing.slice(from: fifoHead, count: existing.frameCount - fifoHead)
                fifoHead = 0
            }
            try existing.append(buffer)
            fifo = existing
        } else {
            fifo = buffer
        }
        samplesQueued += Int64(buffer.frameCount)
    }

    private var audioTicksSent: Int64 = 0

    private func encodeWholeAudioFrames(final: Bool) throws(ReelError) {
        guard let buffer = fifo else { return }
        let size = encoder.frameSize > 0 ? encoder.frameSize : 1024
        while buffer.frameCount - fifoHead >= size || (final && buffer.frameCount - fifoHead > 0) {
            let count = min(size, buffer.frameCount - fifoHead)
            let frame: Frame
            if let existing = audioFrame { frame = existing } else { frame = try encoder.makeAudioFrame(samples: size) }
            audioFrame = frame
            try frame.copyAudio(from: buffer, offset: fifoHead, count: count)
            frame.presentationTimestamp = (audioStart ?? 0) + audioTicksSent
            audioTicksSent += Int64(count)
            fifoHead += count
            try send(frame)
        }
    }

    // MARK: - Encoding

    private func send(_ frame: Frame?) throws(ReelError) {
        dispatchPrecondition(condition: .onQueue(queue))
        while true {
            let result = try encoder.send(frame)
            try receivePackets()
            if result != .needsInput { return }
        }
    }

    private func receivePackets() throws(ReelError) {
        while try encoder.receive(into: packet) == .produced {
            if mediaType == .video {
                let pts = packet.presentationTimestamp
                if let duration = durations.removeValue(forKey: pts) {
                    packet.setDuration(duration)
                } else if lastDelta > 0 {
                    packet.setDuration(lastDelta)
                }
            }
            if timestampShift != 0 { packet.shift(by: timestampShift) }
            try muxer.write(packet, streamIndex: streamIndex)
        }
    }

    /// Waits for queued work, then drains the encoder. `endTicks`, when set, caps the
    /// last video frame's duration at the session's end.
    func finish(endTicks: Int64?) throws(ReelError) {
        var outcome: ReelError?
        queue.sync {
            guard !failed else { return }
            do throws(ReelError) {
                if mediaType == .audio {
                    if let tail = try resampler?.flush() { try enqueueSamples(tail) }
                    try encodeWholeAudioFrames(final: true)
                    if let audioStart { appendedEndTicks = audioStart + samplesQueued }
                } else if let last = lastVideoTicks {
                    let natural = durations[last] ?? (lastDelta > 0 ? lastDelta : 1)
                    let duration = endTicks.map { max(1, min(natural, $0 - last)) } ?? natural
                    durations[last] = duration
                    appendedEndTicks = last + duration
                }
                try send(nil)
            } catch {
                failed = true
                outcome = error
            }
        }
        if let outcome { throw outcome }
    }

    /// Waits until every queued append has been encoded.
    func waitUntilIdle() { queue.sync {} }
}

/// A lock for small counters.
final class NSLockBox: @unchecked Sendable {
    private let lock = NSLock()
    func withLock<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

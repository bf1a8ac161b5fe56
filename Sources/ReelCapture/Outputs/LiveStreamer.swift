import Dispatch
package import Foundation
package import ReelAsset
package import ReelCore

/// `reel record --rtmp URL`: the capture, encoded a second time, pushed to a streaming
/// server through FFmpeg's RTMP protocol (FLV), beside the local recording, which never
/// waits for it. A lost connection (the server gone, a write refused) drops the stream's
/// writer and connects again, after 0.25 s and then doubling up to 2 s between attempts,
/// so a server back up is reached within about 2 s; the new connection starts at the next
/// frame. Frames that come while a connection is being made, or while the encoder is busy,
/// are not streamed (the local file has them all). Segments (`--hls`, `--replay-buffer`)
/// start with the first picture handed over, as the local file does: what comes while their
/// writer opens waits for it (up to a second of pictures).
package final class LiveStreamer: @unchecked Sendable {
    private struct Link {
        var writer: AssetWriter
        var video: AssetWriterInput
        var audio: AssetWriterInput?
        /// The source time the writer's session starts at: for segments the picture that made the
        /// writer (the segments' grid starts there, whichever picture comes first), for a
        /// stream its first picture's (nil until then).
        var start: MediaTime?
        /// Whether a picture has been written (sound waits for the first).
        var pictured = false
        /// The picture size the writer encodes.
        var width: Int
        var height: Int
    }

    private enum State {
        /// Not connected; the next frame at or after `retryAt` connects.
        case idle(retryAt: Date, attempt: Int)
        /// The writer is being made; for segments the pictures and sound that came meanwhile,
        /// the first the picture that asked for it, written once it is open.
        case connecting(pending: [SampleBuffer])
        case streaming(Link)
        case stopped
    }

    package let url: URL
    /// FFmpeg's muxer for the protocol: `flv` for RTMP, `mpegts` for SRT.
    private let formatName: String
    /// For `--hls DIR`: the folder the live playlist and its segments go to (no reconnecting).
    package let folder: SegmentFolderWriter?
    /// For `--replay-buffer N`: the buffer the segments serve (no reconnecting), in `folder`
    /// with `--hls` too, else in its own.
    package let replay: ReplayBuffer?
    /// Segmented writing (`--hls`, `--replay-buffer`): the segments' delegate and length.
    private let segments: (delegate: any AssetWriterDelegate, interval: MediaTime)?
    private let withAudio: Bool
    private let frameRate: Double
    private let report: @Sendable (String) -> Void
    private let state = PosixMutex(State.idle(retryAt: .distantPast, attempt: 0))
    private let connecting = DispatchQueue(label: "reel.stream.connect")
    private let counts = PosixMutex((connections: 0, frames: 0, soundDropped: 0))

    /// - Parameters:
    ///   - url: `rtmp://HOST[:PORT]/APP/KEY`.
    ///   - withAudio: Whether sound is streamed too.
    ///   - frameRate: The capture's rate (a keyframe every 2 s).
    ///   - report: Told of each connection, loss and reconnection (one line each).
    package init(url: URL, withAudio: Bool, frameRate: Double, report: @escaping @Sendable (String) -> Void) {
        self.url = url
        folder = nil
        replay = nil
        segments = nil
        formatName = url.scheme?.lowercased() == "srt" ? "mpegts" : "flv"
        self.withAudio = withAudio
        self.frameRate = frameRate
        self.report = report
    }

    /// Segments by one segmented ``AssetWriter`` for a live HLS recording (`--hls DIR`: an
    /// `EVENT` playlist growing a segment at a time, ended when the recording is), a replay
    /// buffer (`--replay-buffer N`), or both from the same segments (1 s long with a replay
    /// buffer, else 2 s). A new picture size (a preset change) finishes the writer and starts
    /// another at the new size: a new initialization segment, a discontinuity in the playlist,
    /// and a replay buffer restarted.
    /// - Parameters:
    ///   - hls: The live playlist's folder writer, or nil.
    ///   - replay: The replay buffer, or nil; without `hls` its own folder writer gets the segments.
    ///   - withAudio: Whether sound is in the segments too.
    ///   - frameRate: The capture's rate.
    ///   - report: Told of a failure.
    package init(hls: SegmentFolderWriter?, replay: ReplayBuffer?, withAudio: Bool, frameRate: Double,
                 report: @escaping @Sendable (String) -> Void) {
        let writer = hls ?? replay?.segments
        url = hls.map { $0.folder.appendingPathComponent("playlist.m3u8") } ?? replay?.folder ?? URL(fileURLWithPath: "segments")
        folder = hls
        self.replay = replay
        segments = writer.map { ($0, replay != nil ? ReplayBuffer.segmentInterval : MediaTime(value: 2, timescale: 1)) }
        formatName = "mp4"
        self.withAudio = withAudio
        self.frameRate = frameRate
        self.report = report
    }

    /// Connections made, frames streamed and buffers of sound the writer had no room for so far.
    package var statistics: (connections: Int, frames: Int, soundDropped: Int) { counts.withLock { $0 } }

    package func appendVideo(_ sample: SampleBuffer) {
        guard let picture = sample.pixelBuffer else { return }
        var connect = false
        var link: Link?
        let time = sample.presentationTime
        state.withLock { state in
            switch state {
            case .idle(let retryAt, _) where Date() >= retryAt:
                connect = true
                state = .connecting(pending: segments != nil ? [sample] : [])
            case .connecting(var pending) where segments != nil:
                // Kept for the writer being opened, up to a second of pictures.
                if pending.count < pendingLimit {
                    pending.append(sample)
                    state = .connecting(pending: pending)
                }
            case .streaming(let current):
                link = current
            default:
                break
            }
        }
        if connect {
            let (width, height) = (picture.width - picture.width % 2, picture.height - picture.height % 2)
            connecting.async { [self] in self.connect(width: width, height: height, start: time) }
            return
        }
        guard let link else { return }
        if let error = link.writer.error {
            lose(link, because: error.message)
            return
        }
        if segments != nil, picture.width - picture.width % 2 != link.width || picture.height - picture.height % 2 != link.height {
            restart(link, width: picture.width - picture.width % 2, height: picture.height - picture.height % 2)
            return
        }
        guard link.video.isReadyForMoreMediaData else { return }
        var start = link.start
        if start == nil {
            // A stream's session starts at the first picture it takes.
            link.writer.startSession(atSourceTime: time)
            start = time
        }
        do {
            try link.video.append(sample)
            if !link.pictured {
                state.withLock { state in
                    if case .streaming(var current) = state, current.writer === link.writer {
                        current.start = start
                        current.pictured = true
                        state = .streaming(current)
                    }
                }
            }
            counts.withLock { $0.frames += 1 }
            if let replay, let start {
                replay.framePassed(at: sample.presentationTime - start, lasting: sample.duration)
            }
        } catch {
            lose(link, because: error.message)
        }
    }

    package func appendAudio(_ sample: SampleBuffer) {
        // Sound before the session's first picture is not written; while a segmented writer
        // opens, the sound after its first picture waits with the pictures.
        let current = state.withLock { state -> State in
            if case .connecting(var pending) = state, segments != nil, withAudio, !pending.isEmpty, pending.count < pendingLimit {
                pending.append(sample)
                state = .connecting(pending: pending)
            }
            return state
        }
        guard case .streaming(let link) = current, link.pictured, let audio = link.audio else { return }
        // A writer with no room for seconds of sound has stalled: what it missed is a silent
        // hole, counted (the writer places the next sound at its time, so nothing moves). A
        // writer that failed or is finishing takes nothing and is not counted.
        guard audio.isReadyForMoreMediaData else {
            if link.writer.status == .writing, link.writer.error == nil { counts.withLock { $0.soundDropped += 1 } }
            return
        }
        try? audio.append(sample)
    }

    /// How many samples wait for a segmented writer being opened: a second of pictures and its sound.
    private var pendingLimit: Int { Int(min(240, max(1, frameRate.rounded()))) * 3 }

    /// Ends the stream (the server gets the end of it) and stops connecting.
    /// - Parameter end: Where the segments end (source time), as a recording they go with does:
    ///   sound after it is cut and the last picture ends there; nil ends with what was written.
    package func stop(endingAt end: MediaTime? = nil) {
        let previous = state.withLock { state -> State in
            defer { state = .stopped }
            return state
        }
        connecting.sync {}
        // A connection being made meanwhile finds the state stopped and closes its writer itself.
        if case .streaming(let link) = previous {
            if let end, segments != nil { link.writer.endSession(atSourceTime: end) }
            do {
                try link.writer.finishSynchronously()
            } catch {
                report("\(url.path): \(error.message)")
            }
        }
        // The playlist ends over what was written, also when the writer was being restarted.
        if let folder, !folder.segments.isEmpty {
            do {
                try folder.finish()
            } catch {
                report("\(url.path): \(error.message)")
            }
        }
        replay?.finish()
    }

    /// The pictures changed size: the segmented writer is finished (its last segment lands)
    /// and the next frame starts another at the new size, after it on the same queue.
    private func restart(_ link: Link, width: Int, height: Int) {
        let changed = state.withLock { state -> Bool in
            guard case .streaming(let current) = state, current.writer === link.writer else { return false }
            state = .idle(retryAt: .distantPast, attempt: 0)
            return true
        }
        guard changed else { return }
        connecting.async { [self] in
            do throws(ReelError) {
                try link.writer.finishSynchronously()
            } catch {
                report("\(url.path): \(error.message)")
            }
            replay?.restart()
        }
        report(folder != nil ? "the picture is now \(width)x\(height): the segments in \(url.path) go on at that size"
               : "replay buffer: the picture is now \(width)x\(height); a save keeps the pictures from here on")
    }

    /// Makes the writer; a segmented one's session starts at `start`, the time of the picture
    /// that asked for it, and its segments are cut 2 s (or 1 s) apart from there
    /// (`initialSegmentStartTime`), however late the first picture it takes comes.
    private func connect(width: Int, height: Int, start: MediaTime) {
        let writer: AssetWriter
        if let segments {
            do {
                writer = try AssetWriter(fileType: .mp4)
            } catch {
                report("cannot write \(url.path): \(error.message)")
                state.withLock { $0 = .stopped }
                return
            }
            writer.outputFileTypeProfile = .mpeg4AppleHLS
            writer.preferredOutputSegmentInterval = segments.interval
            writer.initialSegmentStartTime = start
            writer.delegate = segments.delegate
        } else {
            writer = AssetWriter(streamingTo: url, formatName: formatName)
        }
        // A stream to a server: a keyframe every 2 s. A segmented writer puts one at each
        // segment interval itself (from the expected frame rate), so it is given none.
        let interval = segments == nil ? max(1, Int(min(600, (frameRate * 2).rounded()))) : nil
        let video = AssetWriterInput(
            mediaType: .video,
            outputSettings: VideoSettings(
                width: width, height: height, bitRate: max(500_000, width * height * 3), keyFrameInterval: interval,
                profile: "high", preset: "veryfast", expectedFrameRate: frameRate))
        video.expectsMediaDataInRealTime = true
        var audio: AssetWriterInput?
        do {
            try writer.add(video)
            if withAudio {
                let input = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: 2))
                input.expectsMediaDataInRealTime = true
                try writer.add(input)
                audio = input
            }
            try writer.startWriting()
            if segments != nil { writer.startSession(atSourceTime: start) }
        } catch {
            writer.cancelWriting()
            let attempt = state.withLock { state -> Int? in
                guard case .connecting = state else { return nil }
                return 0
            }
            // (What waited for the writer goes with it.)
            guard attempt != nil else { return }
            if segments != nil {
                state.withLock { $0 = .stopped }
                report("cannot write \(url.path): \(error.message)")
                return
            }
            retry(after: error.message)
            return
        }
        var link = Link(writer: writer, video: video, audio: audio, start: segments != nil ? start : nil, width: width,
                        height: height)
        // What came while the writer opened, in order, until none is left; then it streams.
        while true {
            let waiting = state.withLock { state -> [SampleBuffer]? in
                guard case .connecting(let pending) = state else { return nil }
                state = pending.isEmpty ? .streaming(link) : .connecting(pending: [])
                return pending
            }
            guard let waiting else {
                // Stopped meanwhile: what was written is finished, as stop() would have.
                if link.pictured {
                    do throws(ReelError) { try writer.finishSynchronously() } catch { report("\(url.path): \(error.message)") }
                } else {
                    writer.cancelWriting()
                }
                return
            }
            if waiting.isEmpty { break }
            if let error = writeWaiting(waiting, to: &link) {
                writer.cancelWriting()
                state.withLock { $0 = .stopped }
                report("stopped writing \(url.path): \(error.message) (the local recording goes on)")
                return
            }
        }
        let number = counts.withLock { counts -> Int in
            counts.connections += 1
            return counts.connections
        }
        if folder != nil {
            report("writing live HLS to \(url.path)")
        } else if replay != nil {
            // The buffer says nothing until a save.
        } else {
            report(number == 1 ? "streaming to \(url.absoluteString)" : "reconnected to \(url.absoluteString)")
        }
    }

    /// Writes what waited for a segmented writer (its session started): pictures wait for room
    /// rather than being dropped, sound goes after the first picture.
    private func writeWaiting(_ samples: [SampleBuffer], to link: inout Link) -> ReelError? {
        for sample in samples {
            do throws(ReelError) {
                if sample.mediaType == .video {
                    try link.video.append(sample)
                    link.pictured = true
                    counts.withLock { $0.frames += 1 }
                    if let replay, let start = link.start {
                        replay.framePassed(at: sample.presentationTime - start, lasting: sample.duration)
                    }
                } else if link.pictured, let audio = link.audio {
                    try audio.append(sample)
                }
            } catch {
                return error
            }
        }
        return nil
    }

    /// A failed connection attempt: the next waits twice as long as this one (0.25 s … 2 s).
    private var attempts = 0
    private func retry(after reason: String) {
        let delay = min(2.0, 0.25 * pow(2, Double(min(attempts, 4))))
        attempts += 1
        state.withLock { state in
            if case .connecting = state { state = .idle(retryAt: Date().addingTimeInterval(delay), attempt: attempts) }
        }
        if attempts == 1 { report("cannot reach \(url.absoluteString): \(reason); trying again") }
    }

    /// A connection that broke: its writer is cancelled off the capture queue and the next
    /// frame connects again.
    private func lose(_ link: Link, because reason: String) {
        let live = segments != nil
        let dropped = state.withLock { state -> Bool in
            guard case .streaming(let current) = state, current.writer === link.writer else { return false }
            state = live ? .stopped : .idle(retryAt: Date().addingTimeInterval(0.25), attempt: 0)
            return true
        }
        guard dropped else { return }
        if live {
            connecting.async { link.writer.cancelWriting() }
            report("stopped writing \(url.path): \(reason) (the local recording goes on)")
            return
        }
        connecting.async { [self] in
            attempts = 0
            link.writer.cancelWriting()
        }
        report("lost \(url.absoluteString): \(reason); reconnecting (the local recording goes on)")
    }
}

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
/// are not streamed (the local file has them all).
package final class LiveStreamer: @unchecked Sendable {
    private struct Link {
        var writer: AssetWriter
        var video: AssetWriterInput
        var audio: AssetWriterInput?
        /// The source time the writer's session starts at.
        var start: MediaTime?
    }

    private enum State {
        /// Not connected; the next frame at or after `retryAt` connects.
        case idle(retryAt: Date, attempt: Int)
        case connecting
        case streaming(Link)
        case stopped
    }

    package let url: URL
    /// FFmpeg's muxer for the protocol: `flv` for RTMP, `mpegts` for SRT.
    private let formatName: String
    /// For `--hls DIR`: the folder the live playlist and its segments go to (no reconnecting).
    package let folder: SegmentFolderWriter?
    /// For `--replay-buffer N`: the buffer the segments go to (no reconnecting).
    package let replay: ReplayBuffer?
    /// Segmented writing (`--hls`, `--replay-buffer`): the segments' delegate and length.
    private let segments: (delegate: any AssetWriterDelegate, interval: MediaTime)?
    private let withAudio: Bool
    private let frameRate: Double
    private let report: @Sendable (String) -> Void
    private let state = PosixMutex(State.idle(retryAt: .distantPast, attempt: 0))
    private let connecting = DispatchQueue(label: "reel.stream.connect")
    private let counts = PosixMutex((connections: 0, frames: 0))

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

    /// A live HLS recording into `folder` (an `EVENT` playlist growing a segment at a time,
    /// ended when the recording is), made by a segmented ``AssetWriter``.
    /// - Parameters:
    ///   - folder: Where the playlist and segments go.
    ///   - withAudio: Whether sound is in the segments too.
    ///   - frameRate: The capture's rate.
    ///   - report: Told of a failure.
    package init(folder: SegmentFolderWriter, withAudio: Bool, frameRate: Double, report: @escaping @Sendable (String) -> Void) {
        url = folder.folder.appendingPathComponent("playlist.m3u8")
        self.folder = folder
        replay = nil
        segments = (folder, MediaTime(value: 2, timescale: 1))
        formatName = "mp4"
        self.withAudio = withAudio
        self.frameRate = frameRate
        self.report = report
    }

    /// The replay buffer of `reel record --replay-buffer N`: 1 s segments made by a segmented
    /// ``AssetWriter``, as for `--hls`.
    /// - Parameters:
    ///   - replay: Where the segments go.
    ///   - withAudio: Whether sound is in the segments too.
    ///   - frameRate: The capture's rate.
    ///   - report: Told of a failure.
    package init(replay: ReplayBuffer, withAudio: Bool, frameRate: Double, report: @escaping @Sendable (String) -> Void) {
        url = replay.folder
        folder = nil
        self.replay = replay
        segments = (replay, ReplayBuffer.segmentInterval)
        formatName = "mp4"
        self.withAudio = withAudio
        self.frameRate = frameRate
        self.report = report
    }

    /// Connections made and frames streamed so far.
    package var statistics: (connections: Int, frames: Int) { counts.withLock { $0 } }

    package func appendVideo(_ sample: SampleBuffer) {
        guard let picture = sample.pixelBuffer else { return }
        var connect = false
        var link: Link?
        state.withLock { state in
            switch state {
            case .idle(let retryAt, _) where Date() >= retryAt:
                connect = true
                state = .connecting
            case .streaming(let current):
                link = current
            default:
                break
            }
        }
        if connect {
            let (width, height) = (picture.width - picture.width % 2, picture.height - picture.height % 2)
            let start = sample.presentationTime
            connecting.async { [self] in self.connect(width: width, height: height, start: start) }
            return
        }
        guard let link else { return }
        if let error = link.writer.error {
            lose(link, because: error.message)
            return
        }
        guard link.video.isReadyForMoreMediaData else { return }
        do {
            try link.video.append(sample)
            counts.withLock { $0.frames += 1 }
            if let replay, let start = link.start { replay.framePassed(at: sample.presentationTime - start) }
        } catch {
            lose(link, because: error.message)
        }
    }

    package func appendAudio(_ sample: SampleBuffer) {
        guard case .streaming(let link) = state.withLock({ $0 }), let audio = link.audio else { return }
        guard audio.isReadyForMoreMediaData else { return }
        try? audio.append(sample)
    }

    /// Ends the stream (the server gets the end of it) and stops connecting.
    package func stop() {
        let previous = state.withLock { state -> State in
            defer { state = .stopped }
            return state
        }
        connecting.sync {}
        // A connection being made meanwhile finds the state stopped and closes its writer itself.
        if case .streaming(let link) = previous {
            do {
                try link.writer.finishSynchronously()
                try folder?.finish()
            } catch {
                report("\(url.path): \(error.message)")
            }
        }
        replay?.finish()
    }

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
            writer.initialSegmentStartTime = .zero
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
            writer.startSession(atSourceTime: start)
        } catch {
            writer.cancelWriting()
            let attempt = state.withLock { state -> Int? in
                guard case .connecting = state else { return nil }
                return 0
            }
            guard attempt != nil else { return }
            if segments != nil {
                state.withLock { $0 = .stopped }
                report("cannot write \(url.path): \(error.message)")
                return
            }
            retry(after: error.message)
            return
        }
        let kept = state.withLock { state -> Bool in
            guard case .connecting = state else { return false }
            state = .streaming(Link(writer: writer, video: video, audio: audio, start: start))
            return true
        }
        guard kept else {
            writer.cancelWriting()
            return
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

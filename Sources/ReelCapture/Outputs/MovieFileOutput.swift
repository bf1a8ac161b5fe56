import Dispatch
public import Foundation
public import ReelAsset
public import ReelCore

/// Records the session to a file. `AVCaptureMovieFileOutput`.
///
/// The file is fragmented every ``movieFragmentInterval`` (1 s by default), so a crash
/// loses at most that much: until it is finished it is `NAME.partial.EXT`, playable. A
/// failure (a full disk, a camera that went away) keeps that file and says where it is.
public final class MovieFileOutput: CaptureOutput, @unchecked Sendable {
    /// Why a recording ended.
    public enum StopReason: String, Sendable {
        /// ``stopRecording()``, or the session stopped.
        case requested
        /// ``maxRecordedDuration`` was reached; the file is exactly that long.
        case maximumDurationReached
        /// ``maxRecordedFileSize`` was reached.
        case maximumFileSizeReached
        /// Free space fell below ``minFreeDiskSpaceLimit``.
        case diskSpaceLimitReached
        /// A device went away mid-recording.
        case interrupted
        /// Writing failed (the error says why).
        case failed
    }

    /// Called when the first frame is written, and when the file is finished (with the
    /// error, if any). `AVCaptureFileOutputRecordingDelegate`, as closures.
    public struct RecordingHandlers: Sendable {
        public var didStart: (@Sendable (URL) -> Void)?
        public var didFinish: @Sendable (URL, ReelError?) -> Void

        /// Handlers for one recording.
        /// - Parameters:
        ///   - didStart: Called with the file's URL when its first frame is written; nil to ignore.
        ///   - didFinish: Called once with the file's URL and nil when it is complete, or with the
        ///     error that ended it (the file may still hold what was recorded until then).
        public init(didStart: (@Sendable (URL) -> Void)? = nil, didFinish: @escaping @Sendable (URL, ReelError?) -> Void) {
            self.didStart = didStart
            self.didFinish = didFinish
        }
    }

    /// What the next recording takes when it starts.
    private struct Settings {
        var movieFragmentInterval = MediaTime(value: 1, timescale: 1)
        var maxRecordedDuration: MediaTime = .invalid
        var maxRecordedFileSize: Int64 = 0
        var minFreeDiskSpaceLimit: Int64 = 0
    }

    /// An open recording: its writer and inputs, where it goes, who hears of it, and the
    /// signal that wakes its finisher once the sound has reached the last picture.
    final class Sink: Sendable {
        let writer: AssetWriter
        let video: AssetWriterInput
        let audio: AssetWriterInput?
        let url: URL
        let handlers: RecordingHandlers
        let drained = DispatchSemaphore(value: 0)

        init(writer: AssetWriter, video: AssetWriterInput, audio: AssetWriterInput?, url: URL, handlers: RecordingHandlers) {
            self.writer = writer
            self.video = video
            self.audio = audio
            self.url = url
            self.handlers = handlers
        }
    }

    private let settings = PosixMutex(Settings())
    /// The recording: one state, one lock, one round trip per sample.
    private let machine = PosixMutex(RecordingStateMachine<Sink>())
    /// How long a stop waits for the sound of the last picture's moment (it comes in 21 ms
    /// runs) before closing the file without it.
    static let audioWait = DispatchTimeInterval.milliseconds(250)

    /// `movieFragmentInterval`.
    public var movieFragmentInterval: MediaTime {
        get { settings.withLock { $0.movieFragmentInterval } }
        set { settings.withLock { $0.movieFragmentInterval = newValue } }
    }
    /// Stop by itself after this long (invalid: no limit). `maxRecordedDuration`.
    public var maxRecordedDuration: MediaTime {
        get { settings.withLock { $0.maxRecordedDuration } }
        set { settings.withLock { $0.maxRecordedDuration = newValue } }
    }
    /// Stop by itself once the file is this many bytes (0: no limit). `maxRecordedFileSize`.
    public var maxRecordedFileSize: Int64 {
        get { settings.withLock { $0.maxRecordedFileSize } }
        set { settings.withLock { $0.maxRecordedFileSize = newValue } }
    }
    /// Stop by itself when the disk has less than this many bytes free (0: no limit).
    /// `minFreeDiskSpaceLimit`.
    public var minFreeDiskSpaceLimit: Int64 {
        get { settings.withLock { $0.minFreeDiskSpaceLimit } }
        set { settings.withLock { $0.minFreeDiskSpaceLimit = newValue } }
    }

    public override init() {}

    /// Whether a recording is under way. `isRecording`.
    public var isRecording: Bool { machine.withLock { $0.isRecording } }
    /// How long the recording is so far (or the last one was). `recordedDuration`.
    public var recordedDuration: MediaTime { machine.withLock { $0.summary.duration } }
    /// Frames written so far.
    public var recordedFrames: Int { machine.withLock { $0.summary.frames } }
    /// The source times the recording's pictures cover so far (or the last one's did): from its
    /// first picture's time to the end of its last, those waiting for the writer to open
    /// included; nil before a first picture. A picture is decided on as the session hands it
    /// over, before the outputs after this one get it, so they can take the same pictures
    /// (`reel record`'s live outputs do).
    package var recordedTimeRange: (start: MediaTime, end: MediaTime)? { machine.withLock { $0.takenRange } }
    /// Bytes on disk so far. `recordedFileSize`.
    public var recordedFileSize: Int64 {
        guard let path = machine.withLock({ $0.sink?.writer.inProgressURL?.path }),
              let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return 0 }
        return size.int64Value
    }
    /// Why the last recording ended.
    public var stopReason: StopReason? { machine.withLock { $0.summary.reason } }

    /// Starts a recording to `url`; `didFinish` is called with the URL and any error when it
    /// ends. `startRecording(to:recordingDelegate:)`.
    /// - Parameters:
    ///   - url: The movie to write; until it is finished it is `NAME.partial.EXT`.
    ///   - fileType: The container; by default the one `url`'s extension names (a `.mov` is a
    ///     QuickTime movie), MP4 for any other.
    ///   - withAudio: Whether to record the session's microphone, when it has one.
    ///   - didFinish: Called once the file is finished, with the error if any.
    /// - Throws: ``ReelError`` when the file cannot be created (a missing folder, say), or
    ///   `.invalidState` when a recording is under way or the output is in no session.
    public func startRecording(to url: URL, fileType: FileType? = nil, audio withAudio: Bool = true,
                               didFinish: @escaping @Sendable (URL, ReelError?) -> Void) throws(ReelError) {
        try startRecording(to: url, fileType: fileType, audio: withAudio, handlers: RecordingHandlers(didFinish: didFinish))
    }

    /// ``startRecording(to:fileType:audio:didFinish:)`` with a start handler too.
    /// - Parameters:
    ///   - url: The movie to write; until it is finished it is `NAME.partial.EXT`.
    ///   - fileType: The container; by default the one `url`'s extension names, MP4 for any other.
    ///   - withAudio: Whether to record the session's microphone, when it has one.
    ///   - handlers: Told when the first frame is written and when the file is finished.
    /// - Throws: ``ReelError`` when the file cannot be created, or `.invalidState` when a
    ///   recording is under way or the output is in no session.
    public func startRecording(to url: URL, fileType: FileType? = nil, audio withAudio: Bool = true,
                               handlers: RecordingHandlers) throws(ReelError) {
        guard let session else { throw ReelError(.invalidState, "add the output to a session first") }
        // The recording starts now, not once the encoder is open: the pictures of the next
        // moments wait for it.
        guard machine.withLock({ $0.beginOpening() }) else {
            throw ReelError(.invalidState, "a recording is under way", subject: url.path)
        }
        let type = fileType ?? FileType(pathExtension: url.pathExtension) ?? .mp4
        let current = settings.withLock { $0 }
        let sink: Sink
        do throws(ReelError) {
            sink = try makeSink(url: url, fileType: type, audio: withAudio, session: session, handlers: handlers,
                                fragmentInterval: current.movieFragmentInterval)
        } catch {
            machine.withLock { $0.openingFailed() }
            throw error
        }
        let stopped = machine.withLock {
            $0.opened(sink, hasAudio: sink.audio != nil, limit: current.maxRecordedDuration)
        }
        if let stopped { finish(stopped) }
    }

    /// A started writer with a video input at the session's size and rate, and an audio
    /// input when asked for and the session has a microphone.
    private func makeSink(url: URL, fileType: FileType, audio withAudio: Bool, session: CaptureSession,
                          handlers: RecordingHandlers, fragmentInterval: MediaTime) throws(ReelError) -> Sink {
        let (width, height) = session.frameSize
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        writer.movieFragmentInterval = fragmentInterval
        let video = AssetWriterInput(mediaType: .video, outputSettings: .recommended(
            width: width, height: height, frameRate: session.frameRate, fileType: fileType))
        video.expectsMediaDataInRealTime = true
        // The connection's orientation and mirroring, as the display matrix (the pixels stay as taken).
        video.transform = videoConnection.displayOrientation.transform(for: Size(width: Double(width), height: Double(height)))
        try writer.add(video)
        var audio: AssetWriterInput?
        if withAudio, session.inputs.contains(where: { $0.device.hasMediaType(.audio) }) {
            let input = AssetWriterInput(mediaType: .audio, outputSettings: .recommended(channelCount: 1, fileType: fileType))
            input.expectsMediaDataInRealTime = true
            try writer.add(input)
            audio = input
        }
        try writer.startWriting()
        return Sink(writer: writer, video: video, audio: audio, url: url, handlers: handlers)
    }

    /// Ends the recording and finishes the file; `didFinish` follows. The sound ends with the
    /// last picture. `stopRecording()`.
    public func stopRecording() {
        if let order = machine.withLock({ $0.stop(.requested) }) { finish(order) }
    }

    /// Waits until the sound has reached the last picture (the writer cuts it there), then
    /// closes the file and says so. `soundMayCome` is false once the session has stopped
    /// delivering (stopped or interrupted): then only appends under way are waited for.
    private func finish(_ order: RecordingStateMachine<Sink>.FinishOrder, soundMayCome: Bool = true) {
        let sink = order.sink
        if order.end.isNumeric { sink.writer.endSession(atSourceTime: order.end) }
        if order.mustWait {
            // A late microphone (a busy machine) is waited for while its sound keeps coming,
            // up to a few seconds; one that has stopped, for one wait.
            var seen = machine.withLock { $0.soundWrittenWhileFinishing } ?? .invalid
            var waits = 0
            while true {
                if soundMayCome, sink.drained.wait(timeout: .now() + Self.audioWait) == .success { break }
                waits += 1
                let giveUp = machine.withLock { machine -> Bool? in
                    if soundMayCome, waits < 12, let written = machine.soundWrittenWhileFinishing, written != seen {
                        seen = written
                        return nil
                    }
                    return machine.stopWaitingForAudio()
                }
                guard let giveUp else { continue }
                // An append is under way; its end wakes us.
                if !giveUp { sink.drained.wait() }
                break
            }
        }
        var (outcome, _) = machine.withLock { $0.finished() }
        do throws(ReelError) { try sink.writer.finishSynchronously() } catch { outcome = outcome ?? error }
        sink.handlers.didFinish(sink.url, outcome)
    }

    /// Finishes off the capture queue, so that the frame being delivered is not held up.
    private func finishSoon(_ order: RecordingStateMachine<Sink>.FinishOrder) {
        DispatchQueue.global().async { [self] in finish(order) }
    }

    private func carryOut(_ after: RecordingStateMachine<Sink>.AfterWrite, for sink: Sink) {
        switch after {
        case .nothing: break
        case .wakeFinisher: sink.drained.signal()
        case .finish(let order): finishSoon(order)
        }
    }

    override func deliver(_ sample: SampleBuffer) {
        if sample.mediaType == .video { deliverPicture(sample) } else { deliverSound(sample) }
    }

    private func deliverPicture(_ sample: SampleBuffer) {
        let action = machine.withLock { machine in
            let action = machine.video(sample)
            // The writer's session starts before any sound can be appended: the sound's
            // thread sees the first picture only once this lock is let go.
            if case .write(let sink, _, let startAt?, let limitEnd, _, _) = action {
                sink.writer.startSession(atSourceTime: startAt)
                if let limitEnd { sink.writer.endSession(atSourceTime: limitEnd) }
            }
            return action
        }
        switch action {
        case .drop:
            return
        case .finish(let order):
            finishSoon(order)
        case .write(let sink, let pictures, let startAt, _, let frames, let order):
            if startAt != nil {
                if let didStart = sink.handlers.didStart {
                    let url = sink.url
                    DispatchQueue.global().async { didStart(url) }
                }
            }
            var failure: ReelError?
            do throws(ReelError) {
                // The pictures that waited for the encoder first, then this one.
                for picture in pictures { try sink.video.append(picture) }
            } catch {
                failure = error
            }
            carryOut(machine.withLock { $0.videoWritten(error: failure) }, for: sink)
            if let order { finishSoon(order) } else if failure == nil { checkLimits(sink, frames: frames) }
        }
    }

    private func deliverSound(_ sample: SampleBuffer) {
        guard case .write(let sink, let samples) = machine.withLock({ $0.audio(sample) }) else { return }
        var failure: ReelError?
        var end = MediaTime.invalid
        do throws(ReelError) {
            for run in samples {
                try sink.audio?.append(run)
                end = run.timeRange.end
            }
        } catch {
            failure = error
        }
        carryOut(machine.withLock { $0.audioWritten(end: end, error: failure) }, for: sink)
    }

    /// Ends the recording at the size or free-space limit (the duration limit is the state's).
    private func checkLimits(_ sink: Sink, frames: Int) {
        // The file grows a fragment at a time: checking twice a second is plenty.
        guard frames % 15 == 0 else { return }
        let limits = settings.withLock { $0 }
        var reason: StopReason?
        if limits.maxRecordedFileSize > 0, recordedFileSize >= limits.maxRecordedFileSize {
            reason = .maximumFileSizeReached
        } else if limits.minFreeDiskSpaceLimit > 0, let path = sink.writer.inProgressURL?.deletingLastPathComponent().path,
                  let free = (try? FileManager.default.attributesOfFileSystem(forPath: path))?[.systemFreeSize] as? NSNumber,
                  free.int64Value < limits.minFreeDiskSpaceLimit {
            reason = .diskSpaceLimitReached
        }
        if let reason, let order = machine.withLock({ $0.stop(reason) }) { finishSoon(order) }
    }

    override func sessionDidStop() {
        // The session has delivered its last sound: nothing more is waited for.
        if let order = machine.withLock({ $0.stop(.requested) }) { finish(order, soundMayCome: false) }
        // The session's clock starts again at zero when it runs again: old sound would
        // land in the next recording.
        machine.withLock { $0.forgetEarlyAudio() }
    }

    override func sessionWasInterrupted(_ error: ReelError) {
        var stopped = error
        stopped.message = "recording stopped: \(error.message)"
        if let order = machine.withLock({ $0.stop(.interrupted, error: stopped) }) { finish(order, soundMayCome: false) }
    }
}

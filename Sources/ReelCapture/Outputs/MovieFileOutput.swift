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

        public init(didStart: (@Sendable (URL) -> Void)? = nil, didFinish: @escaping @Sendable (URL, ReelError?) -> Void) {
            self.didStart = didStart
            self.didFinish = didFinish
        }
    }

    /// `movieFragmentInterval`.
    public var movieFragmentInterval = MediaTime(value: 1, timescale: 1)
    /// Stop by itself after this long (invalid: no limit). `maxRecordedDuration`.
    public var maxRecordedDuration: MediaTime = .invalid
    /// Stop by itself once the file is this many bytes (0: no limit). `maxRecordedFileSize`.
    public var maxRecordedFileSize: Int64 = 0
    /// Stop by itself when the disk has less than this many bytes free (0: no limit).
    /// `minFreeDiskSpaceLimit`.
    public var minFreeDiskSpaceLimit: Int64 = 0

    private let lock = NSLock()
    /// Serialises audio appends with the flush of ``earlyAudio``.
    private let audioOrder = NSLock()
    private var writer: AssetWriter?
    /// The writer being finished, which still takes the last audio.
    private var finishing: AssetWriter?
    private var video: AssetWriterInput?
    private var audio: AssetWriterInput?
    private var firstTime: MediaTime = .invalid
    private var endTime: MediaTime = .invalid
    private var lastTime: MediaTime = .zero
    private var audioEnd: MediaTime = .invalid
    private var handlers: RecordingHandlers?
    private var url: URL?
    private var failure: ReelError?
    private var frames = 0
    private var stopping = false
    private var _stopReason: StopReason?
    /// The last half second of audio before the first picture; written once the session has started.
    private var earlyAudio: [SampleBuffer] = []
    /// The pictures that come while ``startRecording(to:fileType:audio:handlers:)`` opens the
    /// encoder (10-300 ms); nil when no recording is being opened.
    private var opening: [SampleBuffer]?
    /// Those pictures once the writer is ready: the next delivery writes them first.
    private var waiting: [SampleBuffer] = []
    /// At most two seconds of pictures wait for an encoder to open.
    private static let openingLimit = 60

    public override init() {}

    /// Whether a recording is under way. `isRecording`.
    public var isRecording: Bool { lock.withLock { writer != nil } }
    /// How long the recording is so far. `recordedDuration`.
    public var recordedDuration: MediaTime { lock.withLock { firstTime.isNumeric ? lastTime - firstTime : .zero } }
    /// Frames written so far.
    public var recordedFrames: Int { lock.withLock { frames } }
    /// Bytes on disk so far. `recordedFileSize`.
    public var recordedFileSize: Int64 {
        guard let path = lock.withLock({ writer?.inProgressURL?.path }),
              let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return 0 }
        return size.int64Value
    }
    /// Why the last recording ended.
    public var stopReason: StopReason? { lock.withLock { _stopReason } }

    /// Starts a recording to `url`; `didFinish` is called with the URL and any error when it
    /// ends. `startRecording(to:recordingDelegate:)`.
    /// - Throws: ``ReelError`` when the file cannot be created (a missing folder, say), or
    ///   `.invalidState` when a recording is under way or the output is in no session.
    public func startRecording(to url: URL, fileType: FileType = .mp4, audio withAudio: Bool = true,
                               didFinish: @escaping @Sendable (URL, ReelError?) -> Void) throws(ReelError) {
        try startRecording(to: url, fileType: fileType, audio: withAudio, handlers: RecordingHandlers(didFinish: didFinish))
    }

    /// ``startRecording(to:fileType:audio:didFinish:)`` with a start handler too.
    public func startRecording(to url: URL, fileType: FileType = .mp4, audio withAudio: Bool = true,
                               handlers: RecordingHandlers) throws(ReelError) {
        guard let session else { throw ReelError(.invalidState, "add the output to a session first") }
        try lock.locked { () throws(ReelError) -> Void in
            guard self.writer == nil, opening == nil else {
                throw ReelError(.invalidState, "a recording is under way", subject: url.path)
            }
            // The recording starts now, not once the encoder is open: the pictures of
            // the next moments wait for it.
            opening = []
        }
        let writer: AssetWriter, video: AssetWriterInput, audio: AssetWriterInput?
        do throws(ReelError) {
            (writer, video, audio) = try makeWriter(url: url, fileType: fileType, audio: withAudio, session: session)
        } catch {
            lock.withLock { opening = nil }
            throw error
        }
        lock.withLock {
            self.writer = writer
            self.video = video
            self.audio = audio
            self.url = url
            self.handlers = handlers
            waiting = opening ?? []
            opening = nil
            firstTime = .invalid
            endTime = .invalid
            lastTime = .zero
            audioEnd = .invalid
            frames = 0
            failure = nil
            stopping = false
            _stopReason = nil
        }
    }

    /// A started writer with a video input at the session's size and rate, and an audio
    /// input when asked for and the session has a microphone.
    private func makeWriter(url: URL, fileType: FileType, audio withAudio: Bool, session: CaptureSession)
        throws(ReelError) -> (AssetWriter, AssetWriterInput, AssetWriterInput?) {
        let (width, height) = session.frameSize
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        writer.movieFragmentInterval = movieFragmentInterval
        let video = AssetWriterInput(mediaType: .video, outputSettings: .recommended(
            width: width, height: height, frameRate: session.frameRate, fileType: fileType))
        video.expectsMediaDataInRealTime = true
        try writer.add(video)
        var audio: AssetWriterInput?
        if withAudio, session.inputs.contains(where: { $0.device.hasMediaType(.audio) }) {
            let input = AssetWriterInput(mediaType: .audio, outputSettings: .recommended(channelCount: 1, fileType: fileType))
            input.expectsMediaDataInRealTime = true
            try writer.add(input)
            audio = input
        }
        try writer.startWriting()
        return (writer, video, audio)
    }

    /// Ends the recording and finishes the file; `didFinish` follows. `stopRecording()`.
    public func stopRecording() { finish(.requested) }

    private func finish(_ reason: StopReason, error: ReelError? = nil) {
        let (writer, handlers, url, failure) = lock.withLock {
            () -> (AssetWriter?, RecordingHandlers?, URL?, ReelError?) in
            defer {
                finishing = self.writer
                self.writer = nil
            }
            if self.writer != nil { _stopReason = self.failure == nil ? reason : .failed }
            return (self.writer, self.handlers, self.url, self.failure ?? error)
        }
        guard let writer, let url else { return }
        // The sound ends with the last picture: wait (briefly) for the audio of that
        // moment, which comes in 21 ms buffers, then cut both there.
        let (end, hasAudio) = lock.withLock { (lastTime, audio != nil) }
        if hasAudio, firstTimeIsSet {
            let deadline = DispatchTime.now() + .milliseconds(150)
            while lock.withLock({ !audioEnd.isNumeric || audioEnd < end }), DispatchTime.now() < deadline {
                usleep(5000)
            }
        }
        lock.withLock {
            video = nil
            audio = nil
            finishing = nil
        }
        if firstTimeIsSet { writer.endSession(atSourceTime: end) }
        var outcome = failure
        do throws(ReelError) { try writer.finishSynchronously() } catch { outcome = outcome ?? error }
        handlers?.didFinish(url, outcome)
    }

    private var firstTimeIsSet: Bool { lock.withLock { firstTime.isNumeric } }

    override func deliver(_ sample: SampleBuffer) {
        // While finishing, only the audio that catches up with the last picture is taken.
        let (writer, video, audio, pictures) = lock.withLock {
            () -> (AssetWriter?, AssetWriterInput?, AssetWriterInput?, [SampleBuffer]) in
            if self.writer == nil, sample.mediaType == .video {
                if opening != nil {
                    opening?.append(sample)
                    if let count = opening?.count, count > Self.openingLimit { opening?.removeFirst() }
                }
                return (nil, nil, nil, [])
            }
            guard sample.mediaType == .video else { return (self.writer ?? finishing, self.video, self.audio, []) }
            defer { if !waiting.isEmpty { waiting = [] } }
            return (self.writer ?? finishing, self.video, self.audio, waiting)
        }
        guard let writer else {
            // Keep the last moments of sound even before a recording: the first picture
            // may come after the sound of its moment (the camera's first frame is slow).
            if sample.mediaType == .audio { lock.withLock { remember(sample) } }
            return
        }
        do throws(ReelError) {
            if sample.mediaType == .video {
                // The pictures that waited for the encoder first, then this one.
                for picture in pictures {
                    guard try write(picture, writer: writer, video: video, audio: audio) else { return }
                }
                _ = try write(sample, writer: writer, video: video, audio: audio)
            } else if let audio {
                audioOrder.lock()
                defer { audioOrder.unlock() }
                let (started, end) = lock.withLock { () -> (Bool, MediaTime) in
                    if firstTime.isValid { return (true, endTime) }
                    remember(sample)
                    return (false, endTime)
                }
                if started, !end.isNumeric || sample.presentationTime < end {
                    try audio.append(sample)
                    lock.withLock { audioEnd = sample.timeRange.end }
                }
            }
        } catch {
            let first = lock.withLock { () -> Bool in
                defer { if failure == nil { failure = error } }
                return failure == nil && !stopping
            }
            if first { stopSoon(.failed) }
        }
    }

    /// Writes one picture; false when it falls past the duration limit, which ends the
    /// recording (the camera may have skipped ahead past the frame that reaches it).
    private func write(_ picture: SampleBuffer, writer: AssetWriter, video: AssetWriterInput?,
                       audio: AssetWriterInput?) throws(ReelError) -> Bool {
        guard try startSessionIfNeeded(at: picture, writer: writer, audio: audio) else {
            stopSoon(.maximumDurationReached)
            return false
        }
        try video?.append(picture)
        checkLimits()
        return true
    }

    /// Keeps `sample` among the last half second of audio (called with `lock` held).
    private func remember(_ sample: SampleBuffer) {
        earlyAudio.append(sample)
        if earlyAudio.count > 24 { earlyAudio.removeFirst() }
    }

    /// Counts the frame and, on the first one, starts the writer's session there and writes
    /// the audio that came before it. False when the frame falls after the end (the
    /// duration limit was reached). Holding `audioOrder` throughout keeps a later audio
    /// buffer, arriving on its own thread, from overtaking the buffered ones.
    private func startSessionIfNeeded(at sample: SampleBuffer, writer: AssetWriter,
                                      audio: AssetWriterInput?) throws(ReelError) -> Bool {
        audioOrder.lock()
        defer { audioOrder.unlock() }
        let limit = maxRecordedDuration
        let (start, early, accepted, started) = lock.withLock { () -> (MediaTime, [SampleBuffer], Bool, Bool) in
            var early: [SampleBuffer] = []
            var started = false
            if !firstTime.isValid {
                firstTime = sample.presentationTime
                writer.startSession(atSourceTime: sample.presentationTime)
                if limit.isNumeric, limit > .zero { endTime = firstTime + limit }
                early = earlyAudio
                earlyAudio = []
                started = true
            }
            guard !endTime.isNumeric || sample.presentationTime < endTime else { return (firstTime, [], false, false) }
            lastTime = sample.presentationTime + sample.duration
            if endTime.isNumeric, lastTime > endTime { lastTime = endTime }
            frames += 1
            return (firstTime, early, true, started)
        }
        for buffered in early where buffered.timeRange.end > start { try audio?.append(buffered) }
        if started, let url = lock.withLock({ self.url }), let didStart = lock.withLock({ handlers?.didStart }) {
            DispatchQueue.global().async { didStart(url) }
        }
        return accepted
    }

    /// Ends the recording at the duration, size or free-space limit.
    private func checkLimits() {
        let (duration, count, end) = lock.withLock { (lastTime - firstTime, frames, endTime) }
        if end.isNumeric, duration >= end - lock.withLock({ firstTime }) { return stopSoon(.maximumDurationReached) }
        // The file grows a fragment at a time: checking twice a second is plenty.
        guard count % 15 == 0 else { return }
        if maxRecordedFileSize > 0, recordedFileSize >= maxRecordedFileSize { return stopSoon(.maximumFileSizeReached) }
        if minFreeDiskSpaceLimit > 0, let path = lock.withLock({ writer?.inProgressURL?.deletingLastPathComponent().path }),
           let free = (try? FileManager.default.attributesOfFileSystem(forPath: path))?[.systemFreeSize] as? NSNumber,
           free.int64Value < minFreeDiskSpaceLimit {
            stopSoon(.diskSpaceLimitReached)
        }
    }

    /// Finishes off the capture queue, so that the frame being delivered is not held up.
    private func stopSoon(_ reason: StopReason) {
        let first = lock.withLock { () -> Bool in
            defer { stopping = true }
            return !stopping && writer != nil
        }
        if first { DispatchQueue.global().async { [self] in finish(reason) } }
    }

    override func sessionDidStop() {
        if isRecording { stopRecording() }
        // The session's clock starts again at zero when it runs again: old sound would
        // land in the next recording.
        lock.withLock { earlyAudio = [] }
    }

    override func sessionWasInterrupted(_ error: ReelError) {
        guard isRecording else { return }
        var stopped = error
        stopped.message = "recording stopped: \(error.message)"
        finish(.interrupted, error: stopped)
    }
}

import Dispatch
public import Foundation
public import ReelAsset
public import ReelCore

/// Records the session to a file. `AVCaptureMovieFileOutput`.
///
/// The file is fragmented every ``movieFragmentInterval`` (1 s by default), so a crash
/// loses at most that much: until it is finished it is `NAME.partial.EXT`, playable.
public final class MovieFileOutput: CaptureOutput, @unchecked Sendable {
    /// `movieFragmentInterval`.
    public var movieFragmentInterval = MediaTime(value: 1, timescale: 1)
    /// Stop by itself after this long (invalid: no limit). `maxRecordedDuration`.
    public var maxRecordedDuration: MediaTime = .invalid
    weak var session: CaptureSession?
    private let lock = NSLock()
    /// Serialises audio appends with the flush of ``earlyAudio``.
    private let audioOrder = NSLock()
    private var writer: AssetWriter?
    private var video: AssetWriterInput?
    private var audio: AssetWriterInput?
    private var firstTime: MediaTime = .invalid
    private var lastTime: MediaTime = .zero
    private var finish: (@Sendable (URL, ReelError?) -> Void)?
    private var url: URL?
    private var failure: ReelError?
    private var frames = 0
    private var stopping = false
    /// Audio that came before the first picture; written once the session has started.
    private var earlyAudio: [SampleBuffer] = []

    public override init() {}

    /// Whether a recording is under way. `isRecording`.
    public var isRecording: Bool { lock.withLock { writer != nil } }
    /// How long the recording is so far. `recordedDuration`.
    public var recordedDuration: MediaTime { lock.withLock { firstTime.isNumeric ? lastTime - firstTime : .zero } }
    /// Frames written so far.
    public var recordedFrames: Int { lock.withLock { frames } }

    /// Starts a recording to `url`; `didFinish` is called with the URL and any error when it
    /// ends. `startRecording(to:recordingDelegate:)`.
    /// - Throws: ``ReelError`` when the file cannot be created (a missing folder, say).
    public func startRecording(to url: URL, fileType: FileType = .mp4, audio withAudio: Bool = true,
                               didFinish: @escaping @Sendable (URL, ReelError?) -> Void) throws(ReelError) {
        guard let session else { throw ReelError(.invalidState, "add the output to a session first") }
        let (width, height) = session.frameSize
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        writer.movieFragmentInterval = movieFragmentInterval
        let video = AssetWriterInput(mediaType: .video, outputSettings: .recommended(
            width: width, height: height, frameRate: session.frameRate, fileType: fileType))
        video.expectsMediaDataInRealTime = true
        try writer.add(video)
        var audio: AssetWriterInput?
        if withAudio, session.inputs.contains(where: { $0.device.mediaType == .audio }) {
            let input = AssetWriterInput(mediaType: .audio, outputSettings: .recommended(channelCount: 1, fileType: fileType))
            input.expectsMediaDataInRealTime = true
            try writer.add(input)
            audio = input
        }
        try writer.startWriting()
        lock.withLock {
            self.writer = writer
            self.video = video
            self.audio = audio
            self.url = url
            finish = didFinish
            firstTime = .invalid
            earlyAudio = []
            frames = 0
            failure = nil
            stopping = false
        }
    }

    /// Ends the recording and finishes the file; `didFinish` follows. `stopRecording()`.
    public func stopRecording() {
        let (writer, finish, url, failure) = lock.withLock { () -> (AssetWriter?, (@Sendable (URL, ReelError?) -> Void)?, URL?, ReelError?) in
            defer {
                self.writer = nil
                video = nil
                audio = nil
            }
            return (self.writer, self.finish, self.url, self.failure)
        }
        guard let writer, let url else { return }
        var outcome = failure
        if outcome == nil {
            do throws(ReelError) { try writer.finishSynchronously() } catch { outcome = error }
        } else {
            writer.cancelWriting()
        }
        finish?(url, outcome)
    }

    override func deliver(_ sample: SampleBuffer) {
        let (writer, video, audio) = lock.withLock { (self.writer, self.video, self.audio) }
        guard let writer else { return }
        do throws(ReelError) {
            if sample.mediaType == .video {
                try startSessionIfNeeded(at: sample, writer: writer, audio: audio)
                try video?.append(sample)
                if maxRecordedDuration.isNumeric, recordedDuration >= maxRecordedDuration {
                    let first = lock.withLock { () -> Bool in
                        defer { stopping = true }
                        return !stopping
                    }
                    if first { DispatchQueue.global().async { [self] in stopRecording() } }
                }
            } else if let audio {
                audioOrder.lock()
                defer { audioOrder.unlock() }
                let started = lock.withLock { () -> Bool in
                    if firstTime.isValid { return true }
                    earlyAudio.append(sample)
                    if earlyAudio.count > 100 { earlyAudio.removeFirst() }
                    return false
                }
                if started { try audio.append(sample) }
            }
        } catch {
            let first = lock.withLock { () -> Bool in
                if failure == nil { failure = error }
                defer { stopping = true }
                return !stopping
            }
            // A failed writer (a full disk) takes nothing more: end the recording now, so that
            // `didFinish` reports the error instead of the recording running on unwritten.
            if first { DispatchQueue.global().async { [self] in stopRecording() } }
        }
    }

    /// Counts the frame and, on the first one, starts the writer's session there and writes
    /// the audio that came before it. Holding `audioOrder` throughout keeps a later audio
    /// buffer, arriving on its own thread, from overtaking the buffered ones.
    private func startSessionIfNeeded(at sample: SampleBuffer, writer: AssetWriter,
                                      audio: AssetWriterInput?) throws(ReelError) {
        audioOrder.lock()
        defer { audioOrder.unlock() }
        let (start, early) = lock.withLock { () -> (MediaTime, [SampleBuffer]) in
            var early: [SampleBuffer] = []
            if !firstTime.isValid {
                firstTime = sample.presentationTime
                writer.startSession(atSourceTime: sample.presentationTime)
                early = earlyAudio
                earlyAudio = []
            }
            lastTime = sample.presentationTime + sample.duration
            frames += 1
            return (firstTime, early)
        }
        for buffered in early where buffered.timeRange.end > start { try audio?.append(buffered) }
    }

    override func sessionDidStop() { if isRecording { stopRecording() } }
}

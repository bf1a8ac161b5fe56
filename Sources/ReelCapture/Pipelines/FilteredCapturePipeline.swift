import Dispatch
public import Foundation
public import ReelAsset
public import ReelCore
public import ReelFilters

/// The seed camera app's pipeline as a reusable piece: a data output per medium on its
/// own queue; each frame filtered once by a live filter that can be swapped at any
/// moment; the same filtered frame handed to the preview and, while recording, to a new
/// real-time `AssetWriter` per recording (recommended settings, a pixel-buffer adaptor,
/// the session started at the first frame's time).
public final class FilteredCapturePipeline: @unchecked Sendable {
    public let session: CaptureSession
    private let video = VideoDataOutput()
    private let audio = AudioDataOutput()
    private let videoQueue = DispatchQueue(label: "reel.pipeline.video")
    private let audioQueue = DispatchQueue(label: "reel.pipeline.audio")
    private let lock = NSLock()
    private var _filter: FilterChain?
    private var preview: (@Sendable (SampleBuffer) -> Void)?
    private var recording: Recording?
    /// The last half second of audio, so that a recording has the sound of its first
    /// picture's moment, which may come before the picture does.
    private var recentAudio: [SampleBuffer] = []
    private var _videoOrientation: CaptureVideoOrientation = .landscapeRight

    /// Which way up each new recording is meant to be seen: written as its writer input's
    /// `transform` (the seed's rotation transform from the device orientation), the pixels as taken.
    public var videoOrientation: CaptureVideoOrientation {
        get { lock.withLock { _videoOrientation } }
        set { lock.withLock { _videoOrientation = newValue } }
    }

    /// One recording: its writer, inputs and adaptor.
    private final class Recording: @unchecked Sendable {
        let writer: AssetWriter
        let video: AssetWriterInput
        let adaptor: AssetWriterInputPixelBufferAdaptor
        let audio: AssetWriterInput?
        var started = false
        /// Audio before this was written from the recent buffers.
        var audioFrom = MediaTime.invalid
        var frames = 0
        var failure: ReelError?

        init(writer: AssetWriter, video: AssetWriterInput, audio: AssetWriterInput?) {
            self.writer = writer
            self.video = video
            self.audio = audio
            adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
        }
    }

    /// Adds a video and an audio data output to `session` (which should have its inputs).
    /// - Throws: ``ReelError`` when the outputs cannot join the session.
    public init(session: CaptureSession, filter: FilterChain? = nil) throws(ReelError) {
        self.session = session
        _filter = filter
        video.alwaysDiscardsLateVideoFrames = false
        try session.add(video)
        try session.add(audio)
        video.setSampleBufferHandler(queue: videoQueue) { [weak self] sample in self?.handleVideo(sample) }
        audio.setSampleBufferHandler(queue: audioQueue) { [weak self] sample in self?.handleAudio(sample) }
    }

    /// The live filter; set it at any moment (the seed's random-filter button).
    public var filter: FilterChain? {
        get { lock.withLock { _filter } }
        set { lock.withLock { _filter = newValue } }
    }

    /// Receives every filtered frame, on the pipeline's video queue.
    public func setPreviewHandler(_ handler: (@Sendable (SampleBuffer) -> Void)?) { lock.withLock { preview = handler } }

    public var isRecording: Bool { lock.withLock { recording != nil } }

    /// Starts a new file; the session starts at the next frame's time. The file type is the
    /// one `url`'s extension names unless given.
    /// - Throws: ``ReelError`` when recording already or the file cannot be created.
    public func startRecording(to url: URL, fileType: FileType? = nil) throws(ReelError) {
        let fileType = fileType ?? FileType(pathExtension: url.pathExtension) ?? .mp4
        guard !isRecording else { throw ReelError(.invalidState, "a recording is under way", subject: url.path) }
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let videoInput = AssetWriterInput(mediaType: .video, outputSettings: video.recommendedVideoSettingsForAssetWriter(writingTo: fileType))
        videoInput.expectsMediaDataInRealTime = true
        let (width, height) = session.frameSize
        videoInput.transform = videoOrientation.displayOrientation(mirrored: false)
            .transform(for: Size(width: Double(width), height: Double(height)))
        try writer.add(videoInput)
        var audioInput: AssetWriterInput?
        if session.inputs.contains(where: { $0.device.hasMediaType(.audio) }) {
            let input = AssetWriterInput(mediaType: .audio, outputSettings: audio.recommendedAudioSettingsForAssetWriter(writingTo: fileType))
            input.expectsMediaDataInRealTime = true
            try writer.add(input)
            audioInput = input
        }
        try writer.startWriting()
        let recording = Recording(writer: writer, video: videoInput, audio: audioInput)
        lock.withLock { self.recording = recording }
    }

    /// Finishes the file and returns how many frames it has.
    /// - Throws: ``ReelError``: the first error of the recording, or of finishing it.
    @discardableResult
    public func stopRecording() async throws(ReelError) -> Int {
        // Let the frames already queued reach the writer, then take it away from them.
        await withCheckedContinuation { continuation in videoQueue.async { continuation.resume() } }
        guard let recording = lock.withLock({ () -> Recording? in
            defer { self.recording = nil }
            return self.recording
        }) else { throw ReelError(.invalidState, "nothing is being recorded") }
        if let failure = lock.withLock({ recording.failure }) {
            recording.writer.cancelWriting()
            throw failure
        }
        try await recording.writer.finishWriting()
        return lock.withLock { recording.frames }
    }

    private func handleVideo(_ sample: SampleBuffer) {
        guard let picture = sample.pixelBuffer else { return }
        let (filter, preview, recording) = lock.withLock { (_filter, self.preview, self.recording) }
        var shown = picture
        if let filter {
            do throws(ReelError) {
                shown = try filter.apply(picture)
            } catch {
                // The preview shows the picture unfiltered; a recording stops with the reason.
                if let recording { lock.withLock { if recording.failure == nil { recording.failure = error } } }
            }
        }
        let filtered = SampleBuffer(pixelBuffer: shown, presentationTime: sample.presentationTime, duration: sample.duration)
        preview?(filtered)
        guard let recording, lock.withLock({ recording.failure == nil }) else { return }
        let first = lock.withLock { () -> Bool in
            defer { recording.started = true }
            return !recording.started
        }
        if first {
            recording.writer.startSession(atSourceTime: sample.presentationTime)
            let earlier = lock.withLock { recentAudio }
            for buffered in earlier where buffered.timeRange.end > sample.presentationTime {
                do throws(ReelError) {
                    try recording.audio?.append(buffered)
                } catch {
                    lock.withLock { if recording.failure == nil { recording.failure = error } }
                }
            }
            lock.withLock { recording.audioFrom = earlier.last?.timeRange.end ?? .invalid }
        }
        do throws(ReelError) {
            try recording.adaptor.append(shown, withPresentationTime: sample.presentationTime)
            lock.withLock { recording.frames += 1 }
        } catch {
            lock.withLock { recording.failure = error }
        }
    }

    private func handleAudio(_ sample: SampleBuffer) {
        guard let recording = lock.withLock({ () -> Recording? in
            recentAudio.append(sample)
            if recentAudio.count > 24 { recentAudio.removeFirst() }
            guard let recording = self.recording, recording.started, recording.failure == nil,
                  !recording.audioFrom.isNumeric || sample.presentationTime >= recording.audioFrom else { return nil }
            return recording
        }) else { return }
        do throws(ReelError) { try recording.audio?.append(sample) } catch { lock.withLock { recording.failure = error } }
    }
}

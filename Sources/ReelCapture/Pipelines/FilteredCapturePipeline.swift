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
    /// The live filter, the preview and the recordings' orientation: set from any thread,
    /// read once a frame (or once a recording).
    private struct Settings {
        var filter: FilterChain?
        var preview: (@Sendable (SampleBuffer) -> Void)?
        var videoOrientation: CaptureVideoOrientation = .landscapeRight
    }

    /// A recording's writer, its inputs and the adaptor.
    final class Sink: Sendable {
        let writer: AssetWriter
        let video: AssetWriterInput
        let adaptor: AssetWriterInputPixelBufferAdaptor
        let audio: AssetWriterInput?

        init(writer: AssetWriter, video: AssetWriterInput, audio: AssetWriterInput?) {
            self.writer = writer
            self.video = video
            self.audio = audio
            adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
        }
    }

    private let settings: PosixMutex<Settings>
    /// The recording: one state, one lock.
    private let machine = PosixMutex(PipelineRecordingStateMachine<Sink>())

    /// Adds a video and an audio data output to `session` (which should have its inputs).
    /// - Parameters:
    ///   - session: The session to capture from.
    ///   - filter: The live filter to start with (nil: pictures as the camera makes them).
    /// - Throws: ``ReelError`` when the outputs cannot join the session.
    public init(session: CaptureSession, filter: FilterChain? = nil) throws(ReelError) {
        self.session = session
        settings = PosixMutex(Settings(filter: filter))
        video.alwaysDiscardsLateVideoFrames = false
        try session.add(video)
        try session.add(audio)
        video.setSampleBufferHandler(queue: videoQueue) { [weak self] sample in self?.handleVideo(sample) }
        audio.setSampleBufferHandler(queue: audioQueue) { [weak self] sample in self?.handleAudio(sample) }
    }

    /// The live filter; set it at any moment (the seed's random-filter button).
    public var filter: FilterChain? {
        get { settings.withLock { $0.filter } }
        set { settings.withLock { $0.filter = newValue } }
    }

    /// Which way up each new recording is meant to be seen: written as its writer input's
    /// `transform` (the seed's rotation transform from the device orientation), the pixels as taken.
    public var videoOrientation: CaptureVideoOrientation {
        get { settings.withLock { $0.videoOrientation } }
        set { settings.withLock { $0.videoOrientation = newValue } }
    }

    /// Receives every filtered frame, on the pipeline's video queue.
    /// - Parameter handler: The preview's handler, or nil for none.
    public func setPreviewHandler(_ handler: (@Sendable (SampleBuffer) -> Void)?) { settings.withLock { $0.preview = handler } }

    public var isRecording: Bool { machine.withLock { $0.isRecording } }

    /// Returns once the frames already handed to the pipeline's queue have been handled, so
    /// that a recording started next holds only later ones (a stepped test counts them
    /// exactly; a busy machine's filter may still be on an earlier frame). Not on the queue.
    func waitForQueuedFrames() { videoQueue.sync {} }

    /// Starts a new file; the session starts at the next frame's time. The file type is the
    /// one `url`'s extension names unless given.
    /// - Parameters:
    ///   - url: The movie to write.
    ///   - fileType: The container; by default the one `url`'s extension names, MP4 for any other.
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
        guard machine.withLock({ $0.start(Sink(writer: writer, video: videoInput, audio: audioInput)) }) else {
            writer.cancelWriting()
            throw ReelError(.invalidState, "a recording is under way", subject: url.path)
        }
    }

    /// Finishes the file and returns how many frames it has.
    /// - Returns: The number of pictures written.
    /// - Throws: ``ReelError``: the first error of the recording, or of finishing it.
    @discardableResult
    public func stopRecording() async throws(ReelError) -> Int {
        // Let the frames already queued reach the writer, then take it away from them.
        await withCheckedContinuation { continuation in videoQueue.async { continuation.resume() } }
        guard let (sink, frames, failure) = machine.withLock({ $0.stop() }) else {
            throw ReelError(.invalidState, "nothing is being recorded")
        }
        if let failure {
            sink.writer.cancelWriting()
            throw failure
        }
        try await sink.writer.finishWriting()
        return frames
    }

    private func handleVideo(_ sample: SampleBuffer) {
        guard let picture = sample.pixelBuffer else { return }
        let (filter, preview) = settings.withLock { ($0.filter, $0.preview) }
        var shown = picture
        if let filter {
            do throws(ReelError) {
                shown = try filter.apply(picture)
            } catch {
                // The preview shows the picture unfiltered; a recording stops with the reason.
                machine.withLock { $0.fail(error) }
            }
        }
        let filtered = SampleBuffer(pixelBuffer: shown, presentationTime: sample.presentationTime, duration: sample.duration)
        preview?(filtered)
        let sink: Sink
        switch machine.withLock({ $0.picture(at: sample.presentationTime) }) {
        case .none:
            return
        case .write(let recording):
            sink = recording
        case .start(let recording, let earlier):
            sink = recording
            // The session starts at the first picture; the sound of its moment came before it,
            // and the sound that comes meanwhile waits, so the sound is written in order.
            sink.writer.startSession(atSourceTime: sample.presentationTime)
            var sound = earlier
            while true {
                var written = MediaTime.invalid
                do throws(ReelError) {
                    for run in sound {
                        try sink.audio?.append(run)
                        written = run.timeRange.end
                    }
                } catch {
                    machine.withLock { $0.fail(error) }
                    return
                }
                guard let more = machine.withLock({ $0.sessionStarted(written: written) }) else { break }
                sound = more
            }
        }
        do throws(ReelError) {
            try sink.adaptor.append(shown, withPresentationTime: sample.presentationTime)
            machine.withLock { $0.pictureWritten() }
        } catch {
            machine.withLock { $0.fail(error) }
        }
    }

    private func handleAudio(_ sample: SampleBuffer) {
        guard case .write(let sink) = machine.withLock({ $0.sound(sample) }) else { return }
        do throws(ReelError) { try sink.audio?.append(sample) } catch { machine.withLock { $0.fail(error) } }
    }
}

public import Dispatch
import Foundation
import ReelAV
public import ReelCore

/// One track of a file being written: its medium, its encoding settings, and the
/// samples appended to it. `AVAssetWriterInput`.
///
/// Appends may come from any thread (one thread at a time per input). Encoding runs
/// on the input's own queue; ``isReadyForMoreMediaData`` turns false while that queue
/// is full, and an append then waits for room.
public final class AssetWriterInput: @unchecked Sendable {
    public let mediaType: MediaType
    public let videoSettings: VideoSettings?
    public let audioSettings: AudioSettings?
    /// What the writer reads when it starts; set before then.
    private struct Settings {
        var expectsMediaDataInRealTime = false
        var transform: ReelCore.AffineTransform = .identity
        var languageCode: String?
    }

    private let settings = PosixMutex(Settings())

    /// Whether the source is live (a camera or microphone): the input then queues more
    /// before it reports not ready, so that a short stall of the encoder drops no frame,
    /// and a sound input takes seconds of sound, so that a microphone's backlog after a
    /// stall, handed over at once, is not cut into silent holes.
    /// `expectsMediaDataInRealTime`.
    public var expectsMediaDataInRealTime: Bool {
        get { settings.withLock { $0.expectsMediaDataInRealTime } }
        set { settings.withLock { $0.expectsMediaDataInRealTime = newValue } }
    }
    /// How players should turn the picture, written as the track's display matrix.
    /// `transform`.
    public var transform: ReelCore.AffineTransform {
        get { settings.withLock { $0.transform } }
        set { settings.withLock { $0.transform = newValue } }
    }
    /// ISO 639-2 language code for the track. `languageCode`.
    public var languageCode: String? {
        get { settings.withLock { $0.languageCode } }
        set { settings.withLock { $0.languageCode = newValue } }
    }

    weak var writer: AssetWriter?
    private var _pipeline: InputEncoder?
    /// The encoding pipeline while writing; set and cleared by the writer from any thread.
    var pipeline: InputEncoder? {
        get { state.withLock { _pipeline } }
        set { state.withLock { _pipeline = newValue } }
    }
    /// The pixel format appended pictures must have; set by an adaptor, else by the first picture.
    var sourcePixelFormat: PixelFormat?
    private let state = NSLockBox()
    private var lastTime: MediaTime = .invalid
    private var finished = false

    /// A video input.
    /// - Parameters:
    ///   - mediaType: `.video`.
    ///   - outputSettings: the codec, size and quality to encode with.
    public init(mediaType: MediaType, outputSettings: VideoSettings) {
        self.mediaType = mediaType
        videoSettings = outputSettings
        audioSettings = nil
    }

    /// An audio input.
    /// - Parameters:
    ///   - mediaType: `.audio`.
    ///   - outputSettings: the codec, sample rate, channels and bit rate to encode with.
    public init(mediaType: MediaType, outputSettings: AudioSettings) {
        self.mediaType = mediaType
        audioSettings = outputSettings
        videoSettings = nil
    }

    /// False while the encoder has as much queued as it takes; a live source should drop
    /// the frame then rather than wait. `isReadyForMoreMediaData`.
    public var isReadyForMoreMediaData: Bool {
        guard let writer, writer.status == .writing, !state.withLock({ finished }) else { return false }
        return pipeline?.hasRoom ?? false
    }

    /// Appends a sample: a picture for a video input, audio for an audio input.
    /// `append(_:)`.
    /// - Parameter sample: a picture or audio with its presentation time (and duration).
    /// - Throws: ``ReelError`` `.invalidState` outside a session or after
    ///   ``markAsFinished()``; `.invalidArgument` for media of the wrong kind, size or pixel
    ///   format, or a time that does not increase; the writer's error once it has failed.
    public func append(_ sample: SampleBuffer) throws(ReelError) {
        switch sample.content {
        case .video(let buffer):
            try appendVideo(buffer, at: sample.presentationTime, duration: sample.duration)
        case .audio(let buffer):
            try appendAudio(buffer, at: sample.presentationTime)
        }
    }

    /// No more samples will come. `markAsFinished()`.
    public func markAsFinished() {
        state.withLock { finished = true }
    }

    /// Calls `block` on `queue` whenever the input has room, until ``markAsFinished()``
    /// or the writer stops. `requestMediaDataWhenReady(on:using:)`: the block appends
    /// while ``isReadyForMoreMediaData`` and calls ``markAsFinished()`` at the end.
    /// - Parameters:
    ///   - queue: Where `block` runs.
    ///   - block: Appends what it has while the input is ready.
    public func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            while !state.withLock({ finished }), let writer, writer.status == .writing {
                if isReadyForMoreMediaData {
                    block()
                } else {
                    pipeline?.waitUntilIdle()
                }
            }
        }
    }

    var isFinished: Bool { state.withLock { finished } }

    // MARK: - Appending

    private func checkedSession() throws(ReelError) -> (writer: AssetWriter, pipeline: InputEncoder, start: MediaTime,
                                                        end: MediaTime) {
        guard let writer else { throw ReelError(.invalidState, "this input was not added to a writer") }
        if let error = writer.error { throw error }
        guard writer.status == .writing, let pipeline else {
            throw ReelError(.invalidState, "cannot append: the writer is \(writer.status), not writing",
                            subject: writer.outputURL.path)
        }
        guard !isFinished else {
            throw ReelError(.invalidState, "cannot append after markAsFinished()", subject: writer.outputURL.path)
        }
        let (start, end) = writer.sessionTimes
        guard start.isNumeric else {
            throw ReelError(.invalidState, "call startSession(atSourceTime:) before appending",
                            subject: writer.outputURL.path)
        }
        return (writer, pipeline, start, end)
    }

    private func checkIncreasing(_ time: MediaTime, strictly: Bool) throws(ReelError) {
        guard time.isNumeric else {
            throw ReelError(.invalidArgument, "the sample's presentation time is \(time), not a number")
        }
        let previous = state.withLock { lastTime }
        if previous.isValid, strictly ? time <= previous : time < previous {
            throw ReelError(.invalidArgument,
                            "presentation time \(time.seconds) s is not after the previous sample's \(previous.seconds) s")
        }
        state.withLock { lastTime = time }
    }

    func appendVideo(_ buffer: PixelBuffer, at time: MediaTime, duration: MediaTime) throws(ReelError) {
        let session = try checkedSession()
        guard mediaType == .video, let settings = videoSettings else {
            throw ReelError(.invalidArgument, "a picture was appended to an audio input")
        }
        guard buffer.width == settings.width, buffer.height == settings.height else {
            throw ReelError(.invalidArgument,
                            "the picture is \(buffer.width)x\(buffer.height) but this input writes \(settings.width)x\(settings.height)")
        }
        let expected = state.withLock { () -> PixelFormat in
            if sourcePixelFormat == nil { sourcePixelFormat = buffer.pixelFormat }
            return sourcePixelFormat ?? buffer.pixelFormat
        }
        guard buffer.pixelFormat == expected else {
            throw ReelError(.invalidArgument, "the picture is \(buffer.pixelFormat) but this input takes \(expected)")
        }
        try checkIncreasing(time, strictly: true)
        guard time >= session.start, !session.end.isNumeric || time < session.end else { return }
        let timeBase = session.pipeline.encoder.timeBase
        let ticks = timeBase.timestamp(time - session.start)
        let durationTicks = duration.isNumeric && duration > .zero ? timeBase.timestamp(duration) : nil
        session.pipeline.appendVideo(buffer, ticks: ticks, duration: durationTicks)
    }

    func appendAudio(_ buffer: AudioBuffer, at time: MediaTime) throws(ReelError) {
        let session = try checkedSession()
        guard mediaType == .audio else {
            throw ReelError(.invalidArgument, "audio was appended to a video input")
        }
        try checkIncreasing(time, strictly: false)
        var audio = buffer
        if session.end.isNumeric {
            guard time < session.end else { return }
            let room = (session.end - time).multiplied(byRatio: Int64(buffer.format.sampleRate), divisor: 1)
                .convertScale(1, method: .roundTowardNegativeInfinity).value
            if room < Int64(audio.frameCount) { audio = audio.slice(from: 0, count: Int(room)) }
        }
        let rate = Int64(session.pipeline.encoder.audioFormat.sampleRate)
        let startSample = (time - session.start).multiplied(byRatio: rate, divisor: 1).convertScale(1).value
        session.pipeline.appendAudio(audio, startSample: startSample - session.pipeline.leadTrim)
    }
}

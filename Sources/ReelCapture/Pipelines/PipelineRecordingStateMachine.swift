import ReelCore

/// A ``FilteredCapturePipeline``'s recording under its one lock: waiting for the first
/// picture, starting the writer's session at it, recording, or failed, with the last half
/// second of sound. Pure transitions (swift-nio's state-machine pattern); the pipeline
/// carries out what they return. Generic over the writer it holds, so that tests drive it
/// with plain values.
///
/// The sound's queue never writes before the writer's session has started: while the
/// first picture's thread starts it (and writes the sound of that picture's moment, which
/// came first), new sound waits in ``State/starting(_:waiting:)`` and is handed to that
/// thread, in order, before the sound's queue may write again.
struct PipelineRecordingStateMachine<Sink> {
    /// One recording's progress.
    struct Recording {
        let sink: Sink
        var frames = 0
        /// The end of the sound written so far (invalid before any).
        var audioEnd = MediaTime.invalid
    }

    enum State {
        case idle
        /// The writer is open; no picture yet.
        case waitingForFirstPicture(Recording)
        /// The first picture's thread is starting the writer's session; sound waits.
        case starting(Recording, waiting: [SampleBuffer])
        case recording(Recording)
        /// A write failed: pictures and sound are dropped until the stop says why.
        case failed(Recording, ReelError)
    }

    /// What the picture's thread does with a filtered frame.
    enum PictureAction {
        /// Nothing is recorded.
        case none
        /// The first picture: start the writer's session at it, write `earlier` (the sound
        /// of its moment), then call ``sessionStarted(pending:)`` until it says done, then
        /// write the picture.
        case start(Sink, earlier: [SampleBuffer])
        case write(Sink)
    }

    /// What the sound's queue does with a run of sound.
    enum SoundAction {
        case none
        case write(Sink)
    }

    private(set) var state = State.idle
    /// The last runs of sound (about half a second), for the first picture's moment.
    private(set) var recentAudio: [SampleBuffer] = []
    static var recentAudioLimit: Int { 24 }

    var isRecording: Bool {
        if case .idle = state { return false }
        return true
    }

    /// idle → waiting for the first picture; false when a recording is under way.
    mutating func start(_ sink: Sink) -> Bool {
        guard case .idle = state else { return false }
        state = .waitingForFirstPicture(Recording(sink: sink))
        return true
    }

    /// A filtered picture at `time`.
    mutating func picture(at time: MediaTime) -> PictureAction {
        switch state {
        case .idle, .failed, .starting:
            return .none
        case .waitingForFirstPicture(let recording):
            state = .starting(recording, waiting: [])
            return .start(recording.sink, earlier: recentAudio.filter { $0.timeRange.end > time })
        case .recording(let recording):
            return .write(recording.sink)
        }
    }

    /// The first picture's thread has started the session and written the sound up to
    /// `written`. Returns the sound that came meanwhile, to write in order before calling
    /// again, or nil when the sound's queue takes over (→ recording).
    mutating func sessionStarted(written: MediaTime) -> [SampleBuffer]? {
        guard case .starting(var recording, let waiting) = state else { return nil }
        if written.isNumeric { recording.audioEnd = written }
        let pending = waiting.filter { !recording.audioEnd.isNumeric || $0.presentationTime >= recording.audioEnd }
        if pending.isEmpty {
            state = .recording(recording)
            return nil
        }
        state = .starting(recording, waiting: [])
        return pending
    }

    /// A picture was written.
    mutating func pictureWritten() {
        if case .recording(var recording) = state {
            recording.frames += 1
            state = .recording(recording)
        }
    }

    /// A run of sound: kept among the recent ones, and written when recording (after what
    /// was written at the start).
    mutating func sound(_ sample: SampleBuffer) -> SoundAction {
        recentAudio.append(sample)
        if recentAudio.count > Self.recentAudioLimit { recentAudio.removeFirst() }
        switch state {
        case .starting(let recording, var waiting):
            waiting.append(sample)
            state = .starting(recording, waiting: waiting)
            return .none
        case .recording(var recording):
            guard !recording.audioEnd.isNumeric || sample.presentationTime >= recording.audioEnd else { return .none }
            recording.audioEnd = sample.timeRange.end
            state = .recording(recording)
            return .write(recording.sink)
        case .idle, .waitingForFirstPicture, .failed:
            return .none
        }
    }

    /// A write or the filter failed: the first error is kept.
    mutating func fail(_ error: ReelError) {
        switch state {
        case .waitingForFirstPicture(let recording), .starting(let recording, _), .recording(let recording):
            state = .failed(recording, error)
        case .idle, .failed:
            break
        }
    }

    /// → idle. The recording's writer, frames and first error; nil when none was under way.
    mutating func stop() -> (sink: Sink, frames: Int, failure: ReelError?)? {
        defer { state = .idle }
        switch state {
        case .idle: return nil
        case .waitingForFirstPicture(let recording), .starting(let recording, _), .recording(let recording):
            return (recording.sink, recording.frames, nil)
        case .failed(let recording, let error):
            return (recording.sink, recording.frames, error)
        }
    }
}

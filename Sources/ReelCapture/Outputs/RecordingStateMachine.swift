import ReelCore

/// A ``MovieFileOutput``'s recording as values: where it is, and what each picture, each
/// run of sound and each call does next. Pure (swift-nio's state-machine pattern): the
/// output keeps one in a `Mutex`, makes two lock round trips per sample (the decision, then
/// the append's outcome) and carries out the returned action (the appends) outside the
/// lock, so the rules are tested without threads.
///
/// `Sink` is what an open recording writes to (the writer and its inputs); tests use any value.
struct RecordingStateMachine<Sink> {
    /// What a finished recording leaves to read.
    struct Summary: Equatable {
        var duration: MediaTime = .zero
        var frames = 0
        var reason: MovieFileOutput.StopReason?
        /// The first picture's source time (invalid before it).
        var start: MediaTime = .invalid
    }

    /// An open recording.
    struct Recording {
        var sink: Sink
        var hasAudio: Bool
        /// `maxRecordedDuration` when the recording started (invalid: none).
        var limit: MediaTime
        /// Pictures that came while the writer was being opened: written before the next one.
        var waiting: [SampleBuffer]
        /// Sound from before the first picture, until it comes; then written before the next sound.
        var early: [SampleBuffer]
        var pendingAudio: [SampleBuffer] = []
        /// The first picture's time (invalid until it comes).
        var start: MediaTime = .invalid
        /// The first picture plus the limit (invalid: no limit).
        var limitEnd: MediaTime = .invalid
        /// The end of the last picture written: where the sound ends too.
        var end: MediaTime = .invalid
        var audioEnd: MediaTime = .invalid
        var frames = 0
        /// The first append's failure.
        var failure: ReelError?
        /// Why it was stopped from outside (a device that went away).
        var stopError: ReelError?
        var videoInFlight = false
        var audioInFlight = false
        /// Set when the finisher has waited long enough for the sound: later sound is dropped.
        var audioClosed = false
        /// Whether the finisher is waiting to be woken.
        var finisherWaiting = false

        var summary: Summary { Summary(duration: start.isNumeric ? end - start : .zero, frames: frames, start: start) }

        /// Nothing is being appended and the sound has reached the last picture (or will not).
        var isDrained: Bool {
            !videoInFlight && !audioInFlight
                && (!hasAudio || !start.isNumeric || audioClosed || (audioEnd.isNumeric && audioEnd >= end))
        }
    }

    enum State {
        /// No recording; the last seconds of sound are kept for the next one's first picture.
        case idle(early: [SampleBuffer], last: Summary?)
        /// `startRecording` is opening the writer; `stop` is a stop asked meanwhile.
        case opening(pictures: [SampleBuffer], early: [SampleBuffer], stop: MovieFileOutput.StopReason?)
        case recording(Recording)
        /// Stopped: the sound up to the last picture is still taken, then the file is finished.
        case finishing(Recording, reason: MovieFileOutput.StopReason)
    }

    /// What to do with a picture.
    enum VideoAction {
        case drop
        /// Append `pictures`; `startAt` starts the writer's session (the first picture), and
        /// `finish` then stops the recording (the duration limit).
        case write(sink: Sink, pictures: [SampleBuffer], startAt: MediaTime?, limitEnd: MediaTime?, frames: Int,
                   finish: FinishOrder?)
        /// The picture fell past the limit: nothing is written, the recording stops.
        case finish(FinishOrder)
    }

    /// What to do with a run of sound.
    enum AudioAction {
        case drop
        case write(sink: Sink, samples: [SampleBuffer])
    }

    /// A recording to finish: wait (when `mustWait`) for the sound to reach `end`, then close the file.
    struct FinishOrder {
        var sink: Sink
        var end: MediaTime
        var mustWait: Bool
    }

    /// What follows an append.
    enum AfterWrite {
        case nothing
        /// Wake the finisher: everything up to the last picture is written.
        case wakeFinisher
        /// The append failed: finish the recording.
        case finish(FinishOrder)
    }

    /// At most two seconds of pictures wait for an encoder to open.
    static var openingLimit: Int { 60 }
    /// The most sound kept for the first picture: 4.3 s of 1024-sample runs, the sound of
    /// ``openingLimit`` pictures down to 15 frames a second (800 KB of mono floats).
    static var earlyLimit: Int { 200 }

    private(set) var state = State.idle(early: [], last: nil)

    var isRecording: Bool {
        if case .recording = state { return true }
        return false
    }

    /// The open recording's writer, while recording or finishing.
    var sink: Sink? {
        switch state {
        case .recording(let recording), .finishing(let recording, _): recording.sink
        default: nil
        }
    }

    var summary: Summary {
        switch state {
        case .idle(_, let last): last ?? Summary()
        case .opening: Summary()
        case .recording(let recording): recording.summary
        case .finishing(let recording, let reason):
            Summary(duration: recording.summary.duration, frames: recording.frames, reason: recording.failure == nil ? reason : .failed,
                    start: recording.start)
        }
    }

    /// The source times the pictures taken cover, from the first one's time to the end of the
    /// last: while the writer opens, those waiting for it (the recording starts when asked);
    /// nil before a first picture.
    var takenRange: (start: MediaTime, end: MediaTime)? {
        func span(_ pictures: [SampleBuffer]) -> (start: MediaTime, end: MediaTime)? {
            guard let first = pictures.first, let last = pictures.last else { return nil }
            let length = last.duration.isNumeric && last.duration > .zero ? last.duration : .zero
            return (first.presentationTime, last.presentationTime + length)
        }
        switch state {
        case .opening(let pictures, _, _):
            return span(pictures)
        case .recording(let recording) where !recording.start.isNumeric:
            return span(recording.waiting)
        default:
            let summary = summary
            return summary.start.isNumeric ? (summary.start, summary.start + summary.duration) : nil
        }
    }

    // MARK: - Starting

    /// idle → opening. False when a recording is being opened or is under way.
    mutating func beginOpening() -> Bool {
        guard case .idle(let early, _) = state else { return false }
        state = .opening(pictures: [], early: early, stop: nil)
        return true
    }

    /// opening → idle, when the writer could not be opened.
    mutating func openingFailed() {
        if case .opening(_, let early, _) = state { state = .idle(early: early, last: nil) }
    }

    /// opening → recording. Returns a finish order when a stop was asked while opening.
    mutating func opened(_ sink: Sink, hasAudio: Bool, limit: MediaTime) -> FinishOrder? {
        guard case .opening(let pictures, let early, let stop) = state else { return nil }
        let recording = Recording(sink: sink, hasAudio: hasAudio, limit: limit, waiting: pictures, early: early)
        if let stop {
            state = .finishing(recording, reason: stop)
            return FinishOrder(sink: sink, end: .invalid, mustWait: false)
        }
        state = .recording(recording)
        return nil
    }

    // MARK: - Samples

    mutating func video(_ sample: SampleBuffer) -> VideoAction {
        switch state {
        case .idle, .finishing:
            return .drop
        case .opening(var pictures, let early, let stop):
            pictures.append(sample)
            if pictures.count > Self.openingLimit { pictures.removeFirst() }
            state = .opening(pictures: pictures, early: early, stop: stop)
            return .drop
        case .recording(var recording):
            let pictures = recording.waiting + [sample]
            recording.waiting = []
            var accepted: [SampleBuffer] = []
            var startAt: MediaTime?
            for picture in pictures {
                if !recording.start.isValid {
                    recording.start = picture.presentationTime
                    startAt = picture.presentationTime
                    if recording.limit.isNumeric, recording.limit > .zero {
                        recording.limitEnd = picture.presentationTime + recording.limit
                    }
                    // The sound of the first picture's moment may have come before it.
                    if recording.hasAudio {
                        recording.pendingAudio = recording.early.filter { $0.timeRange.end > picture.presentationTime }
                    }
                    recording.early = []
                }
                if recording.limitEnd.isNumeric, picture.presentationTime >= recording.limitEnd { break }
                var end = picture.presentationTime + picture.duration
                if recording.limitEnd.isNumeric, end > recording.limitEnd { end = recording.limitEnd }
                recording.end = end
                recording.frames += 1
                accepted.append(picture)
            }
            let limitReached = recording.limitEnd.isNumeric && recording.end.isNumeric && recording.end >= recording.limitEnd
            if accepted.isEmpty {
                // Past the limit (the camera skipped ahead over the frame that reaches it).
                let order = stop(&recording, reason: .maximumDurationReached)
                return .finish(order)
            }
            recording.videoInFlight = true
            let limitEnd = startAt != nil && recording.limitEnd.isNumeric ? recording.limitEnd : nil
            let order = limitReached ? stop(&recording, reason: .maximumDurationReached) : nil
            if order == nil { state = .recording(recording) }
            return .write(sink: recording.sink, pictures: accepted, startAt: startAt, limitEnd: limitEnd,
                          frames: recording.frames, finish: order)
        }
    }

    /// After a picture's append: `error` is the append's failure.
    mutating func videoWritten(error: ReelError?) -> AfterWrite {
        update { recording in
            recording.videoInFlight = false
            if let error, recording.failure == nil { recording.failure = error }
        } failed: { error != nil }
    }

    mutating func audio(_ sample: SampleBuffer) -> AudioAction {
        switch state {
        case .idle(var early, let last):
            Self.remember(sample, in: &early)
            state = .idle(early: early, last: last)
            return .drop
        case .opening(let pictures, var early, let stop):
            Self.remember(sample, in: &early, from: pictures.first?.presentationTime)
            state = .opening(pictures: pictures, early: early, stop: stop)
            return .drop
        case .recording(var recording):
            guard recording.hasAudio else { return .drop }
            guard recording.start.isNumeric else {
                Self.remember(sample, in: &recording.early, from: recording.waiting.first?.presentationTime)
                state = .recording(recording)
                return .drop
            }
            // Sound that ended before the first picture (it came late) is not in the recording.
            let start = recording.start
            let samples = Self.cut(recording.pendingAudio + [sample], at: recording.limitEnd).filter { $0.timeRange.end > start }
            recording.pendingAudio = []
            guard !samples.isEmpty else {
                state = .recording(recording)
                return .drop
            }
            recording.audioInFlight = true
            state = .recording(recording)
            return .write(sink: recording.sink, samples: samples)
        case .finishing(var recording, let reason):
            guard recording.hasAudio, recording.start.isNumeric, !recording.audioClosed,
                  !(recording.audioEnd.isNumeric && recording.audioEnd >= recording.end) else { return .drop }
            let samples = Self.cut(recording.pendingAudio + [sample], at: recording.end)
            recording.pendingAudio = []
            guard !samples.isEmpty else {
                state = .finishing(recording, reason: reason)
                return .drop
            }
            recording.audioInFlight = true
            state = .finishing(recording, reason: reason)
            return .write(sink: recording.sink, samples: samples)
        }
    }

    /// After a run of sound's append, ending at `end`; `error` is the append's failure.
    mutating func audioWritten(end: MediaTime, error: ReelError?) -> AfterWrite {
        update { recording in
            recording.audioInFlight = false
            if end.isNumeric, !recording.audioEnd.isNumeric || end > recording.audioEnd { recording.audioEnd = end }
            if let error, recording.failure == nil { recording.failure = error }
        } failed: { error != nil }
    }

    // MARK: - Stopping

    /// recording → finishing. Nil when there is nothing to finish (or a finish is under way);
    /// a stop while opening is kept for ``opened(_:hasAudio:limit:)``.
    mutating func stop(_ reason: MovieFileOutput.StopReason, error: ReelError? = nil) -> FinishOrder? {
        switch state {
        case .idle, .finishing:
            return nil
        case .opening(let pictures, let early, let stop):
            state = .opening(pictures: pictures, early: early, stop: stop ?? reason)
            return nil
        case .recording(var recording):
            recording.stopError = error
            return stop(&recording, reason: reason)
        }
    }

    private mutating func stop(_ recording: inout Recording, reason: MovieFileOutput.StopReason) -> FinishOrder {
        recording.finisherWaiting = !recording.isDrained
        // Sound already held for later is written only up to the last picture.
        state = .finishing(recording, reason: reason)
        return FinishOrder(sink: recording.sink, end: recording.end, mustWait: recording.finisherWaiting)
    }

    /// How far the sound of a recording being finished has been written (to tell a
    /// microphone that is late from one that has stopped).
    var soundWrittenWhileFinishing: MediaTime? {
        if case .finishing(let recording, _) = state { return recording.audioEnd }
        return nil
    }

    /// The finisher waited long enough for the sound (a microphone that stopped): later sound
    /// is dropped. True when it may go on now; false when an append is still under way (its
    /// end wakes the finisher).
    mutating func stopWaitingForAudio() -> Bool {
        guard case .finishing(var recording, let reason) = state else { return true }
        recording.audioClosed = true
        recording.finisherWaiting = !recording.isDrained
        state = .finishing(recording, reason: reason)
        return !recording.finisherWaiting
    }

    /// finishing → idle. Returns the error the recording met (if any) and why it stopped.
    mutating func finished() -> (error: ReelError?, summary: Summary) {
        guard case .finishing(let recording, let reason) = state else { return (nil, summary) }
        var summary = recording.summary
        summary.reason = recording.failure == nil ? reason : .failed
        state = .idle(early: [], last: summary)
        return (recording.failure ?? recording.stopError, summary)
    }

    /// The session stopped: its clock starts again at zero, so old sound must not reach the
    /// next recording.
    mutating func forgetEarlyAudio() {
        switch state {
        case .idle(_, let last): state = .idle(early: [], last: last)
        case .opening(let pictures, _, let stop): state = .opening(pictures: pictures, early: [], stop: stop)
        case .recording, .finishing: break
        }
    }

    // MARK: - Helpers

    private mutating func update(_ change: (inout Recording) -> Void, failed: () -> Bool) -> AfterWrite {
        switch state {
        case .recording(var recording):
            change(&recording)
            if failed() { return .finish(stop(&recording, reason: .failed)) }
            state = .recording(recording)
            return .nothing
        case .finishing(var recording, let reason):
            change(&recording)
            let wake = recording.finisherWaiting && recording.isDrained
            if wake { recording.finisherWaiting = false }
            state = .finishing(recording, reason: reason)
            return wake ? .wakeFinisher : .nothing
        case .idle, .opening:
            return .nothing
        }
    }

    /// Keeps `sample` for the first picture, up to ``earlyLimit`` runs, from the oldest
    /// picture waiting for the encoder (`from`) when one does. On a busy machine the encoder
    /// takes over half a second to open and the first picture can reach the output seconds
    /// after its sound; half a second of sound was kept before, and the recording's sound
    /// started up to 2 s after its picture.
    private static func remember(_ sample: SampleBuffer, in early: inout [SampleBuffer], from oldest: MediaTime? = nil) {
        early.append(sample)
        if let oldest, oldest.isNumeric, let stale = early.firstIndex(where: { $0.timeRange.end > oldest }), stale > 0 {
            early.removeFirst(stale)
        }
        if early.count > earlyLimit { early.removeFirst(early.count - earlyLimit) }
    }

    /// The runs of sound that start before `end` (all when `end` is invalid). A run across
    /// `end` is kept whole: the writer's session end cuts it to the sample.
    private static func cut(_ samples: [SampleBuffer], at end: MediaTime) -> [SampleBuffer] {
        guard end.isNumeric else { return samples }
        return samples.filter { $0.presentationTime < end }
    }
}

extension RecordingStateMachine.FinishOrder: Sendable where Sink: Sendable {}

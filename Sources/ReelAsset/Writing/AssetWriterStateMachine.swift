import ReelCore

/// An ``AssetWriter``'s life as values: its settings (open until writing starts), where it
/// is, and what each call does next. Pure: the writer holds one in a `Mutex` and carries
/// out the actions it returns (swift-nio's state-machine pattern), so every change of state
/// is one lock round trip and the rules can be tested without files or threads.
///
/// `Output` is what a started writer has open (the muxer and its temporary file); tests
/// use any value.
struct AssetWriterStateMachine<Output> {
    /// What `startWriting()` freezes.
    struct Settings {
        var movieFragmentInterval: MediaTime = .invalid
        var shouldOptimizeForNetworkUse = true
        var metadata = AssetMetadata()
        var inputs: [AssetWriterInput] = []
        var exportCheck: ExportCheck?
        /// Segmented output (``AssetWriter/init(fileType:)``): the profile, the interval,
        /// where the first interval starts and who receives the segments.
        var outputFileTypeProfile: FileTypeProfile?
        var preferredOutputSegmentInterval: MediaTime = .invalid
        var initialSegmentStartTime: MediaTime = .invalid
        var delegate: DelegateReference?

        var isFragmented: Bool { movieFragmentInterval.isNumeric && movieFragmentInterval > .zero }
    }

    /// The delegate, held weakly as AVFoundation does.
    struct DelegateReference {
        weak var delegate: (any AssetWriterDelegate)?
    }

    /// A started writer's open file and its session's bounds.
    struct Session {
        var output: Output
        var start: MediaTime = .invalid
        var end: MediaTime = .invalid
    }

    enum State {
        /// Settings and inputs may change.
        case configuring
        /// `startWriting()` is opening the encoders and the file.
        case starting
        case writing(Session)
        /// `finishWriting()` is draining the encoders; a cancel is noted for it to act on.
        case finishing(Session, cancelRequested: Bool)
        /// The first error, and the file that was open then (closing it is idempotent: whoever
        /// comes first closes it, a second caller waits for that).
        case failed(ReelError, cleanup: Output?)
        case completed
        case cancelled
    }

    /// What ``beginFinishing()`` tells the finisher to do.
    enum FinishAction {
        case finish(Session)
        /// The writer failed: close and remove `cleanup` (if still open), then throw.
        case fail(ReelError, cleanup: Output?)
        /// Not writing (never started, finished or cancelled): the status says which.
        case refuse(AssetWriter.Status)
    }

    /// What the caller of ``fail(_:)`` or ``cancel()`` must close and remove.
    enum CleanupAction {
        case none
        case discard(Output)
    }

    private(set) var settings = Settings()
    private(set) var state = State.configuring

    var status: AssetWriter.Status {
        switch state {
        case .configuring, .starting: .unknown
        case .writing, .finishing: .writing
        case .failed: .failed
        case .completed: .completed
        case .cancelled: .cancelled
        }
    }

    var error: ReelError? {
        if case .failed(let error, _) = state { return error }
        return nil
    }

    var session: Session? {
        switch state {
        case .writing(let session), .finishing(let session, _): session
        default: nil
        }
    }

    /// Changes the settings while configuring; false (and no change) once writing has
    /// started, as AVFoundation refuses it then.
    mutating func configure(_ change: (inout Settings) -> Void) -> Bool {
        guard case .configuring = state else { return false }
        change(&settings)
        return true
    }

    /// Sets what the finished file is checked against (``ExportCheck``). Unlike the other
    /// settings it may change while writing (an export stopped at its length limit plans a
    /// shorter file); false once finishing has begun.
    mutating func plan(_ check: ExportCheck?) -> Bool {
        switch state {
        case .configuring, .starting, .writing:
            settings.exportCheck = check
            return true
        default:
            return false
        }
    }

    /// configuring → starting: the settings to open the file with; nil when not configuring.
    mutating func beginStarting() -> Settings? {
        guard case .configuring = state else { return nil }
        state = .starting
        return settings
    }

    /// starting → writing. False when a cancel came meanwhile: the caller closes `output`.
    mutating func started(_ output: Output) -> Bool {
        guard case .starting = state else { return false }
        state = .writing(Session(output: output))
        return true
    }

    /// The first error while starting; the caller has already removed what it opened.
    mutating func startFailed(_ error: ReelError) {
        if case .starting = state { state = .failed(error, cleanup: nil) }
    }

    /// Sets the session's start, the first time only. Returns the open output when this call
    /// set it (the writer then lays its segments' grid from it), else nil.
    mutating func startSession(at time: MediaTime) -> Output? {
        guard time.isNumeric else { return nil }
        var output: Output?
        updateSession { session in
            guard !session.start.isValid else { return }
            session.start = time
            output = session.output
        }
        return output
    }

    mutating func endSession(at time: MediaTime) {
        guard time.isNumeric else { return }
        updateSession { $0.end = time }
    }

    private mutating func updateSession(_ change: (inout Session) -> Void) {
        switch state {
        case .writing(var session):
            change(&session)
            state = .writing(session)
        case .finishing(var session, let cancel):
            change(&session)
            state = .finishing(session, cancelRequested: cancel)
        default: break
        }
    }

    /// writing → finishing.
    mutating func beginFinishing() -> FinishAction {
        switch state {
        case .writing(let session):
            state = .finishing(session, cancelRequested: false)
            return .finish(session)
        case .failed(let error, let cleanup):
            return .fail(error, cleanup: cleanup)
        default:
            return .refuse(status)
        }
    }

    /// What the finisher finds between its steps.
    enum FinishCheck: Equatable {
        case goOn
        /// A cancel came: the state is now `cancelled`; the finisher closes and removes the file.
        case cancelled
        /// A failure came: the finisher closes the file and throws the first error.
        case failed(ReelError)
    }

    /// Asked by the finisher between its steps.
    mutating func checkFinishing() -> FinishCheck {
        switch state {
        case .finishing(_, cancelRequested: true):
            state = .cancelled
            return .cancelled
        case .failed(let error, _):
            return .failed(error)
        default:
            return .goOn
        }
    }

    /// finishing → completed.
    mutating func finished() {
        if case .finishing = state { state = .completed }
    }

    /// Records the first error. While writing, the caller closes the file (from outside the
    /// encoding queue that reported it); while finishing, the finisher does.
    mutating func fail(_ error: ReelError) -> CleanupAction {
        switch state {
        case .writing(let session):
            state = .failed(error, cleanup: session.output)
            return .discard(session.output)
        case .finishing(let session, _):
            state = .failed(error, cleanup: session.output)
            return .none
        case .starting:
            state = .failed(error, cleanup: nil)
            return .none
        case .configuring, .failed, .completed, .cancelled:
            return .none
        }
    }

    /// Stops the writer: the caller closes and removes the file when it was writing; a
    /// finisher that is running does so itself.
    mutating func cancel() -> CleanupAction {
        switch state {
        case .configuring, .starting:
            state = .cancelled
            return .none
        case .writing(let session):
            state = .cancelled
            return .discard(session.output)
        case .finishing(let session, _):
            state = .finishing(session, cancelRequested: true)
            return .none
        case .failed, .completed, .cancelled:
            return .none
        }
    }
}

import Dispatch
import Foundation
import ReelFilters

/// A ``CaptureSession``'s state under its one lock: the configuration (committed and
/// staged), whether it runs (with the timers of the run, so that no thread reads them
/// unlocked), its counters and the photo requests waiting for a frame. Pure transitions
/// (swift-nio's state-machine pattern); the session carries out what they return.
struct CaptureSessionStateMachine: Sendable {
    /// The timers of one run; `generation` tells the queues a new run has begun (they reset
    /// their clocks on seeing it), so starting never waits on them. (Dispatch sources may be used from any thread.)
    struct Run: @unchecked Sendable {
        var generation: Int
        var startNanoseconds: UInt64
        var video: (any DispatchSourceTimer)?
        var audio: (any DispatchSourceTimer)?
    }

    /// A notification waiting to be posted, in the order the session posted it.
    struct PendingNotification: @unchecked Sendable {
        var name: Notification.Name
        var object: any AnyObject & Sendable
        var userInfo: [String: any Sendable]?
        /// A stop's `didStopRunningNotification`, queued when the session stopped (so that it
        /// keeps its place before a later start's) and held there, with what comes after it,
        /// until the stop has drained the frame queues and told the outputs: its number.
        var hold: Int?
    }

    /// Who posts the waiting notifications: one thread at a time takes them, in order: the
    /// notification queue, or a `stopRunning()` caller, which takes the turn over from any
    /// other thread (that one may be inside an observer waiting for the stop) and posts what
    /// waits, its own `didStopRunningNotification` included, before it returns.
    enum Delivery: Sendable {
        /// None waiting, none being posted.
        case idle
        /// The notification queue has been asked to post them and has not started.
        case scheduled
        /// `thread` is posting them (and may be inside an observer) while `turn` is the newest.
        case delivering(thread: pthread_t, turn: Int)
    }

    enum Running: Sendable {
        /// Not running; `interrupted` when the last run ended with a device gone (it stays
        /// ``isInterrupted`` until the next start).
        case stopped(interrupted: Bool)
        /// `startRunning()` is starting the devices and timers.
        case starting(Run)
        case running(Run)
        /// A device went away: the timers are stopped until `stopRunning()`.
        case interrupted
    }

    private(set) var committed = CaptureSession.Configuration()
    private(set) var staged: CaptureSession.Configuration?
    private(set) var configurationDepth = 0
    private(set) var running = Running.stopped(interrupted: false)
    private var generation = 0
    var videoFilter: FilterChain?
    var stillRequests: [CaptureSession.StillRequest] = []
    private(set) var droppedFrames = 0
    private(set) var deliveredFrames = 0
    private(set) var pipelineNanoseconds: UInt64 = 0
    /// The size the video queue is making frames at (a recording keeps it through a switch).
    var frameSizeInUse: (width: Int, height: Int)?
    private(set) var delivery = Delivery.idle
    private var pendingNotifications: [PendingNotification] = []
    private var turns = 0
    private var holds = 0

    /// The configuration calls see: the staged one while configuring.
    var current: CaptureSession.Configuration { staged ?? committed }

    var isRunning: Bool {
        if case .stopped = running { return false }
        return true
    }

    var isInterrupted: Bool {
        switch running {
        case .interrupted, .stopped(interrupted: true): true
        default: false
        }
    }

    /// The run under way (not while starting, interrupted or stopped).
    var run: Run? {
        if case .running(let run) = running { return run }
        return nil
    }

    // MARK: - Configuration

    mutating func change(_ body: (inout CaptureSession.Configuration) -> Void) {
        if var configuration = staged {
            body(&configuration)
            staged = configuration
        } else {
            body(&committed)
        }
    }

    mutating func beginConfiguration() {
        if configurationDepth == 0 { staged = committed }
        configurationDepth += 1
    }

    /// The staged configuration when the outermost commit comes; it takes effect at
    /// ``applyCommit(_:)`` (the session opens new devices in between).
    mutating func commitConfiguration() -> CaptureSession.Configuration? {
        configurationDepth = max(0, configurationDepth - 1)
        return configurationDepth == 0 ? staged : nil
    }

    mutating func applyCommit(_ pending: CaptureSession.Configuration) {
        guard configurationDepth == 0 else { return }
        committed = pending
        staged = nil
    }

    // MARK: - Running

    /// stopped → starting, the counters zeroed. The configuration to start
    /// and the run's generation; nil when already running.
    mutating func start(atNanoseconds now: UInt64) -> (CaptureSession.Configuration, Run)? {
        switch running {
        case .starting, .running, .interrupted: return nil
        case .stopped: break
        }
        generation += 1
        let run = Run(generation: generation, startNanoseconds: now)
        running = .starting(run)
        droppedFrames = 0
        deliveredFrames = 0
        pipelineNanoseconds = 0
        return (committed, run)
    }

    /// starting → running with its timers, queueing `announcement` (`didStartRunningNotification`)
    /// in the same step, so that no stop's notification can come before it. False when a stop
    /// came meanwhile: the caller cancels them (and nothing is announced).
    mutating func started(_ timers: Run, announcing announcement: PendingNotification? = nil) -> Bool {
        guard case .starting(var run) = running, run.generation == timers.generation else { return false }
        run.video = timers.video
        run.audio = timers.audio
        running = .running(run)
        if let announcement { pendingNotifications.append(announcement) }
        return true
    }

    /// → stopped. The timers to cancel, or nil when the session was not running.
    mutating func stop() -> [any DispatchSourceTimer]? { stop(announcing: nil)?.timers }

    /// → stopped, queueing `announcement` (`didStopRunningNotification`) in the same step, held
    /// until ``release(_:)`` with the number returned (nil: nothing announced, as for a start that
    /// had not announced itself yet). The timers to cancel; nil when the session was not running.
    mutating func stop(announcing announcement: PendingNotification?) -> (timers: [any DispatchSourceTimer], hold: Int?)? {
        let timers: [any DispatchSourceTimer]
        switch running {
        case .stopped:
            return nil
        case .starting:
            running = .stopped(interrupted: false)
            return ([], nil)
        case .running(let run):
            running = .stopped(interrupted: false)
            timers = [run.video, run.audio].compactMap { $0 }
        case .interrupted:
            running = .stopped(interrupted: true)
            timers = []
        }
        guard var announcement else { return (timers, nil) }
        holds += 1
        announcement.hold = holds
        pendingNotifications.append(announcement)
        return (timers, holds)
    }

    /// running → interrupted, the first time only: the timers to cancel.
    mutating func interrupt() -> [any DispatchSourceTimer]? {
        switch running {
        case .running(let run):
            running = .interrupted
            return [run.video, run.audio].compactMap { $0 }
        case .starting:
            running = .interrupted
            return []
        case .stopped, .interrupted:
            return nil
        }
    }

    // MARK: - Notifications

    /// Queues `notification`. True when the caller must ask the notification queue to post
    /// it (none is being posted or asked for): idle → scheduled.
    mutating func enqueue(_ notification: PendingNotification) -> Bool {
        pendingNotifications.append(notification)
        return requestDelivery()
    }

    /// idle → scheduled: true when the caller must ask the notification queue to post what
    /// waits (none is being posted or asked for).
    mutating func requestDelivery() -> Bool {
        guard case .idle = delivery else { return false }
        delivery = .scheduled
        return true
    }

    /// The stop numbered `hold` is done (frame queues drained, outputs told): its notification,
    /// and those behind it, may go. True when none is being posted or asked for and the caller,
    /// which will not post them itself, must ask the notification queue: idle → scheduled.
    mutating func release(_ hold: Int?) -> Bool {
        guard let hold, let index = pendingNotifications.firstIndex(where: { $0.hold == hold }) else { return false }
        pendingNotifications[index].hold = nil
        return requestDelivery()
    }

    /// → delivering by `thread`: the caller then takes each waiting notification with
    /// ``nextNotification(turn:)``, passing the turn returned. Nil when `thread` is posting
    /// already, further out (inside an observer: what waits comes after that observer
    /// returns), or when another thread is and `takingOver` is false. A stop takes over
    /// (`takingOver`): the other thread may be inside an observer waiting for the stop; it
    /// posts nothing more once its observer returns.
    mutating func beginDelivery(by thread: pthread_t, takingOver: Bool = false) -> Int? {
        if case .delivering(let current, _) = delivery, pthread_equal(current, thread) != 0 || !takingOver { return nil }
        turns += 1
        delivery = .delivering(thread: thread, turn: turns)
        return turns
    }

    /// The next notification for the thread holding `turn` to post; nil when none is left (or
    /// the first is held by a stop still under way), and then delivering → idle; nil too when
    /// another thread has taken the turn over.
    mutating func nextNotification(turn: Int) -> PendingNotification? {
        guard case .delivering(_, let current) = delivery, current == turn else { return nil }
        guard let first = pendingNotifications.first, first.hold == nil else {
            delivery = .idle
            return nil
        }
        return pendingNotifications.removeFirst()
    }

    // MARK: - Frames

    mutating func takeStillRequests() -> [CaptureSession.StillRequest] {
        defer { stillRequests = [] }
        return stillRequests
    }

    mutating func countDropped(_ frames: Int) { droppedFrames += frames }

    mutating func countDelivered(nanoseconds: UInt64) {
        deliveredFrames += 1
        pipelineNanoseconds &+= nanoseconds
    }
}

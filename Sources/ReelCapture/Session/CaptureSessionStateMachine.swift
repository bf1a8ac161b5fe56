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
    }

    /// Who posts the waiting notifications. One thread at a time, in order: the notification
    /// queue, or a `stopRunning()` caller that finds none under way and posts them itself
    /// (so that it never waits on an observer that may be waiting on it).
    enum Delivery: Sendable {
        /// None waiting, none being posted.
        case idle
        /// The notification queue has been asked to post them and has not started.
        case scheduled
        /// A thread is posting them (and may be inside an observer).
        case delivering
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

    /// starting → running with its timers. False when a stop came meanwhile: the caller
    /// cancels them.
    mutating func started(_ timers: Run) -> Bool {
        guard case .starting(var run) = running, run.generation == timers.generation else { return false }
        run.video = timers.video
        run.audio = timers.audio
        running = .running(run)
        return true
    }

    /// → stopped. The timers to cancel, or nil when the session was not running.
    mutating func stop() -> [any DispatchSourceTimer]? {
        switch running {
        case .stopped:
            return nil
        case .starting:
            running = .stopped(interrupted: false)
            return []
        case .running(let run):
            running = .stopped(interrupted: false)
            return [run.video, run.audio].compactMap { $0 }
        case .interrupted:
            running = .stopped(interrupted: true)
            return []
        }
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
        guard case .idle = delivery else { return false }
        delivery = .scheduled
        return true
    }

    /// idle or scheduled → delivering: the caller then takes each waiting notification with
    /// ``nextNotification()``. False when a thread is already posting (another, whose
    /// observer may be waiting on this one, or this thread further out, inside an observer).
    mutating func beginDelivery() -> Bool {
        switch delivery {
        case .idle, .scheduled:
            delivery = .delivering
            return true
        case .delivering:
            return false
        }
    }

    /// The next notification for the delivering thread to post; nil when none is left, and
    /// then delivering → idle.
    mutating func nextNotification() -> PendingNotification? {
        guard !pendingNotifications.isEmpty else {
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

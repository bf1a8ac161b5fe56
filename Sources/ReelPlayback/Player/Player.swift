public import Dispatch
public import Foundation
public import ReelCore

/// Plays a ``PlayerItem``: keeps its time by a clock, at a rate, and tells observers and
/// outputs where it is. `AVPlayer`.
///
/// Time comes from the player's ``PlaybackClock``: the item time is computed from the
/// clock's reading each time it is asked for, so it never drifts. Pictures are pulled by a
/// ``PlayerItemVideoOutput`` for the time the player says, as a display loop does; the
/// player itself decodes nothing.
///
/// `@unchecked Sendable` only so that ``QueuePlayer`` can be its subclass, as AVQueuePlayer
/// is AVPlayer's: every stored property is a constant or behind a `PosixMutex`, one state
/// value per lock: the timing (``PlayerStateMachine``), the settings, the observers
/// (``PlayerObserversStateMachine``).
public class Player: @unchecked Sendable {
    /// What happens when the item ends. `AVPlayer.ActionAtItemEnd`.
    public enum ActionAtItemEnd: Sendable, Hashable {
        /// Move to the next item of a ``QueuePlayer`` (its default). A plain player has no
        /// next item and pauses at the end (AVFoundation raises an exception when a plain
        /// AVPlayer is given `.advance`).
        case advance
        /// The rate drops to 0 at the end (the default, as in AVFoundation).
        case pause
        /// Nothing: the rate stays and the time runs on past the end (the last picture holds).
        case none
    }

    /// `AVPlayer.TimeControlStatus`.
    public enum TimeControlStatus: Sendable, Hashable {
        case paused
        /// Asked to play with nothing to play yet (no item).
        case waitingToPlayAtSpecifiedRate
        case playing
    }

    /// A registered time observer, to pass to ``removeTimeObserver(_:)``.
    public final class TimeObserver: Sendable {
        fileprivate let id: Int
        fileprivate init(id: Int) { self.id = id }
    }

    private struct Settings {
        var item: PlayerItem?
        var volume: Float = 1
        var isMuted = false
        var defaultRate = 1.0
    }

    /// The clock the player's time is read from.
    public let clock: any PlaybackClock
    private let machine = PosixMutex(PlayerStateMachine())
    private let settings = PosixMutex(Settings())
    private let observers = PosixMutex(PlayerObserversStateMachine())
    /// Held while a queue moves to its next item (the queue, the current item and the time
    /// change together) and while the sound feeder reads them, so it never sees half a move.
    /// Taken before any of the other locks, never inside one. It counts the moves: with an
    /// empty `()` as its state, the thread sanitizer took the zero-sized value's access
    /// inside the lock for a race with the object's header.
    let itemChange = PosixMutex(0)
    /// The timer that looks at a clock that moves by itself (Dispatch sources are thread-safe).
    private nonisolated(unsafe) let timer: (any DispatchSourceTimer)?

    /// The sound device, when there is one: its clock is the player's.
    private let audio: AudioOutput?

    /// A player of `item` (or of nothing yet) with sound: timed by the sound device's clock
    /// (audio is the master), or by the host clock, silently, when there is no device.
    /// `init(playerItem:)`.
    /// - Parameters:
    ///   - item: The item to play; nil to start empty.
    ///   - audioDevice: Where the sound goes; `.none` plays silently by the host clock.
    public convenience init(playerItem item: PlayerItem?, audioDevice: AudioDevice = .automatic) {
        let audio = AudioOutput(device: audioDevice)
        self.init(playerItem: item, clock: audio?.clock ?? HostClock(), audio: audio)
    }

    /// A silent player of `item` timed by `clock`: a ``ManualClock`` to step it in tests
    /// or to render offline.
    /// - Parameters:
    ///   - item: The item to play; nil to start empty.
    ///   - clock: The clock the player's time is read from.
    public convenience init(playerItem item: PlayerItem?, clock: any PlaybackClock) {
        self.init(playerItem: item, clock: clock, audio: nil)
    }

    init(playerItem item: PlayerItem?, clock: any PlaybackClock, audio: AudioOutput?) {
        self.clock = clock
        self.audio = audio
        if clock.advancesByItself {
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "reel.player.clock"))
            source.schedule(deadline: .now(), repeating: .milliseconds(4), leeway: .milliseconds(1))
            timer = source
        } else {
            timer = nil
        }
        if !clock.advancesByItself { clock.onAdvance { [weak self] in self?.tick() } }
        if let item { replaceCurrentItem(with: item) }
        if let source = timer {
            source.setEventHandler { [weak self] in self?.tick() }
            source.resume()
        }
        audio?.start(for: self)
    }

    /// A player of the file at `url`, with sound. `init(url:)`.
    /// - Parameters:
    ///   - url: The file to play; one that cannot be opened gives a failed item.
    ///   - audioDevice: Where the sound goes; `.none` plays silently by the host clock.
    public convenience init(url: URL, audioDevice: AudioDevice = .automatic) {
        self.init(playerItem: PlayerItem(url: url), audioDevice: audioDevice)
    }

    /// How many times the sound device dropped what waited in it for a jump (tests).
    var soundFlushes: Int { audio?.flushes ?? 0 }

    /// Whether the sound goes to a device (and the player runs by its clock), rather than
    /// the player running silently by the host clock.
    public var outputsSound: Bool { audio != nil }

    /// The device the sound goes to, as ``AudioDevice/init(spelling:)`` spells it (`pulse`,
    /// `alsa:default`), or nil when the player runs silently. Read-only here: the device is
    /// chosen when the player is made. `audioOutputDeviceUniqueID`.
    public var audioOutputDeviceUniqueID: String? { audio?.deviceSpelling }

    /// How many times the sound device ran out of sound to play (an underrun: a click or a
    /// gap heard), as the feeder measures it and the device reports it. `reel play --stats`.
    public var soundUnderruns: Int { audio?.underruns ?? 0 }

    deinit {
        audio?.stop()
        timer?.cancel()
        settings.withLock { $0.item }?.setPlayer(nil)
    }

    /// The item playing. `currentItem`.
    public var currentItem: PlayerItem? { settings.withLock { $0.item } }

    /// Plays `item` from its start instead (or nothing, for nil), keeping the rate. `replaceCurrentItem(with:)`.
    /// - Parameter item: The item to play next; its outputs start from its start time.
    public func replaceCurrentItem(with item: PlayerItem?) {
        swapItem(for: item)
        let host = clock.hostTime
        let start = item?.startTime ?? .zero
        machine.withLock { $0.replaceItem(hasItem: item != nil, at: host, start: start) }
        timeJumped()
    }

    // MARK: - Rate

    /// Plays at ``defaultRate``. `play()`.
    public func play() { rate = defaultRate }

    /// Sets the rate to 0. `pause()`.
    public func pause() { rate = 0 }

    /// The rate ``play()`` plays at (1 unless set). `defaultRate`.
    public var defaultRate: Double {
        get { settings.withLock { $0.defaultRate } }
        set { settings.withLock { $0.defaultRate = newValue.isFinite && newValue > 0 ? newValue : 1 } }
    }

    /// The playback rate: 0 paused, 1 normal, 0.5 half speed, 2 double; negative rates are
    /// not played (taken as 0) and rates above 16 are taken as 16. `rate`.
    public var rate: Double {
        get { machine.withLock { $0.rate } }
        set {
            let host = clock.hostTime
            let end = endTime
            let changed = machine.withLock { $0.setRate(newValue, at: host, end: end) }
            if changed { timeJumped() }
        }
    }

    /// Whether the player is playing, paused, or waiting for an item. `timeControlStatus`.
    public var timeControlStatus: TimeControlStatus { machine.withLock { $0.timeControlStatus } }

    /// What happens at the item's end (`.pause` by default). `actionAtItemEnd`.
    public var actionAtItemEnd: ActionAtItemEnd {
        get { machine.withLock { $0.actionAtItemEnd } }
        set { machine.withLock { $0.actionAtItemEnd = newValue } }
    }

    /// The sound's gain, 0…1. `volume`.
    public var volume: Float {
        get { settings.withLock { $0.volume } }
        set { settings.withLock { $0.volume = newValue.isFinite ? min(max(newValue, 0), 1) : 1 } }
    }

    /// Silences the sound without changing ``volume``. `isMuted`.
    public var isMuted: Bool {
        get { settings.withLock { $0.isMuted } }
        set { settings.withLock { $0.isMuted = newValue } }
    }

    // MARK: - Time

    /// The current item's time. `currentTime()`.
    /// - Returns: The item time now, computed from the clock's reading (so never drifting).
    public func currentTime() -> MediaTime {
        let host = clock.hostTime
        let end = endTime
        return machine.withLock { $0.currentTime(at: host, end: end) }
    }

    /// The item time shown at `hostTime` on the player's clock, if the rate stays as it is.
    /// What ``PlayerItemVideoOutput/itemTime(forHostTime:)`` answers.
    func itemTime(forHostTime hostTime: MediaTime) -> MediaTime {
        let end = endTime
        return machine.withLock { $0.currentTime(at: hostTime, end: end) }
    }

    /// Moves to `time` exactly (zero tolerances, the default, as AVFoundation's
    /// `seek(to:)` is not), or to the nearest keyframe inside the tolerances, which shows
    /// at once. The time is clamped to the item. The move is made before this returns; the
    /// first picture there is decoded when an output asks for it.
    /// `seek(to:toleranceBefore:toleranceAfter:)`.
    /// - Parameters:
    ///   - time: the item time wanted.
    ///   - toleranceBefore: how much earlier the player may land (`.positiveInfinity` for any).
    ///   - toleranceAfter: how much later it may land.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime = .zero, toleranceAfter: MediaTime = .zero) {
        guard time.isNumeric, let item = currentItem else { return }
        let target = item.seekTarget(for: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter)
        let host = clock.hostTime
        let end = endTime
        machine.withLock { $0.seek(to: target, at: host, end: end) }
        timeJumped()
    }

    /// ``seek(to:toleranceBefore:toleranceAfter:)``, then `completionHandler(true)` (false
    /// when there is no item). `seek(to:toleranceBefore:toleranceAfter:completionHandler:)`.
    /// - Parameters:
    ///   - time: the item time wanted.
    ///   - toleranceBefore: how much earlier the player may land (`.positiveInfinity` for any).
    ///   - toleranceAfter: how much later it may land.
    ///   - completionHandler: called before this returns: true when the player moved, false
    ///     without an item or for a time that is not a number.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime = .zero, toleranceAfter: MediaTime = .zero,
                     completionHandler: @escaping @Sendable (Bool) -> Void) {
        let hasItem = currentItem != nil && time.isNumeric
        seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter)
        completionHandler(hasItem)
    }

    // MARK: - Observers

    /// Calls `block` with the current time every `interval` of item time while playing,
    /// and whenever the time jumps or the rate changes. `addPeriodicTimeObserver(forInterval:queue:using:)`.
    /// - Parameters:
    ///   - interval: the item time between calls during playback.
    ///   - queue: where `block` runs; nil runs it on the thread that moved the clock (the
    ///     player's timer, or the caller of ``ManualClock/advance(by:)``).
    ///   - block: called with the item time it fires at.
    /// - Returns: the observer, for ``removeTimeObserver(_:)``.
    @discardableResult
    public func addPeriodicTimeObserver(forInterval interval: MediaTime, queue: DispatchQueue? = nil,
                                        using block: @escaping @Sendable (MediaTime) -> Void) -> TimeObserver {
        let id = observers.withLock { $0.add(.init(interval: interval, queue: queue, block: block)) }
        return TimeObserver(id: id)
    }

    /// Calls `block` each time normal playback crosses one of `times`.
    /// `addBoundaryTimeObserver(forTimes:queue:using:)`.
    /// - Parameters:
    ///   - times: item times to watch; times that are not numbers are ignored.
    ///   - queue: where `block` runs; nil runs it on the thread that moved the clock.
    ///   - block: called once per time crossed (not on seeks).
    /// - Returns: the observer, for ``removeTimeObserver(_:)``.
    @discardableResult
    public func addBoundaryTimeObserver(forTimes times: [MediaTime], queue: DispatchQueue? = nil,
                                        using block: @escaping @Sendable () -> Void) -> TimeObserver {
        let id = observers.withLock { $0.add(.init(times: times, queue: queue, block: block)) }
        return TimeObserver(id: id)
    }

    /// Stops an observer. `removeTimeObserver(_:)`.
    /// - Parameter observer: What ``addPeriodicTimeObserver(forInterval:queue:using:)`` or
    ///   ``addBoundaryTimeObserver(forTimes:queue:using:)`` returned.
    public func removeTimeObserver(_ observer: TimeObserver) {
        observers.withLock { $0.remove(observer.id) }
    }

    // MARK: - Driving

    private var endTime: MediaTime { currentItem?.endTime ?? .invalid }

    /// What the sound feeder needs for the block heard at `hostTime`.
    struct SoundSnapshot {
        /// The item heard then, and its time: past the current item's end, with `.advance`
        /// and an item queued after it, that next item and its time (the queue advances on
        /// the next tick; the sound must not wait for it, so that the join has no gap).
        var item: PlayerItem?
        var time: MediaTime
        var rate: Double
        /// The item after ``item`` in the queue, when the player advances to it at the end.
        var next: PlayerItem?
        var gain: Float
    }

    /// The item and its time heard at `hostTime`, the rate, what comes next and the gain.
    func soundSnapshot(forHostTime hostTime: MediaTime) -> SoundSnapshot {
        itemChange.withLock { _ in unlockedSoundSnapshot(forHostTime: hostTime) }
    }

    private func unlockedSoundSnapshot(forHostTime hostTime: MediaTime) -> SoundSnapshot {
        let (item, gain) = settings.withLock { ($0.item, $0.isMuted ? Float(0) : $0.volume) }
        let end = item?.endTime ?? .invalid
        let (time, unclamped, rate, action) = machine.withLock {
            ($0.currentTime(at: hostTime, end: end), $0.currentTime(at: hostTime, end: .invalid), $0.rate, $0.actionAtItemEnd)
        }
        let next = action == .advance ? nextItem : nil
        if let next, end.isNumeric, rate > 0, unclamped >= end {
            return SoundSnapshot(item: next, time: next.startTime + (unclamped - end), rate: rate, next: nil, gain: gain)
        }
        return SoundSnapshot(item: item, time: time, rate: rate, next: next, gain: gain)
    }

    /// The item that follows the current one at its end (a ``QueuePlayer``'s next); nil here.
    var nextItem: PlayerItem? { nil }

    /// Looks at the clock: fires the observers that are due, and handles the item's end.
    func tick() {
        // A clock moved far may carry a queue across several short items: one end a round.
        for _ in 0..<64 {
            let host = clock.hostTime
            let item = currentItem
            let end = item?.endTime ?? .invalid
            let (action, time) = machine.withLock { machine in
                (machine.tick(at: host, end: end), machine.currentTime(at: host, end: end))
            }
            if rate > 0 || action != .none { fireObservers(at: time, jumped: false) }
            guard case .reachedEnd(let act) = action, let item else { return }
            // The next item is current before the notification, so that a handler (a
            // ``PlayerLooper``) may queue the ended one again.
            if act == .advance { itemDidEnd(item) }
            NotificationCenter.default.post(name: PlayerItem.didPlayToEndTimeNotification, object: item)
            guard act == .advance else { return }
        }
    }

    /// After an item ends with `.advance`: a plain player has no next item, so it pauses at
    /// the end; ``QueuePlayer`` moves on.
    func itemDidEnd(_ item: PlayerItem) {
        let end = item.endTime
        let host = clock.hostTime
        machine.withLock { machine in
            _ = machine.setRate(0, at: host, end: end)
            machine.seek(to: end, at: host, end: end)
        }
    }

    /// Makes `item` current as the one after `ended`, its start at the moment `ended` ended.
    /// The caller holds ``itemChange`` and then calls ``timeJumped()``.
    func advance(from ended: PlayerItem, to item: PlayerItem?) {
        swapItem(for: item)
        let end = ended.endTime
        let start = item?.startTime ?? .zero
        machine.withLock { $0.advance(hasItem: item != nil, end: end, start: start) }
    }

    /// Makes `item` the current item and moves the player's link from the old one to it.
    private func swapItem(for item: PlayerItem?) {
        let old = settings.withLock { settings -> PlayerItem? in
            let old = settings.item
            settings.item = item
            return old
        }
        old?.setPlayer(nil)
        item?.setPlayer(self)
    }

    /// Observers after a seek, a rate change or a new item: each periodic one fires now.
    func timeJumped() {
        fireObservers(at: currentTime(), jumped: true)
    }

    private func fireObservers(at time: MediaTime, jumped: Bool) {
        for call in observers.withLock({ $0.due(at: time, jumped: jumped) }) {
            if let queue = call.queue { queue.async(execute: call.block) } else { call.block() }
        }
    }
}

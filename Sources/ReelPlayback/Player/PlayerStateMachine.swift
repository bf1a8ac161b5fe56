import ReelCore

/// A ``Player``'s timing as values: whether it moves, from which item time and host time,
/// at which rate, and what reaching the item's end does. Pure: the player keeps one in a
/// `PosixMutex`, passes in the clock's reading and the item's end time, and carries out the
/// actions returned (swift-nio's state-machine pattern), so the rules are tested without
/// clocks, files or threads.
///
/// Item time while playing is `anchor + (host − anchorHost) × rate`, computed afresh from
/// the clock each time it is read: nothing accumulates, so nothing drifts.
struct PlayerStateMachine: Sendable {
    enum State: Sendable, Equatable {
        /// Standing at `time` (rate 0).
        case paused(time: MediaTime)
        /// Moving at `rate` from `anchor` (item time), which was current at `anchorHost`.
        case playing(anchor: MediaTime, anchorHost: MediaTime, rate: Rate)
    }

    /// A playback rate as an exact ratio of thousandths, so that item time stays rational
    /// (rate 2 advances exactly two seconds per second of host time).
    struct Rate: Sendable, Hashable {
        var thousandths: Int64

        init(_ rate: Double) {
            let bounded = rate.isFinite ? min(max(rate, 0), PlayerStateMachine.maximumRate) : 0
            thousandths = Int64((bounded * 1000).rounded())
        }

        var value: Double { Double(thousandths) / 1000 }

        func scale(_ interval: MediaTime) -> MediaTime { interval.multiplied(byRatio: thousandths, divisor: 1000) }
    }

    /// What a ``tick(at:end:)`` tells the player to do.
    enum TickAction: Sendable, Equatable {
        case none
        /// The item's end was reached now: post the did-play-to-end notification, then
        /// apply `action` (the player's `actionAtItemEnd`).
        case reachedEnd(Player.ActionAtItemEnd)
    }

    /// The fastest rate a player takes (faster rates are clamped to it).
    static let maximumRate = 16.0

    private(set) var state = State.paused(time: .zero)
    /// Set when the end has been reported, until a seek moves the time back before it.
    private(set) var endReported = false
    var actionAtItemEnd = Player.ActionAtItemEnd.pause
    var hasItem = false
    /// Counts the jumps (seeks, rate changes, new items): what reads ahead starts afresh when it changes.
    private(set) var jumps = 0

    /// The current rate (0 when paused).
    var rate: Double {
        if case .playing(_, _, let rate) = state { return rate.value }
        return 0
    }

    /// The item time at host time `host`: never past `end`, except with `actionAtItemEnd`
    /// `.none`, where (as in AVFoundation) the time runs on at the rate.
    func currentTime(at host: MediaTime, end: MediaTime) -> MediaTime {
        switch state {
        case .paused(let time):
            return time
        case .playing(let anchor, let anchorHost, let rate):
            let elapsed = host > anchorHost ? host - anchorHost : .zero
            let time = anchor + rate.scale(elapsed)
            if end.isNumeric, time > end, actionAtItemEnd != .none { return max(anchor, end) }
            return time
        }
    }

    var timeControlStatus: Player.TimeControlStatus {
        switch state {
        case .paused: .paused
        case .playing: hasItem ? .playing : .waitingToPlayAtSpecifiedRate
        }
    }

    /// Sets the rate at host time `host`: 0 pauses where the time stands; any other rate
    /// moves on from there. Returns true when the rate changed (observers fire then).
    mutating func setRate(_ newRate: Double, at host: MediaTime, end: MediaTime) -> Bool {
        let rate = Rate(newRate)
        let now = currentTime(at: host, end: end)
        let before = self.rate
        if rate.thousandths == 0 {
            state = .paused(time: now)
        } else {
            state = .playing(anchor: now, anchorHost: host, rate: rate)
        }
        guard before != rate.value else { return false }
        jumps += 1
        return true
    }

    /// Moves to `time` (clamped to `[0, end]`), keeping the rate; a time before the end
    /// lets the end be reported again.
    mutating func seek(to time: MediaTime, at host: MediaTime, end: MediaTime) {
        var target = max(.zero, time)
        if end.isNumeric { target = min(target, end) }
        switch state {
        case .paused: state = .paused(time: target)
        case .playing(_, _, let rate): state = .playing(anchor: target, anchorHost: host, rate: rate)
        }
        if !end.isNumeric || target < end { endReported = false }
        jumps += 1
    }

    /// A new item: time zero, paused or playing as before, the end not yet reported.
    mutating func replaceItem(hasItem: Bool, at host: MediaTime, start: MediaTime = .zero) {
        self.hasItem = hasItem
        endReported = false
        jumps += 1
        switch state {
        case .paused: state = .paused(time: start)
        case .playing(_, _, let rate): state = .playing(anchor: start, anchorHost: host, rate: rate)
        }
    }

    /// Looks at the clock: reports the item's end once when playing reaches it, and then
    /// pauses there (`.pause`), goes on with the rate and time running (`.none`), or stands
    /// at the end still playing for the player to move to its next item (`.advance`, then
    /// ``advance(hasItem:end:)``).
    mutating func tick(at host: MediaTime, end: MediaTime) -> TickAction {
        guard hasItem, end.isNumeric, case .playing = state else { return .none }
        let now = currentTime(at: host, end: end)
        guard now >= end, !endReported else { return .none }
        endReported = true
        switch actionAtItemEnd {
        case .pause: state = .paused(time: end)
        case .none, .advance: break
        }
        return .reachedEnd(actionAtItemEnd)
    }

    /// The next item starts where the last one ended, to the tick of the clock: its time 0
    /// is the host time at which playing reached `end`, so no time is lost between items
    /// however late the clock was looked at. Paused, it starts at 0 paused.
    mutating func advance(hasItem: Bool, end: MediaTime, start: MediaTime = .zero) {
        self.hasItem = hasItem
        endReported = false
        jumps += 1
        switch state {
        case .paused:
            state = .paused(time: start)
        case .playing(let anchor, let anchorHost, let rate):
            let remaining = end.isNumeric && end > anchor ? end - anchor : .zero
            let endHost = anchorHost + remaining.multiplied(byRatio: 1000, divisor: max(rate.thousandths, 1))
            state = .playing(anchor: start, anchorHost: endHost, rate: rate)
        }
    }
}

import Dispatch
import ReelCore

/// A ``Player``'s time observers under their one lock: the periodic and boundary observers,
/// each periodic one's last slot, and the item time of the last tick. Pure transitions
/// (swift-nio's state-machine pattern): ``due(at:jumped:)`` says which blocks to call, and
/// the player calls them after unlocking, so a block may add or remove observers.
struct PlayerObserversStateMachine {
    struct Periodic {
        var interval: MediaTime
        var queue: DispatchQueue?
        var block: @Sendable (MediaTime) -> Void
        var lastSlot: Int64?
    }

    struct Boundary {
        var times: [MediaTime]
        var queue: DispatchQueue?
        var block: @Sendable () -> Void
    }

    /// A block to call, and where: nil runs it on the thread that moved the clock.
    struct Call {
        var queue: DispatchQueue?
        var block: @Sendable () -> Void
    }

    private var nextID = 1
    private var periodic: [Int: Periodic] = [:]
    private var boundary: [Int: Boundary] = [:]
    /// The item time at the last tick, from which boundaries are crossed.
    private(set) var lastTime = MediaTime.zero

    /// Registers a periodic observer.
    /// - Parameter observer: The interval, queue and block, its last slot nil (it fires at
    ///   the first tick or jump).
    /// - Returns: The observer's id, for ``remove(_:)``.
    mutating func add(_ observer: Periodic) -> Int {
        defer { nextID += 1 }
        periodic[nextID] = observer
        return nextID
    }

    /// Registers a boundary observer.
    /// - Parameter observer: The times (numeric ones only), queue and block.
    /// - Returns: The observer's id, for ``remove(_:)``.
    mutating func add(_ observer: Boundary) -> Int {
        defer { nextID += 1 }
        boundary[nextID] = Boundary(times: observer.times.filter(\.isNumeric), queue: observer.queue, block: observer.block)
        return nextID
    }

    /// Forgets the observer with `id`, of either kind.
    mutating func remove(_ id: Int) {
        periodic[id] = nil
        boundary[id] = nil
    }

    /// The blocks due with the player at item time `time`, remembering what fired.
    /// - Parameters:
    ///   - time: The item time now.
    ///   - jumped: True after a seek, a rate change or a new item: every periodic observer
    ///     fires (and counts its slots from here), no boundary is crossed. False for a tick of
    ///     normal playback: periodic observers whose slot changed, and each boundary crossed
    ///     since the last tick.
    /// - Returns: The calls to make, in no particular order between observers.
    mutating func due(at time: MediaTime, jumped: Bool) -> [Call] {
        var calls: [Call] = []
        for (id, var observer) in periodic {
            if jumped {
                observer.lastSlot = TimeObserverSchedule.slot(of: time, interval: observer.interval)
            } else if let slot = TimeObserverSchedule.periodicDue(
                lastSlot: observer.lastSlot, time: time,
                interval: observer.interval)
            {
                observer.lastSlot = slot
            } else {
                continue
            }
            periodic[id] = observer
            let block = observer.block
            calls.append(Call(queue: observer.queue, block: { block(time) }))
        }
        if !jumped {
            for observer in boundary.values {
                for _ in TimeObserverSchedule.crossed(observer.times, from: lastTime, to: time) {
                    calls.append(Call(queue: observer.queue, block: observer.block))
                }
            }
        }
        lastTime = time
        return calls
    }
}

import Foundation
import ReelCore

/// A player of items one after another. `AVQueuePlayer`.
///
/// When an item ends (``Player/actionAtItemEnd`` `.advance`, the default here) the next
/// one becomes current and starts at the moment the last ended, to the tick of the clock,
/// so the item times join without a gap; pictures come from each item's own outputs.
/// When the queue runs out, ``Player/currentItem`` is nil.
public final class QueuePlayer: Player, @unchecked Sendable {
    /// The items after the current one (the queue's one lock: an array, its changes plain
    /// array operations).
    private let upcoming = PosixMutex<[PlayerItem]>([])

    /// A queue player with sound (or silent by the host clock without a device). `init(items:)`.
    /// - Parameters:
    ///   - items: The queue, the first item current.
    ///   - audioDevice: Where the sound goes; `.none` plays silently by the host clock.
    public convenience init(items: [PlayerItem], audioDevice: AudioDevice = .automatic) {
        let audio = AudioOutput(device: audioDevice)
        self.init(items: items, clock: audio?.clock ?? HostClock(), audio: audio)
    }

    /// A silent queue player timed by `clock` (a ``ManualClock`` in tests).
    /// - Parameters:
    ///   - items: The queue, the first item current.
    ///   - clock: The clock the player's time is read from.
    public convenience init(items: [PlayerItem], clock: any PlaybackClock) {
        self.init(items: items, clock: clock, audio: nil)
    }

    private init(items: [PlayerItem], clock: any PlaybackClock, audio: AudioOutput?) {
        super.init(playerItem: items.first, clock: clock, audio: audio)
        upcoming.withLock { $0 = Array(items.dropFirst()) }
        actionAtItemEnd = .advance
    }

    /// The current item and those after it. `items()`.
    /// - Returns: The queue in playing order, the current item first.
    public func items() -> [PlayerItem] {
        (currentItem.map { [$0] } ?? []) + upcoming.withLock { $0 }
    }

    /// Ends the current item now and plays the next (from its start). `advanceToNextItem()`.
    public func advanceToNextItem() {
        replaceCurrentItem(with: upcoming.withLock { $0.isEmpty ? nil : $0.removeFirst() })
    }

    /// Whether `item` may be queued after `afterItem`: not when it is already queued.
    /// `canInsert(_:after:)`.
    /// - Parameters:
    ///   - item: The item to queue.
    ///   - afterItem: Where it would go.
    /// - Returns: False when `item` is already in the queue (an item plays once per pass).
    public func canInsert(_ item: PlayerItem, after afterItem: PlayerItem?) -> Bool {
        !items().contains { $0 === item }
    }

    /// Queues `item` after `afterItem`, or at the end for nil. `insert(_:after:)`.
    /// - Parameters:
    ///   - item: The item to queue; one already queued is ignored.
    ///   - afterItem: The item it follows; nil, or an item not in the queue, for the end.
    public func insert(_ item: PlayerItem, after afterItem: PlayerItem?) {
        guard canInsert(item, after: afterItem) else { return }
        if currentItem == nil, upcoming.withLock({ $0.isEmpty }) {
            replaceCurrentItem(with: item)
            return
        }
        upcoming.withLock { queue in
            if let afterItem, let index = queue.firstIndex(where: { $0 === afterItem }) {
                queue.insert(item, at: index + 1)
            } else if let afterItem, afterItem === currentItem {
                queue.insert(item, at: 0)
            } else {
                queue.append(item)
            }
        }
    }

    /// Takes `item` out of the queue (the current item: the next plays). `remove(_:)`.
    /// - Parameter item: The item to take out; one not in the queue is ignored.
    public func remove(_ item: PlayerItem) {
        if item === currentItem {
            advanceToNextItem()
        } else {
            upcoming.withLock { $0.removeAll { $0 === item } }
        }
    }

    /// Empties the queue and the player. `removeAllItems()`.
    public func removeAllItems() {
        upcoming.withLock { $0.removeAll() }
        replaceCurrentItem(with: nil)
    }

    override var nextItem: PlayerItem? { upcoming.withLock { $0.first } }

    override func itemDidEnd(_ item: PlayerItem) {
        itemChange.withLock { moves in
            moves += 1
            let next = upcoming.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            advance(from: item, to: next)
        }
        timeJumped()
    }
}

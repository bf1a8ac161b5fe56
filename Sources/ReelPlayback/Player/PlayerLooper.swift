import Foundation
public import ReelCore

/// Plays an item over and over on a ``QueuePlayer``, by keeping replicas of it queued.
/// `AVPlayerLooper`.
///
/// Each pass starts at the instant the last one ended (the queue's advance), so pictures
/// run on without a gap: add outputs to ``loopingPlayerItems`` to pull them. The sound is
/// read afresh at each pass (what waited in the device is dropped).
public final class PlayerLooper: Sendable {
    /// `AVPlayerLooper.Status`.
    public enum Status: Sendable, Hashable {
        case unknown
        case ready
        case failed
        case cancelled
    }

    /// The looper's state under its one lock: how many passes ended, and whether it still
    /// queues the ended pass again.
    private struct State {
        private(set) var loopCount = 0
        private(set) var looping = true

        /// A pass ended: counted whether or not looping goes on.
        /// - Returns: Whether to queue the ended item again (false after ``disable()``).
        mutating func passEnded() -> Bool {
            loopCount += 1
            return looping
        }

        /// No more passes are queued; the one playing plays to its end.
        mutating func disable() { looping = false }
    }

    /// The replicas of the template item that take turns in the queue. `loopingPlayerItems`.
    public let loopingPlayerItems: [PlayerItem]
    private let state = PosixMutex(State())
    private weak let player: QueuePlayer?
    /// The notification observer (NotificationCenter's tokens are thread-safe to remove).
    private nonisolated(unsafe) let token: (any NSObjectProtocol)?
    private let failure: Bool

    /// Loops `templateItem` on `player`, replacing its queue. `init(player:templateItem:)`.
    /// - Parameters:
    ///   - player: The queue player to loop on; its queue is replaced by the looper's replicas.
    ///   - templateItem: The item to loop; it is not played itself (replicas of it are).
    public convenience init(player: QueuePlayer, templateItem: PlayerItem) {
        self.init(player: player, templateItem: templateItem, timeRange: nil)
    }

    /// Loops `timeRange` of `templateItem` on `player`: each pass starts at the range's start
    /// and ends at its end (its ``PlayerItem/forwardPlaybackEndTime``), the join as gapless as
    /// a whole item's. A range that is not inside the item loops the whole item.
    /// `init(player:templateItem:timeRange:)`.
    /// - Parameters:
    ///   - player: the queue player to loop on; its queue is replaced by the looper's replicas.
    ///   - templateItem: the item to loop; replicas of it are played, not it.
    ///   - timeRange: the part of the item to loop; nil for all of it.
    public init(player: QueuePlayer, templateItem: PlayerItem, timeRange: MediaTimeRange?) {
        self.player = player
        let replicas = (0..<3).map { _ in templateItem.replica() }
        if let range = timeRange, range.isValid, range.start.isNumeric, range.end.isNumeric, range.start >= .zero,
           range.duration > .zero, range.end <= templateItem.duration {
            for replica in replicas {
                replica.startTime = range.start
                replica.forwardPlaybackEndTime = range.end
            }
        }
        loopingPlayerItems = replicas
        failure = templateItem.status == .failed
        let relay = Relay()
        player.removeAllItems()
        if failure {
            token = nil
        } else {
            token = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification, object: nil,
                                                           queue: nil) { note in
                guard let looper = relay.looper.withLock({ $0.looper }), let item = note.object as? PlayerItem,
                      looper.loopingPlayerItems.contains(where: { $0 === item }) else { return }
                looper.passEnded(item)
            }
        }
        relay.looper.withLock { $0.looper = self }
        if !failure { for replica in replicas { player.insert(replica, after: nil) } }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    /// A weak way back from the notification's block to the looper.
    private final class Relay: Sendable {
        struct Weak { weak var looper: PlayerLooper? }
        let looper = PosixMutex(Weak())
    }

    /// How many passes have ended. `loopCount`.
    public var loopCount: Int { state.withLock { $0.loopCount } }

    /// `.ready` while looping, `.cancelled` after ``disableLooping()``, `.failed` for an item
    /// that cannot play. `status`.
    public var status: Status {
        if failure { return .failed }
        return state.withLock { $0.looping } ? .ready : .cancelled
    }

    /// Lets the current pass play to its end and stops queuing more. `disableLooping()`.
    public func disableLooping() {
        state.withLock { $0.disable() }
        guard let player else { return }
        for item in player.items().dropFirst() where loopingPlayerItems.contains(where: { $0 === item }) {
            player.remove(item)
        }
    }

    private func passEnded(_ item: PlayerItem) {
        guard state.withLock({ $0.passEnded() }), let player else { return }
        player.insert(item, after: nil)
    }
}

import Foundation
import ReelHTTP

/// One page's `text/event-stream` body.
final class EventStream: HTTPResponseStream, @unchecked Sendable {
    static let limit = 64
    /// The page's own ID, from `?page=`.
    let page: String?
    private weak var hub: EventHub?
    private let condition = NSCondition()
    private var queue: [(event: String, bytes: Data)] = []
    private var cancelled = false
    private var greeted = false

    init(hub: EventHub, page: String?) {
        self.hub = hub
        self.page = page
    }

    func enqueue(_ event: String, _ bytes: Data) {
        condition.withLock {
            if event == "status" || event == "state" { queue.removeAll { $0.event == event } }
            queue.append((event, bytes))
            if queue.count > Self.limit { queue.removeFirst(queue.count - Self.limit) }
            condition.signal()
        }
    }

    func next() -> HTTPStreamChunk {
        condition.withLock {
            if !greeted {
                greeted = true
                // The reconnection delay, and a first line so the browser sees the stream open.
                return .bytes(Data("retry: 1000\n: reel studio events\n\n".utf8))
            }
            let deadline = Date().addingTimeInterval(10)
            while queue.isEmpty, !cancelled {
                if !condition.wait(until: deadline) { break }
            }
            if cancelled { return .end }
            if queue.isEmpty { return .bytes(Data(": keep-alive\n\n".utf8)) }
            var batch = Data()
            for item in queue { batch.append(item.bytes) }
            queue.removeAll()
            return .bytes(batch)
        }
    }

    func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }

    func closed() {
        cancel()
        hub?.remove(self)
    }
}

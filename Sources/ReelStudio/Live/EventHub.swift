import Foundation
import ReelHTTP

/// Server-sent events for every open page: status, progress and errors in words.
///
/// Each subscriber has its own small queue. A page that falls behind loses its oldest
/// events, except that only the newest `status` matters anyway, so the publisher
/// never waits for a reader.
final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [ObjectIdentifier: EventStream] = [:]
    private var closed = false

    /// Sends `event` with `data` (JSON) to every subscriber.
    func publish(_ event: String, _ data: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(data) else { return }
        let message = "event: \(event)\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
        for subscriber in lock.withLock({ Array(subscribers.values) }) { subscriber.enqueue(event, Data(message.utf8)) }
    }

    var subscriberCount: Int { lock.withLock { subscribers.count } }

    func makeStream() -> EventStream {
        let stream = EventStream(hub: self)
        lock.withLock {
            if closed { stream.cancel() } else { subscribers[ObjectIdentifier(stream)] = stream }
        }
        return stream
    }

    func remove(_ stream: EventStream) { _ = lock.withLock { subscribers.removeValue(forKey: ObjectIdentifier(stream)) } }

    func close() {
        let all = lock.withLock { () -> [EventStream] in
            closed = true
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for stream in all { stream.cancel() }
    }
}

/// One page's `text/event-stream` body.
final class EventStream: HTTPResponseStream, @unchecked Sendable {
    static let limit = 64
    private weak var hub: EventHub?
    private let condition = NSCondition()
    private var queue: [(event: String, bytes: Data)] = []
    private var cancelled = false
    private var greeted = false

    init(hub: EventHub) { self.hub = hub }

    func enqueue(_ event: String, _ bytes: Data) {
        condition.withLock {
            if event == "status" { queue.removeAll { $0.event == "status" } }
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

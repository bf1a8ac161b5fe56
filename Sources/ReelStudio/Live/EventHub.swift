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

import Foundation
import ReelHTTP

/// Server-sent events for every open page: the state as it changes, status, progress
/// and errors in words.
///
/// Each subscriber has its own small queue. A page that falls behind loses its oldest
/// events, except that only the newest `status` and `state` matter anyway, so the
/// publisher never waits for a reader.
///
/// A page names itself in the stream's address (`/api/events?page=ID`); when its last
/// stream closes, ``pageLeft`` hears of it (a recording it held ends there).
final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [ObjectIdentifier: EventStream] = [:]
    private var closed = false
    private var leftHandler: (@Sendable (String) -> Void)?

    /// Called with a page's ID when its last event stream has closed.
    func onPageLeft(_ handler: @escaping @Sendable (String) -> Void) { lock.withLock { leftHandler = handler } }

    static func encode(_ data: some Encodable) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try? encoder.encode(data)
    }

    /// Sends `event` with `data` (JSON) to every subscriber.
    func publish(_ event: String, _ data: some Encodable) {
        guard let json = Self.encode(data) else { return }
        publish(event, json: json)
    }

    /// Sends `event` with `json`, already encoded, to every subscriber.
    func publish(_ event: String, json: Data) {
        let message = "event: \(event)\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
        for subscriber in lock.withLock({ Array(subscribers.values) }) { subscriber.enqueue(event, Data(message.utf8)) }
    }

    /// Whether a page of this ID has an event stream open.
    func isConnected(_ page: String) -> Bool { lock.withLock { subscribers.values.contains { $0.page == page } } }

    var subscriberCount: Int { lock.withLock { subscribers.count } }

    func makeStream(page: String? = nil) -> EventStream {
        let stream = EventStream(hub: self, page: page)
        lock.withLock {
            if closed { stream.cancel() } else { subscribers[ObjectIdentifier(stream)] = stream }
        }
        return stream
    }

    func remove(_ stream: EventStream) {
        let left = lock.withLock { () -> (@Sendable (String) -> Void)? in
            guard subscribers.removeValue(forKey: ObjectIdentifier(stream)) != nil, let page = stream.page,
                  !subscribers.values.contains(where: { $0.page == page }) else { return nil }
            return leftHandler
        }
        if let left, let page = stream.page { left(page) }
    }

    func close() {
        let all = lock.withLock { () -> [EventStream] in
            closed = true
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for stream in all { stream.cancel() }
    }
}

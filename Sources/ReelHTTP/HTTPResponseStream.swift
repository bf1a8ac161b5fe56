public import Foundation

/// One step of a streamed body.
package enum HTTPStreamChunk: Sendable {
    case bytes(Data)
    /// The body is complete.
    case end
}

/// A body produced while the client reads it.
///
/// ``next()`` runs on the connection's own thread and may block until there is
/// something to send (the next preview frame, the next event); it must return
/// `.end` soon after ``cancel()``. ``cancel()`` comes from the server when it stops;
/// ``closed()`` when the connection is gone, whoever ended it.
package protocol HTTPResponseStream: AnyObject, Sendable {
    func next() -> HTTPStreamChunk
    func cancel()
    func closed()
}

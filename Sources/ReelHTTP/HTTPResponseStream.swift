import CMicroHTTPDShims
package import Foundation

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
    /// Called once before the first ``next()`` with the connection it streams to.
    func attached(to connection: HTTPStreamConnection)
}

extension HTTPResponseStream {
    package func attached(to connection: HTTPStreamConnection) {}
}

/// What a stream may ask of its connection: how much it has sent that the client has
/// not taken yet, so that a live feed can wait and send only the newest picture
/// instead of queueing old ones in the socket.
package struct HTTPStreamConnection: Sendable {
    private let socket: Int32

    init(socket: Int32) { self.socket = socket }

    /// Bytes in the socket's send queue, not yet acknowledged by the client; 0 when unknown.
    package var unsentBytes: Int { socket < 0 ? 0 : max(0, Int(reel_socket_unsent_bytes(socket))) }
}

import Foundation
import ReelHTTP

/// One viewer's MJPEG body: `multipart/x-mixed-replace`, one JPEG part per picture,
/// always the newest. A part goes out only once the client has taken the one before
/// (the socket's send queue has drained), so a slow viewer skips pictures instead of
/// falling seconds behind. When the camera is quiet it repeats the last picture every
/// 2 s so that the connection stays alive.
final class MJPEGStream: HTTPResponseStream, @unchecked Sendable {
    static let boundary = "reelframe"
    static let contentType = "multipart/x-mixed-replace; boundary=\(boundary)"

    private let feed: PreviewFeed
    private let lock = NSLock()
    private var cancelled = false
    private var left = false
    private var lastSequence = 0
    private var connection: HTTPStreamConnection?
    /// Bytes still in the socket below which the next picture may go.
    static let backlog = 16 * 1024

    init(feed: PreviewFeed) {
        self.feed = feed
        feed.viewerJoined()
    }

    func attached(to connection: HTTPStreamConnection) { self.connection = connection }

    func next() -> HTTPStreamChunk {
        if let connection {
            // A client that has gone leaves its bytes unsent; after 3 s the next write finds out.
            let deadline = Date().addingTimeInterval(3)
            while connection.unsentBytes > Self.backlog, Date() < deadline {
                if lock.withLock({ cancelled }) { return .end }
                usleep(3000)
            }
        }
        guard let frame = feed.frame(after: lastSequence, timeout: 2, cancelled: { lock.withLock { cancelled } }) else {
            return .end
        }
        lastSequence = frame.sequence
        // The feed's one part for this picture, shared with every other viewer.
        return .bytes(frame.part)
    }

    /// One picture as a part of the body: the boundary, its headers (type, length and the
    /// capture's frame number as `X-Frame`), the JPEG and a CRLF.
    static func part(jpeg: Data, frameIndex: Int64) -> Data {
        var part = Data("--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\nX-Frame: \(frameIndex)\r\n\r\n".utf8)
        part.reserveCapacity(part.count + jpeg.count + 2)
        part.append(jpeg)
        part.append(contentsOf: [13, 10])
        return part
    }

    func cancel() { lock.withLock { cancelled = true } }

    func closed() {
        let first = lock.withLock { () -> Bool in
            defer { left = true }
            return !left
        }
        if first { feed.viewerLeft() }
    }
}

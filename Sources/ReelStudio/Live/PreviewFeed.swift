import Foundation
import ReelHTTP

/// The latest preview picture as JPEG, for any number of viewers.
///
/// The camera side publishes; each viewer's stream takes the newest picture whenever
/// its connection is ready for more, so a slow viewer skips pictures and never holds
/// up the camera or the other viewers. Each picture's MJPEG part is made once, here, and
/// shared by every viewer's stream (`Data` is copied on write, and nothing writes it):
/// 50 viewers at 30 fps made fifty 50–100 KB copies a frame before, 100 MB a second of
/// allocations on as many threads (`docs/studio-memory.md` has what that did to memory).
final class PreviewFeed: @unchecked Sendable {
    struct Frame: Sendable {
        var jpeg: Data
        /// The picture as one part of ``MJPEGStream``'s body: boundary, headers, JPEG, CRLF.
        var part: Data
        var sequence: Int
        /// The capture's frame number (its presentation time in frames).
        var frameIndex: Int64
        var width: Int
        var height: Int
    }

    private let condition = NSCondition()
    private var latest: Frame?
    private var closed = false
    private var viewerCount = 0
    private var sequence = 0

    /// Whether anyone is watching: the camera side encodes pictures only then.
    var hasViewers: Bool { condition.withLock { viewerCount > 0 } }
    var viewers: Int { condition.withLock { viewerCount } }

    func publish(jpeg: Data, frameIndex: Int64, width: Int, height: Int) {
        condition.withLock {
            sequence += 1
            latest = Frame(jpeg: jpeg, part: MJPEGStream.part(jpeg: jpeg, frameIndex: frameIndex), sequence: sequence,
                           frameIndex: frameIndex, width: width, height: height)
            condition.broadcast()
        }
    }

    /// The newest picture, if there has been one.
    var current: Frame? { condition.withLock { latest } }

    /// Waits up to `timeout` for a picture newer than `sequence`; nil when the feed is
    /// closed, the latest picture when none came in time.
    func frame(after sequence: Int, timeout: TimeInterval, cancelled: () -> Bool) -> Frame? {
        condition.withLock {
            let deadline = Date().addingTimeInterval(timeout)
            while !closed, !cancelled(), (latest?.sequence ?? 0) <= sequence {
                if !condition.wait(until: min(deadline, Date().addingTimeInterval(0.25))), Date() >= deadline { break }
            }
            return closed || cancelled() ? nil : latest
        }
    }

    /// Wakes every viewer so that its stream ends.
    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    func viewerJoined() { condition.withLock { viewerCount += 1 } }
    func viewerLeft() { condition.withLock { viewerCount -= 1 } }

    /// A multipart/x-mixed-replace stream of the pictures for one viewer.
    func makeStream() -> MJPEGStream { MJPEGStream(feed: self) }
}

import Foundation
import ReelAV
import ReelCore

/// The writer's muxer, shared by the inputs' encoding queues. Every call takes the
/// lock, so packets from the video and audio queues interleave safely.
final class SharedMuxer: @unchecked Sendable {
    let muxer: Muxer
    private let lock = NSLock()

    init(_ muxer: Muxer) { self.muxer = muxer }

    func write(_ packet: Packet, streamIndex: Int) throws(ReelError) {
        lock.lock()
        defer { lock.unlock() }
        try muxer.write(packet, streamIndex: streamIndex)
    }

    func withLock<R>(_ body: (Muxer) throws(ReelError) -> R) throws(ReelError) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(muxer)
    }
}

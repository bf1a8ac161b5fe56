public import Dispatch
import Foundation
public import ReelCore

/// Frames as they come, on a queue of the caller's. `AVCaptureVideoDataOutput`.
public final class VideoDataOutput: CaptureOutput, @unchecked Sendable {
    /// Why a frame was not delivered. `didDrop`'s reason.
    public enum DropReason: Sendable { case frameWasLate, outOfBuffers }

    /// Drop a frame when the handler is still busy with the one before. `alwaysDiscardsLateVideoFrames`.
    public var alwaysDiscardsLateVideoFrames = true
    private let lock = NSLock()
    private var handler: (@Sendable (SampleBuffer) -> Void)?
    private var dropHandler: (@Sendable (SampleBuffer, DropReason) -> Void)?
    private var queue: DispatchQueue?
    private var busy = false

    public override init() {}

    /// The delegate's `captureOutput(_:didOutput:from:)`, as a closure run on `queue`.
    /// `setSampleBufferDelegate(_:queue:)`.
    public func setSampleBufferHandler(queue: DispatchQueue, didDrop: (@Sendable (SampleBuffer, DropReason) -> Void)? = nil,
                                       _ handler: @escaping @Sendable (SampleBuffer) -> Void) {
        lock.withLock {
            self.queue = queue
            self.handler = handler
            dropHandler = didDrop
        }
    }

    /// The frames as an `AsyncStream`, for `for await frame in output.frames { … }`.
    public var frames: AsyncStream<SampleBuffer> {
        AsyncStream(bufferingPolicy: .bufferingNewest(4)) { continuation in
            setSampleBufferHandler(queue: DispatchQueue(label: "reel.video-data-output")) { continuation.yield($0) }
        }
    }

    override func deliver(_ sample: SampleBuffer) {
        guard sample.mediaType == .video else { return }
        let (queue, handler, drop, late) = lock.withLock { () -> (DispatchQueue?, (@Sendable (SampleBuffer) -> Void)?, (@Sendable (SampleBuffer, DropReason) -> Void)?, Bool) in
            let late = alwaysDiscardsLateVideoFrames && busy
            if !late { busy = true }
            return (self.queue, self.handler, dropHandler, late)
        }
        guard let queue, let handler else {
            lock.withLock { busy = false }
            return
        }
        if late {
            if let drop { queue.async { drop(sample, .frameWasLate) } }
            return
        }
        queue.async { [self] in
            handler(sample)
            lock.withLock { busy = false }
        }
    }
}

/// Audio as it comes, on a queue of the caller's. `AVCaptureAudioDataOutput`.
public final class AudioDataOutput: CaptureOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (SampleBuffer) -> Void)?
    private var queue: DispatchQueue?

    public override init() {}

    /// `setSampleBufferDelegate(_:queue:)`, as a closure run on `queue`.
    public func setSampleBufferHandler(queue: DispatchQueue, _ handler: @escaping @Sendable (SampleBuffer) -> Void) {
        lock.withLock {
            self.queue = queue
            self.handler = handler
        }
    }

    override func deliver(_ sample: SampleBuffer) {
        guard sample.mediaType == .audio else { return }
        let (queue, handler) = lock.withLock { (self.queue, self.handler) }
        guard let queue, let handler else { return }
        queue.async { handler(sample) }
    }
}

public import Dispatch
import Foundation
public import ReelAsset
public import ReelCore

/// Frames as they come, on a queue of the caller's. `AVCaptureVideoDataOutput`.
public final class VideoDataOutput: CaptureOutput, @unchecked Sendable {
    /// Why a frame was not delivered. `didDrop`'s reason (`kCMSampleBufferDroppedFrameReason`).
    public enum DropReason: String, Sendable {
        /// The handler was still busy with an earlier frame.
        case frameWasLate
        /// The frame could not be converted to the requested pixel format.
        case outOfBuffers
    }

    private let lock = NSLock()
    private var handler: (@Sendable (SampleBuffer) -> Void)?
    private var dropHandler: (@Sendable (SampleBuffer, DropReason) -> Void)?
    private var queue: DispatchQueue?
    private var busy = false
    private var _alwaysDiscardsLateVideoFrames = true
    private var _pixelFormat: PixelFormat = .yuv420p

    public override init() {}

    /// Drop a frame when the handler is still busy with the one before, rather than
    /// queueing it. `alwaysDiscardsLateVideoFrames`.
    public var alwaysDiscardsLateVideoFrames: Bool {
        get { lock.withLock { _alwaysDiscardsLateVideoFrames } }
        set { lock.withLock { _alwaysDiscardsLateVideoFrames = newValue } }
    }

    /// The pixel format frames are handed over in (yuv420p, the capture format, costs
    /// nothing). `videoSettings[kCVPixelBufferPixelFormatTypeKey]`.
    public var pixelFormat: PixelFormat {
        get { lock.withLock { _pixelFormat } }
        set { lock.withLock { _pixelFormat = newValue } }
    }

    /// The delegate's `captureOutput(_:didOutput:from:)` as a closure run on `queue`, with
    /// `captureOutput(_:didDrop:from:)` as `didDrop`. `setSampleBufferDelegate(_:queue:)`.
    /// - Parameters:
    ///   - queue: Where the handlers run; a serial queue keeps the frames in order.
    ///   - didDrop: Called with each frame dropped and why (late, out of buffers); nil to ignore.
    ///   - handler: Called with each frame delivered.
    public func setSampleBufferHandler(queue: DispatchQueue, didDrop: (@Sendable (SampleBuffer, DropReason) -> Void)? = nil,
                                       _ handler: @escaping @Sendable (SampleBuffer) -> Void) {
        lock.withLock {
            self.queue = queue
            self.handler = handler
            dropHandler = didDrop
        }
    }

    /// The frames as an `AsyncStream`, for `for await frame in output.frames { … }`: the
    /// newest four are kept when the loop falls behind.
    public var frames: AsyncStream<SampleBuffer> {
        AsyncStream(bufferingPolicy: .bufferingNewest(4)) { continuation in
            setSampleBufferHandler(queue: DispatchQueue(label: "reel.video-data-output")) { continuation.yield($0) }
        }
    }

    /// Writer settings for recording these frames, as the seed asks for them.
    /// `recommendedVideoSettingsForAssetWriter(writingTo:)`.
    /// - Parameter fileType: The container the writer makes; it decides the codec.
    /// - Returns: Settings for an ``AssetWriterInput`` at the session's frame size and rate
    ///   (1280×720 at 30 fps outside a session).
    public func recommendedVideoSettingsForAssetWriter(writingTo fileType: FileType) -> VideoSettings {
        let (width, height) = session?.frameSize ?? (1280, 720)
        return .recommended(width: width, height: height, frameRate: session?.frameRate ?? 30, fileType: fileType)
    }

    override func deliver(_ sample: SampleBuffer) {
        guard sample.mediaType == .video else { return }
        let (queue, handler, drop, late, format) = lock.withLock {
            () -> (DispatchQueue?, (@Sendable (SampleBuffer) -> Void)?, (@Sendable (SampleBuffer, DropReason) -> Void)?, Bool, PixelFormat) in
            let late = _alwaysDiscardsLateVideoFrames && busy
            if !late, self.queue != nil { busy = true }
            return (self.queue, self.handler, dropHandler, late, _pixelFormat)
        }
        guard let queue, let handler else { return }
        if late {
            if let drop { queue.async { drop(sample, .frameWasLate) } }
            return
        }
        queue.async { [self] in
            defer { lock.withLock { busy = false } }
            guard let picture = sample.pixelBuffer else { return }
            guard picture.pixelFormat != format else { return handler(sample) }
            guard let converted = try? PixelScaler.converted(picture, to: format) else {
                drop?(sample, .outOfBuffers)
                return
            }
            handler(SampleBuffer(pixelBuffer: converted, presentationTime: sample.presentationTime, duration: sample.duration))
        }
    }
}

public import Dispatch
import Foundation
public import ReelAsset
public import ReelCore

/// Audio as it comes, on a queue of the caller's: 48 kHz mono float, 1024 samples a
/// buffer. `AVCaptureAudioDataOutput`.
public final class AudioDataOutput: CaptureOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (SampleBuffer) -> Void)?
    private var queue: DispatchQueue?

    public override init() {}

    /// `setSampleBufferDelegate(_:queue:)`, as a closure run on `queue`.
    /// - Parameters:
    ///   - queue: Where `handler` runs; a serial queue keeps the buffers in order.
    ///   - handler: Called with each buffer of sound as the session captures it.
    public func setSampleBufferHandler(queue: DispatchQueue, _ handler: @escaping @Sendable (SampleBuffer) -> Void) {
        lock.withLock {
            self.queue = queue
            self.handler = handler
        }
    }

    /// Writer settings for recording this audio. `recommendedAudioSettingsForAssetWriter(writingTo:)`.
    /// - Parameter fileType: The container the writer makes; it decides the codec.
    /// - Returns: Settings for an ``AssetWriterInput`` that keep this output's sound as captured
    ///   (48 kHz, mono).
    public func recommendedAudioSettingsForAssetWriter(writingTo fileType: FileType) -> AudioSettings {
        .recommended(sampleRate: 48000, channelCount: 1, fileType: fileType)
    }

    override func deliver(_ sample: SampleBuffer) {
        guard sample.mediaType == .audio else { return }
        let (queue, handler) = lock.withLock { (self.queue, self.handler) }
        guard let queue, let handler else { return }
        queue.async { handler(sample) }
    }
}

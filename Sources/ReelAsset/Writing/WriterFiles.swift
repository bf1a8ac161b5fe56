import Foundation
import ReelCore

/// What a started ``AssetWriter`` has open: the shared muxer, the file under its temporary
/// name and the inputs' pipelines. Closing it after a failure or a cancel happens once:
/// a second caller (the finisher, while a failure's cleanup runs off the encoding queue)
/// waits until the first is done, so nobody finds the file half removed.
final class WriterFiles: @unchecked Sendable {
    let muxer: SharedMuxer
    let temporaryURL: URL
    let isFragmented: Bool
    let inputs: [AssetWriterInput]
    /// A segmented writer's cutter (its `temporaryURL` then names no file that exists).
    let segments: SegmentAssembler?
    /// Held for the whole of ``discard()``; `discarded` is only touched under it.
    private let closing = NSLock()
    private var discarded = false

    init(muxer: SharedMuxer, temporaryURL: URL, isFragmented: Bool, inputs: [AssetWriterInput],
         segments: SegmentAssembler? = nil) {
        self.muxer = muxer
        self.segments = segments
        self.temporaryURL = temporaryURL
        self.isFragmented = isFragmented
        self.inputs = inputs
    }

    /// Stops the pipelines, closes the muxer without a trailer and removes the file; a
    /// fragmented recording's `.partial` file is kept (it plays up to its last fragment)
    /// unless `removingPartial`. Idempotent; never call it on an encoding queue.
    func discard(removingPartial: Bool = false) {
        closing.lock()
        defer { closing.unlock() }
        guard !discarded else { return }
        discarded = true
        for input in inputs {
            input.markAsFinished()
            input.pipeline?.waitUntilIdle()
        }
        try? muxer.withLock { $0.abandon() }
        if !isFragmented || removingPartial {
            try? FileManager.default.removeItem(at: temporaryURL)
        }
        InProgressFiles.remove(temporaryURL)
        releasePipelines()
    }

    /// Lets the encoders go once the file is complete or given up.
    func releasePipelines() {
        for input in inputs { input.pipeline = nil }
    }
}

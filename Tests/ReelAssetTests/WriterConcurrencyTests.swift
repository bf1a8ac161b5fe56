import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// The writer's settings are guarded and frozen at `startWriting()`, and `finishWriting()`
/// honours the cancellation of its task.
@Suite struct WriterConcurrencyTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-writer-concurrency")
    }

    private func startedWriter(_ url: URL, frames: Int = 10) throws -> AssetWriter {
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240, preset: "ultrafast"))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for index in 0..<frames {
            try input.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index),
                                          presentationTime: MediaTime(value: Int64(index), timescale: 25),
                                          duration: MediaTime(value: 1, timescale: 25)))
        }
        return writer
    }

    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    }

    /// AVFoundation refuses these after writing starts; the file is written as set before.
    @Test func settingsAreFrozenAtStartWriting() throws {
        let url = directory.appendingPathComponent("frozen.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        writer.movieFragmentInterval = MediaTime(value: 1, timescale: 2)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240, preset: "ultrafast"))
        try writer.add(input)
        try writer.startWriting()
        writer.movieFragmentInterval = .invalid
        writer.shouldOptimizeForNetworkUse = false
        var metadata = AssetMetadata()
        metadata.title = "late"
        writer.metadata = metadata
        #expect(writer.movieFragmentInterval == MediaTime(value: 1, timescale: 2))
        #expect(writer.shouldOptimizeForNetworkUse)
        #expect(writer.metadata.title == nil)
        #expect(throws: ReelError.self) {
            try writer.add(AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(codec: .aac, sampleRate: 48000, channelCount: 1)))
        }
        writer.cancelWriting()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    /// Settings read and written from many threads at once (the thread sanitizer's subject:
    /// they were plain stored properties of an `@unchecked Sendable` class).
    @Test func settingsMayBeUsedFromManyThreads() throws {
        let writer = try AssetWriter(outputURL: directory.appendingPathComponent("threads.mp4"), fileType: .mp4)
        // Threads of their own, so that a busy pool cannot run every iteration on one.
        let group = DispatchGroup()
        for thread in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                for index in 0..<500 {
                    if (index + thread) % 2 == 0 {
                        writer.movieFragmentInterval = MediaTime(value: Int64(index % 7 + 1), timescale: 1)
                        writer.shouldOptimizeForNetworkUse = index % 4 == 0
                        var metadata = AssetMetadata()
                        metadata.title = "take \(index)"
                        writer.metadata = metadata
                    } else {
                        _ = writer.movieFragmentInterval
                        _ = writer.shouldOptimizeForNetworkUse
                        _ = writer.metadata.title
                        _ = writer.inputs.count
                    }
                }
                group.leave()
            }
        }
        group.wait()
        #expect(writer.movieFragmentInterval.isNumeric)
    }

    /// Cancelling the task that awaits `finishWriting()` cancels the writing: no file, no
    /// temporary left, a `.cancelled` error.
    @Test func cancellingTheFinishingTaskCancelsTheWriting() async throws {
        let url = directory.appendingPathComponent("cancelled.mp4")
        let writer = try startedWriter(url)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await writer.finishWriting()
        }
        let result = await task.result
        #expect(throws: ReelError.self) { try result.get() }
        if case .failure(let error as ReelError) = result { #expect(error.code == .cancelled, "\(error)") }
        #expect(writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try leftovers().isEmpty)
    }

    /// An uncancelled task finishes the file as before.
    @Test func finishWritingCompletesTheFile() async throws {
        let url = directory.appendingPathComponent("finished.mp4")
        let writer = try startedWriter(url)
        try await writer.finishWriting()
        #expect(writer.status == .completed)
        #expect(try FFprobe.countFrames(url) == 10)
    }

    /// A cancel and a finish racing from two threads end in one of the two outcomes,
    /// whole: a complete file, or no file and nothing left behind.
    @Test func cancelRacingFinishLeavesOneWholeOutcome() throws {
        for round in 0..<8 {
            let url = directory.appendingPathComponent("race-\(round).mp4")
            let writer = try startedWriter(url, frames: 5)
            let group = DispatchGroup()
            let outcome = OutcomeBox()
            DispatchQueue.global().async(group: group) {
                do { try writer.finishSynchronously() } catch { outcome.set(error) }
            }
            DispatchQueue.global().async(group: group) { writer.cancelWriting() }
            group.wait()
            if writer.status == .completed {
                #expect(outcome.error == nil)
                #expect(try FFprobe.countFrames(url) == 5)
            } else {
                #expect(writer.status == .cancelled, "round \(round): \(writer.status)")
                #expect(!FileManager.default.fileExists(atPath: url.path))
            }
        }
        #expect(try leftovers().isEmpty)
    }
}

private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    var error: (any Error)? { lock.withLock { stored } }
    func set(_ error: any Error) { lock.withLock { stored = error } }
}

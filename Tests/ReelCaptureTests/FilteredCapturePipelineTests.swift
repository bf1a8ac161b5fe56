import Foundation
@testable import ReelCapture
import ReelCore
import ReelFilters
import ReelTestSupport
import Testing

@Suite struct FilteredCapturePipelineTests {
    /// The seed app's flow: a live filter, swapped mid-recording, on the preview and in the file alike.
    @Test func previewAndFileGetTheSameFilteredFrames() async throws {
        let directory = try Paths.temporaryDirectory("reel-pipeline")
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = .low
        let camera = CaptureDevice.testCamera(width: 320)
        try session.add(try CaptureDeviceInput(device: camera))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        let pipeline = try FilteredCapturePipeline(session: session, filter: try FilterChain(spec: "PhotoEffectMono"))
        let (previews, preview) = AsyncStream<(Int, Bool)>.makeStream()
        pipeline.setPreviewHandler { sample in
            guard let picture = sample.pixelBuffer else { return }
            // Mono leaves chroma at neutral grey.
            let neutral = abs(Int(picture.element(plane: 1, x: 40, y: 60)?[0] ?? 0) - 128) < 4
            preview.yield((VirtualCamera.readCounter(picture), neutral))
        }
        session.startRunning()
        defer { session.stopRunning() }
        capture.advance(0.31) // the camera warms up, as the preview would
        // The frames up to now reach the pipeline's queue; the recording starts after them.
        pipeline.waitForQueuedFrames()
        let url = directory.appendingPathComponent("seed.mp4")
        try pipeline.startRecording(to: url)
        capture.advance(1.5)
        let frames = try await pipeline.stopRecording()
        preview.finish()
        var seen: [(Int, Bool)] = []
        for await item in previews { seen.append(item) }
        #expect(seen.count == 55 && frames == 45, "\(seen.count) previews, \(frames) recorded")
        let allFiltered = seen.allSatisfy { $0.1 }
        #expect(allFiltered, "every preview frame is filtered")
        let checks = try CaptureChecks(url)
        #expect(checks.counters.count == frames && checks.countersAreConsecutive, "\(checks.counterBreaks)")
        #expect(Set(checks.counters).isSubset(of: Set(seen.map(\.0))), "the file's frames are the preview's")
        _ = checks.expectSync(frameDuration: 1.0 / 30)
        try pipeline.startRecording(to: directory.appendingPathComponent("second.mp4"))
        #expect(throws: ReelError.self) { try pipeline.startRecording(to: url) }
        try await pipeline.stopRecording()
    }
}

import Foundation
@testable import ReelCapture
import ReelCore
import ReelFilters
import ReelTestSupport
import Testing

@Suite struct FilteredCapturePipelineTests {
    /// The seed app's flow: a live filter, swapped mid-recording, on the preview and in the file alike.
    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func previewAndFileGetTheSameFilteredFrames() async throws {
        let directory = try Paths.temporaryDirectory("reel-pipeline")
        let session = CaptureSession()
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
        usleep(300_000) // the camera warms up, as the preview would
        let url = directory.appendingPathComponent("seed.mp4")
        try pipeline.startRecording(to: url)
        usleep(1_500_000)
        let frames = try await pipeline.stopRecording()
        preview.finish()
        var seen: [(Int, Bool)] = []
        for await item in previews { seen.append(item) }
        #expect(seen.count >= frames && frames >= 30, "\(seen.count) previews, \(frames) recorded")
        let allFiltered = seen.allSatisfy { $0.1 }
        #expect(allFiltered, "every preview frame is filtered")
        let checks = try CaptureChecks(url)
        // (Every-frame continuity is RecordingTests' and the real-time suite's to prove.)
        #expect(checks.counters.count == frames)
        #expect(Set(checks.counters).isSubset(of: Set(seen.map(\.0))), "the file's frames are the preview's")
        _ = checks.expectSync(frameDuration: 1.0 / 30)
        try pipeline.startRecording(to: directory.appendingPathComponent("second.mp4"))
        #expect(throws: ReelError.self) { try pipeline.startRecording(to: url) }
        try await pipeline.stopRecording()
    }
}

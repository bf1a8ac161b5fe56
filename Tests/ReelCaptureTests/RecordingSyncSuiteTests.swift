import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// The sync suite's recording case (issue 14): the virtual camera flashes and the virtual
/// microphone clicks at the same instant every second; a recording of both, stopped by
/// hand, is measured with the suite's ``SyncMeter``. A recording's flash and click must be
/// within 5 ms of each other, and its sound must end with its last picture.
@Suite struct RecordingSyncSuiteTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-recording-sync")
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "a sanitizer build is too slow for real-time capture"),
          arguments: [25.0, 30.0])
    func flashAndClickStayTogether(_ rate: Double) async throws {
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        camera.activeFormat = camera.formats.first { $0.width == 320 }
        try camera.setFrameRate(rate)
        try session.addInput(try CaptureDeviceInput(device: camera))
        try session.addInput(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        let movie = MovieFileOutput()
        try session.addOutput(movie)
        let url = directory.appendingPathComponent("recording-\(Int(rate)).mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        usleep(300_000)
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        usleep(3_700_000)
        movie.stopRecording()
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }

        let measured = try SyncMeter.measure(url)
        // The events are the flashes the camera drew (their times are the camera's, not planned),
        // but one in the first or last moment, whose click the start or the stop may cut.
        let flashes = measured.flashes.filter { $0 > 0.05 && $0 < measured.audioEnd - 0.05 }
        #expect(flashes.count >= 3, "flashes \(measured.flashes)")
        let verdict = SyncMeter.judge(measured, expected: flashes, duration: measured.videoEnd - measured.videoStart)
        print(String(format: "sync recording %.0f fps: ", rate) + "\(verdict)")
        #expect(verdict.lost == 0, "\(verdict): flashes \(measured.flashes), clicks \(measured.clicks)")
        #expect(verdict.worstOffset <= 0.005, "\(verdict)")
        #expect(abs(verdict.endGap) <= verdict.audioFrame, "\(verdict)")
    }
}

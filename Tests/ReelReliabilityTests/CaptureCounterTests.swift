import Dispatch
import Foundation
import ReelCapture
import ReelCore
import Testing

/// A session's counters are read from other threads (the CLI's status line, the studio)
/// while its queues move them: under the thread sanitizer this is where a race would show.
@Suite struct CaptureCounterTests {
    @Test func countersReadWhileRunningOnlyGrow() async throws {
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        camera.activeFormat = camera.formats.first { $0.width == 320 }
        try camera.setFrameRate(30)
        try session.add(try CaptureDeviceInput(device: camera))
        session.sessionPreset = .low
        let output = VideoDataOutput()
        output.setSampleBufferHandler(queue: DispatchQueue(label: "test.frames")) { _ in }
        try session.add(output)
        session.startRunning()
        var readings: [(delivered: Int, dropped: Int)] = []
        for _ in 0..<40 {
            readings.append((session.deliveredFrames, session.droppedFrames))
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        session.stopRunning()
        #expect(zip(readings, readings.dropFirst()).allSatisfy { $1.delivered >= $0.delivered && $1.dropped >= $0.dropped })
        #expect((readings.last?.delivered ?? 0) >= 15, "\(readings.last?.delivered ?? 0) frames in a second")
    }
}

import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// Live stabilization on the shaking virtual camera, judged by FFmpeg's vidstabdetect (an
/// estimator Reel does not use): the frame-to-frame global motion of each mode's recording
/// against the unsteadied one, recorded at the same time from the same frames.
@Suite(.serialized) struct StabilizationTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-stabilization")
    }

    @Test func theHandheldCameraShakesAsDocumented() throws {
        let camera = try CaptureDevice.device(withUniqueID: "virtual:handheld-camera")
        #expect(!CaptureDevice.devices.contains { $0 === camera }, "not listed")
        var largest = 0.0
        for frame in 0..<300 {
            let (x, y) = HandheldCamera.shake(at: Double(frame) / 30, height: 1080)
            largest = max(largest, abs(x), abs(y))
        }
        #expect(largest > 10 && largest <= 0.0175 * 1080, "\(largest) px")
        // Seeded: the same path every time.
        #expect(HandheldCamera.shake(at: 1.25, height: 1080) == HandheldCamera.shake(at: 1.25, height: 1080))
        // The roll: 2, 5 and 9 Hz at 0.5°, 0.25° and 0.125°, 0.875° at most.
        let rolls = (0..<300).map { HandheldCamera.roll(at: Double($0) / 30) * 180 / .pi }
        let steepest = zip(rolls, rolls.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        #expect((rolls.map(abs).max() ?? 0) > 0.5 && (rolls.map(abs).max() ?? 0) <= 0.875, "\(rolls.map(abs).max() ?? 0)°")
        #expect(steepest > 0.1 && steepest <= 0.71, "\(steepest)° a frame at most")
        #expect(HandheldCamera.roll(at: 2.5) == HandheldCamera.roll(at: 2.5))
    }

    @Test func theHandheldCameraTurnsThePicture() throws {
        // A picture whose roll is the largest: its left and right edges have moved apart
        // vertically by width·sin(roll), which the estimator between it and an unturned one finds.
        let times = (0..<300).map { Double($0) / 30 }
        let turned = try #require(times.max { abs(HandheldCamera.roll(at: $0)) < abs(HandheldCamera.roll(at: $1)) })
        let level = try #require(times.min { abs(HandheldCamera.roll(at: $0)) < abs(HandheldCamera.roll(at: $1)) })
        let first = try PixelBuffer(width: 1280, height: 720, pixelFormat: .yuv420p)
        let second = try PixelBuffer(width: 1280, height: 720, pixelFormat: .yuv420p)
        HandheldCamera.render(frame: Int64((level * 30).rounded()), rate: 30, into: first)
        HandheldCamera.render(frame: Int64((turned * 30).rounded()), rate: 30, into: second)
        let estimator = GlobalMotionEstimator()
        let found = estimator.rigidMotion(from: estimator.signature(of: first), to: estimator.signature(of: second))
        let expected = HandheldCamera.roll(at: turned) - HandheldCamera.roll(at: level)
        #expect(abs(expected) > 0.7 * .pi / 180)
        #expect(abs(found.angle - expected) < 0.05 * .pi / 180,
                "found \(found.angle * 180 / .pi)°, expected \(expected * 180 / .pi)°")
    }

    @Test func theEstimatorFindsEachFramesTurn() throws {
        // Frame to frame over a second at 720p: the turn each frame within 0.03° (a third
        // of a pixel at the picture's edge), the shift at the centre within 0.6 px.
        let estimator = GlobalMotionEstimator()
        var previous: (PixelBuffer, GlobalMotionEstimator.Signature)?
        var angleErrors: [Double] = [], shiftErrors: [Double] = []
        for frame in 0..<31 {
            let picture = try PixelBuffer(width: 1280, height: 720, pixelFormat: .yuv420p)
            HandheldCamera.render(frame: Int64(frame), rate: 30, into: picture)
            let signature = estimator.signature(of: picture)
            if let (_, before) = previous {
                let found = estimator.rigidMotion(from: before, to: signature)
                let a = HandheldCamera.shake(at: Double(frame - 1) / 30, height: 720)
                let b = HandheldCamera.shake(at: Double(frame) / 30, height: 720)
                let dx = Double(Int((b.x / 2).rounded()) - Int((a.x / 2).rounded())) * 2
                let dy = Double(Int((b.y / 2).rounded()) - Int((a.y / 2).rounded())) * 2
                let turn = HandheldCamera.roll(at: Double(frame) / 30) - HandheldCamera.roll(at: Double(frame - 1) / 30)
                angleErrors.append(abs(found.angle - turn) * 180 / .pi)
                shiftErrors.append(max(abs(found.dx - dx), abs(found.dy - dy)))
            }
            previous = (picture, signature)
        }
        let meanAngleError = angleErrors.reduce(0, +) / Double(angleErrors.count)
        #expect(meanAngleError < 0.03 && (angleErrors.max() ?? 1) < 0.08, "turn errors \(angleErrors)")
        #expect((shiftErrors.max() ?? 9) < 0.6, "shift errors \(shiftErrors)")
    }

    @Test func theEstimatorFindsAKnownShift() throws {
        let first = try PixelBuffer(width: 640, height: 360, pixelFormat: .yuv420p)
        let second = try PixelBuffer(width: 640, height: 360, pixelFormat: .yuv420p)
        HandheldCamera.render(frame: 0, rate: 30, into: first)
        HandheldCamera.render(frame: 7, rate: 30, into: second)
        let a = HandheldCamera.shake(at: 0, height: 360), b = HandheldCamera.shake(at: 7.0 / 30, height: 360)
        // The picture moves with the shake, in even pixels.
        let expected = (x: Double(Int((b.x / 2).rounded()) - Int((a.x / 2).rounded())) * 2,
                        y: Double(Int((b.y / 2).rounded()) - Int((a.y / 2).rounded())) * 2)
        let estimator = GlobalMotionEstimator()
        let found = estimator.rigidMotion(from: estimator.signature(of: first), to: estimator.signature(of: second))
        #expect(abs(found.dx - expected.x) < 0.6 && abs(found.dy - expected.y) < 0.6, "found \(found), expected \(expected)")
    }

    /// The three modes recorded at once from the same frames, on the stepped clock: the
    /// subject is what the stabilizer does to the pictures, so no frame may go missing and
    /// no second is waited for (RealTimeStabilizationTests is the real-time judge).
    @Test func liveModesTakeOutTheShake() throws {
        let capture = SteppedCapture()
        let session = capture.session
        let camera = try CaptureDevice.device(withUniqueID: "virtual:handheld-camera")
        camera.activeFormat = camera.formats.first { $0.width == 640 }
        try camera.setFrameRate(30)
        try session.add(try CaptureDeviceInput(device: camera))
        session.sessionPreset = .vga640x480
        var outputs: [(CaptureVideoStabilizationMode, MovieFileOutput, URL)] = []
        for mode in [CaptureVideoStabilizationMode.off, .standard, .cinematic] {
            let movie = MovieFileOutput()
            try session.add(movie)
            movie.connection(with: .video)?.preferredVideoStabilizationMode = mode
            outputs.append((mode, movie, directory.appendingPathComponent("shake-\(mode).mp4")))
        }
        let errors = PosixMutex<[ReelError?]>([])
        let finished = DispatchSemaphore(value: 0)
        session.startRunning()
        capture.advance(0.3)
        for (_, movie, url) in outputs {
            try movie.startRecording(to: url, audio: false) { _, error in
                errors.withLock { $0.append(error) }
                finished.signal()
            }
        }
        capture.advance(5)
        for (_, movie, _) in outputs { try capture.stopRecording(movie) }
        session.stopRunning()
        for _ in outputs { #expect(finished.wait(timeout: .now() + 30) == .success, "a recording never finished") }
        for error in errors.withLock({ $0 }) { #expect(error == nil, "\(String(describing: error))") }
        let counts = try outputs.map { try FFprobe.countFrames($0.2) }
        #expect(counts[1] >= counts[0] - 8 && counts[2] >= counts[0] - 17, "frames off/standard/cinematic: \(counts)")
        var motion: [CaptureVideoStabilizationMode: Double] = [:]
        for (mode, _, url) in outputs {
            let measured = try ShakeMeter.meanMotion(url)
            #expect(measured.frames > 30, "\(mode): \(measured.frames) frames measured")
            motion[mode] = measured.pixels
        }
        let shaky = try #require(motion[.off]), standard = try #require(motion[.standard]),
            cinematic = try #require(motion[.cinematic])
        let reduction = { (steadied: Double) in 1 - steadied / shaky }
        print("stabilization: off \(shaky) px/frame, standard \(standard) (\(Int(reduction(standard) * 100)) %), "
              + "cinematic \(cinematic) (\(Int(reduction(cinematic) * 100)) %)")
        #expect(shaky > 3, "the camera shakes: \(shaky) px a frame")
        #expect(reduction(standard) >= 0.6, "standard: \(standard) px a frame against \(shaky)")
        #expect(reduction(cinematic) >= 0.8, "cinematic: \(cinematic) px a frame against \(shaky)")
        // The turn, as libvidstab finds it: the hand's roll taken out too.
        var turn: [CaptureVideoStabilizationMode: Double] = [:]
        for (mode, _, url) in outputs { turn[mode] = try ShakeMeter.meanRotation(url).degrees }
        let rolled = try #require(turn[.off]), rolledStandard = try #require(turn[.standard]),
            rolledCinematic = try #require(turn[.cinematic])
        let turnReduction = { (steadied: Double) in 1 - steadied / rolled }
        print("stabilization turn: off \(rolled)°/frame, standard \(rolledStandard) (\(Int(turnReduction(rolledStandard) * 100)) %), "
              + "cinematic \(rolledCinematic) (\(Int(turnReduction(rolledCinematic) * 100)) %)")
        #expect(rolled > 0.08, "the camera rolls: \(rolled)° a frame")
        #expect(turnReduction(rolledStandard) >= 0.5, "standard turn: \(rolledStandard)° a frame against \(rolled)")
        #expect(turnReduction(rolledCinematic) >= 0.7, "cinematic turn: \(rolledCinematic)° a frame against \(rolled)")
    }
}

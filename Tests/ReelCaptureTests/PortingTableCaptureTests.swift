import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// Rows of docs/porting-from-avfoundation.md ("Capture") that no other test called
/// (issue 15: every row checked against a call), each called as a port would call it
/// and checked where a user would see it: frame times, the recorded file, the settings.
@Suite struct PortingTableCaptureTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-porting-capture")
    }

    /// `activeFormat` (a `CaptureDevice.Format`), `setActiveVideoMinFrameDuration`,
    /// `activeVideoMaxFrameDuration`: the frames come at the duration set.
    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func aFrameDurationSetOnTheDeviceIsTheFramesSpacing() async throws {
        let camera = CaptureDevice.testCamera(width: 320, name: "frame duration")
        let format: CaptureDevice.Format = try #require(camera.activeFormat)
        #expect(format.width == 320)
        try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 15))
        #expect(camera.activeVideoMinFrameDuration == MediaTime(value: 1, timescale: 15))
        #expect(camera.activeVideoMaxFrameDuration == MediaTime(value: 1, timescale: 15))
        #expect(throws: ReelError.self) { try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 100_000)) }
        #expect(throws: ReelError.self) { try camera.setActiveVideoMinFrameDuration(.zero) }

        let session = CaptureSession()
        session.addInput(try CaptureDeviceInput(device: camera))
        let output = VideoDataOutput()
        #expect(output.alwaysDiscardsLateVideoFrames, "AVFoundation's default")
        output.alwaysDiscardsLateVideoFrames = false
        #expect(!output.alwaysDiscardsLateVideoFrames)
        session.addOutput(output)
        session.startRunning()
        defer { session.stopRunning() }
        // On the 1/15 s grid, and (a frame skipped when two suites share the cores is
        // counted as dropped, not squeezed in) at least one step of exactly 1/15 s: six frames
        // at least, and on until such a step comes (a loaded machine's camera can skip several
        // in a row), at most 6 s of them.
        let step = MediaTime(value: 1, timescale: 15)
        var times: [MediaTime] = []
        for await sample in output.frames {
            times.append(sample.presentationTime)
            let stepSeen = zip(times, times.dropFirst()).contains { $1 - $0 == step }
            if (times.count >= 6 && stepSeen) || times.count == 90 { break }
        }
        var steps: [MediaTime] = []
        for (a, b) in zip(times, times.dropFirst()) {
            steps.append(b - a)
            let frames = ((b - a).seconds * 15).rounded()
            #expect(frames >= 1 && b - a == MediaTime(value: Int64(frames), timescale: 15), "frames at \(a) and \(b)")
        }
        #expect(steps.contains(step), "\(steps)")
    }

    /// `CaptureSession.Preset`, `recommendedVideoSettingsForAssetWriter`,
    /// `recommendedAudioSettingsForAssetWriter`: the settings fit what the session delivers.
    @Test func recommendedSettingsFollowThePreset() throws {
        let session = CaptureSession()
        session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(name: "preset")))
        let video = VideoDataOutput(), audio = AudioDataOutput()
        session.addOutput(video)
        session.addOutput(audio)
        let preset: CaptureSession.Preset = .hd1280x720
        #expect(session.canSetSessionPreset(preset))
        session.sessionPreset = preset
        let settings = video.recommendedVideoSettingsForAssetWriter(writingTo: .mp4)
        #expect(settings.width == 1280 && settings.height == 720, "\(settings.width)x\(settings.height)")
        session.sessionPreset = .vga640x480
        let smaller = video.recommendedVideoSettingsForAssetWriter(writingTo: .mov)
        #expect(smaller.width == 640 && smaller.height == 480, "\(smaller.width)x\(smaller.height)")
        let sound = audio.recommendedAudioSettingsForAssetWriter(writingTo: .mp4)
        #expect(sound.sampleRate == 48000)
    }

    /// `exposureDuration`, `TorchMode`, `isFlashAvailable`, `WhiteBalanceMode`,
    /// `cancelVideoZoomRamp()`, `AuthorizationStatus`: the device reads back what was set.
    @Test func deviceControlsReadBack() throws {
        let back = CaptureDevice.testCamera(name: "controls")
        try back.setExposureModeCustom(duration: MediaTime(value: 1, timescale: 100), iso: 200)
        #expect(back.exposureMode == .custom)
        #expect(back.exposureDuration == MediaTime(value: 1, timescale: 100))
        #expect(back.iso == 200)

        #expect(back.hasTorch && back.isTorchModeSupported(.on))
        let on: CaptureDevice.TorchMode = .on
        try back.setTorchMode(on)
        #expect(back.torchMode == .on)
        #expect(back.isFlashAvailable)
        let front = try #require(CaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .front))
        #expect(!front.isFlashAvailable && !front.hasTorch)

        let locked: CaptureDevice.WhiteBalanceMode = .locked
        #expect(back.isWhiteBalanceModeSupported(locked))
        try back.setWhiteBalanceMode(locked)
        #expect(back.whiteBalanceMode == .locked)

        try back.ramp(toVideoZoomFactor: 2, withRate: 1)
        #expect(back.isRampingVideoZoom)
        back.cancelVideoZoomRamp()
        #expect(!back.isRampingVideoZoom)
        #expect(back.videoZoomFactor < 2, "the ramp went on after its cancel: \(back.videoZoomFactor)")

        let status: CaptureDevice.AuthorizationStatus = CaptureDevice.authorizationStatus(for: .video)
        #expect(status == .authorized, "the virtual camera is this user's: \(status)")
    }

    /// `maxRecordedFileSize` and `recordedFileSize`: the recording stops by itself near the
    /// size, and says why; `minFreeDiskSpaceLimit` above the disk's free space stops it at once.
    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func fileSizeAndFreeSpaceLimitsEndARecording() async throws {
        for limit in ["size", "space"] {
            let session = CaptureSession()
            session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320, name: "limits \(limit)")))
            session.sessionPreset = .low
            let movie = MovieFileOutput()
            if limit == "size" {
                movie.maxRecordedFileSize = 60_000
            } else {
                movie.minFreeDiskSpaceLimit = Int64.max / 2
            }
            session.addOutput(movie)
            let url = directory.appendingPathComponent("limit-\(limit).mp4")
            let finished = AsyncStream<ReelError?>.makeStream()
            session.startRunning()
            try movie.startRecording(to: url) { _, error in
                finished.continuation.yield(error)
                finished.continuation.finish()
            }
            var sizeWhileRecording: Int64 = 0
            // About 1–2 s of pictures fill 60,000 bytes; a loaded machine is given a minute.
            for _ in 0..<600 where movie.isRecording {
                sizeWhileRecording = max(sizeWhileRecording, movie.recordedFileSize)
                usleep(100_000)
            }
            #expect(!movie.isRecording, "\(limit): still recording after 60 s")
            for await _ in finished.stream {}
            session.stopRunning()
            let expected: MovieFileOutput.StopReason = limit == "size" ? .maximumFileSizeReached : .diskSpaceLimitReached
            #expect(movie.stopReason == expected, "\(limit): \(String(describing: movie.stopReason))")
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber).int64Value
            if limit == "size" {
                #expect(sizeWhileRecording > 0, "recordedFileSize read 0 throughout")
                // Checked twice a second, a fragment at a time: past the limit by at most a few fragments.
                #expect(size >= 30_000 && size < 400_000, "\(size) bytes for a 60,000-byte limit")
            }
            #expect(try FFprobe.countFrames(url) > 0)
        }
    }

    /// `wasInterruptedNotification`, and the documented difference: a camera that went away
    /// keeps the session interrupted until `stopRunning()`, so `interruptionEndedNotification`
    /// is never posted.
    @Test func anInterruptionLastsUntilTheSessionStops() throws {
        let tone = directory.appendingPathComponent("tone.m4a")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", tone.path])
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = .low
        // A file camera whose file has no picture: it goes away at its first frame.
        session.addInput(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "file:\(tone.path)")))
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var names: [Notification.Name] = []
        }
        let seen = Seen()
        let observers = [CaptureSession.wasInterruptedNotification, CaptureSession.interruptionEndedNotification].map { name in
            NotificationCenter.default.addObserver(forName: name, object: session, queue: nil) { note in
                seen.lock.withLock { seen.names.append(note.name) }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        session.startRunning()
        // The file camera opens its file on a reader of its own, so the frame that finds no
        // picture comes when that reader has answered: the clock moves a frame at a time
        // until then, for at most 10 s of real time.
        let deadline = Date().addingTimeInterval(10)
        while !session.isInterrupted, Date() < deadline {
            capture.advance(1.0 / 30)
            usleep(1_000)
        }
        #expect(session.isInterrupted)
        capture.advance(1)
        #expect(session.isInterrupted, "the interruption ended by itself")
        session.stopRunning()
        #expect(seen.lock.withLock { seen.names } == [CaptureSession.wasInterruptedNotification])
    }
}

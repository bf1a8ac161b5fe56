import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// A recording starts and ends with its pictures: the virtual camera's flash and the
/// virtual microphone's click, made at the same instant, come out together (the AAC
/// priming hidden by an edit list, not shifted), and a recording stopped by hand ends its
/// sound at its last picture. On the harness's clock: the subject is the timestamps, not
/// the pace, so it runs under the sanitizers too.
@Suite struct RecordingSyncTests {
    /// Each stream's first and last instant, as ffprobe reads them.
    struct StreamSpan {
        var start: Double
        var end: Double
    }

    static func spans(_ url: URL) throws -> (video: StreamSpan, audio: StreamSpan) {
        let result = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time,duration",
                                                               "-of", "csv=p=0", url.path])
        var video: StreamSpan?, audio: StreamSpan?
        for line in result.standardOutput.split(separator: "\n") {
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count == 3, let start = Double(fields[1]), let duration = Double(fields[2]) else { continue }
            let span = StreamSpan(start: start, end: start + duration)
            if fields[0] == "video" { video = span } else if fields[0] == "audio" { audio = span }
        }
        return (try #require(video, "\(result.standardOutput)"), try #require(audio, "\(result.standardOutput)"))
    }

    /// The container's major brand (`qt  ` for a QuickTime movie).
    static func majorBrand(_ url: URL) throws -> String {
        let data = try Data(contentsOf: url).prefix(12)
        return String(decoding: data.dropFirst(8), as: UTF8.self)
    }

    @Test(arguments: [
        (25.0, 2.37, "mp4", CaptureVideoStabilizationMode.off), (30.0, 2.61, "mov", .off), (60.0, 2.83, "mp4", .off),
        (30.0, 2.61, "mp4", .cinematic),
    ])
    func flashAndClickComeOutTogetherAndTheSoundEndsWithThePicture(
        rate: Double, stopAfter: Double, ext: String, stabilization: CaptureVideoStabilizationMode
    ) async throws {
        let directory = try Paths.temporaryDirectory("reel-recording-sync")
        let capture = SteppedCapture()
        let session = capture.session
        let camera = CaptureDevice.testCamera(width: 320)
        try camera.setFrameRate(rate)
        session.addInput(try CaptureDeviceInput(device: camera))
        session.addInput(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        let movie = MovieFileOutput()
        session.addOutput(movie)
        movie.connection(with: .video)?.preferredVideoStabilizationMode = stabilization
        let url = directory.appendingPathComponent("sync-\(Int(rate))-\(stabilization).\(ext)")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        // Start just before a flash (the session clock's whole second), stop at a moment
        // between frames: the sound must end with the last picture anyway.
        capture.advance(0.8)
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        capture.advance(stopAfter)
        try capture.stopRecording(movie)
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }

        let checks = try CaptureChecks(url)
        #expect(checks.flashes.count >= 2, "\(checks.flashes) flashes at \(rate) fps")
        var offsets: [Double] = []
        for flash in checks.flashes where flash < checks.audioEnd - 0.05 {
            let nearest = checks.clicks.min { abs($0 - flash) < abs($1 - flash) } ?? 99
            offsets.append(nearest - flash)
        }
        let worst = offsets.map(abs).max() ?? 99
        #expect(worst <= 0.005, "flash-to-click offsets at \(rate) fps: \(offsets.map { Int(($0 * 1000).rounded()) }) ms")

        let (video, audio) = try Self.spans(url)
        let audioFrame = 1024.0 / 48000
        print("recording at \(Int(rate)) fps (.\(ext), stabilization \(stabilization)): flash-to-click \(offsets.map { String(format: "%+.1f", $0 * 1000) }) ms; "
              + "video \(video.start)...\(video.end) s, audio \(audio.start)...\(audio.end) s (ffprobe)")
        #expect(abs(audio.start - video.start) < 0.001, "audio starts at \(audio.start) s, video at \(video.start) s")
        #expect(abs(audio.end - video.end) <= audioFrame, "audio ends at \(audio.end) s, video at \(video.end) s")
        #expect(try Self.majorBrand(url) == (ext == "mov" ? "qt  " : "isom"), "brand of \(url.lastPathComponent)")
    }

    /// A released hold ends its segment's sound at its last picture.
    @Test func aReleasedHoldEndsItsSoundWithItsLastPicture() async throws {
        let directory = try Paths.temporaryDirectory("reel-hold-end")
        let capture = SteppedCapture()
        let session = capture.session
        session.addInput(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        session.addInput(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        let recorder = try SegmentedRecorder(session: session, directory: directory.appendingPathComponent("segments"),
                                             outputURL: directory.appendingPathComponent("out.mp4"))
        session.startRunning()
        capture.advance(0.3)
        try recorder.startSegment()
        capture.advance(1.13)
        try capture.whileAdvancing(until: { !recorder.isTakingPictures }, { recorder.pauseSegment() })
        session.stopRunning()
        let segment = try #require(recorder.segments.first)
        let (video, audio) = try Self.spans(segment.url)
        #expect(abs(audio.end - video.end) <= 1024.0 / 48000, "audio ends at \(audio.end) s, video at \(video.end) s")
        #expect(abs(audio.start - video.start) < 0.001, "audio starts at \(audio.start) s, video at \(video.start) s")
    }
}

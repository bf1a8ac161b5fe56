import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelFilters
import ReelTestSupport
import Testing

@Suite struct RecordingTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-capture")
    }

    @Test func devicesAreFoundByID() throws {
        #expect(CaptureDevice.default(for: .video)?.uniqueID == "virtual:camera")
        #expect(CaptureDevice.default(for: .audio)?.uniqueID == "virtual:microphone")
        #expect {
            try CaptureDevice.device(withUniqueID: "v4l2:/dev/video9")
        } throws: { ($0 as? ReelError)?.description.contains("no such device") == true }
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        #expect(throws: ReelError.self) { try camera.setFrameRate(1000) }
    }

    @Test func virtualCameraCounterReadsBack() throws {
        let picture = try PixelBuffer(width: 320, height: 240, pixelFormat: .yuv420p)
        for index in [0, 1, 29, 30, 1234] {
            VirtualCamera.render(frame: Int64(index), rate: 30, into: picture)
            #expect(VirtualCamera.readCounter(picture) == index)
        }
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "a sanitizer build is too slow for real-time capture to keep every frame"))
    func recordingHoldsEveryFrameOnceAndKeepsSync() async throws {
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        camera.activeFormat = camera.formats.first { $0.width == 320 }
        try camera.setFrameRate(30)
        try session.addInput(try CaptureDeviceInput(device: camera))
        try session.addInput(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        session.sessionPreset = .low
        session.videoFilter = try FilterChain(spec: "PhotoEffectTonal")
        let movie = MovieFileOutput()
        try session.addOutput(movie)
        let url = directory.appendingPathComponent("recording.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        // Stop between flashes (at about 3.5 s), so the last flash's click is in too.
        try await Task.sleep(nanoseconds: 3_500_000_000)
        movie.stopRecording()
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }

        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let video = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        let audio = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .audio).first),
                                           audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar))
        try reader.add(video)
        try reader.add(audio)
        try reader.startReading()
        var counters: [Int] = []
        var flashes: [Double] = []
        while let sample = try video.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
            counters.append(VirtualCamera.readCounter(picture))
            if (picture.element(plane: 0, x: 160, y: 200)?[0] ?? 0) > 200 { flashes.append(sample.presentationTime.seconds) }
        }
        #expect(counters.count >= 80, "\(counters.count) frames in 3 s")
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $1 == $0 + 1 }, "counters not consecutive: \(counters)")
        var clicks: [Double] = []
        var last = -10.0
        var audioEnd = 0.0
        while let sample = try audio.copyNextSampleBuffer() {
            audioEnd = max(audioEnd, sample.timeRange.end.seconds)
            for (i, value) in (sample.audioBuffer?.floatSamples(channel: 0) ?? []).enumerated() where abs(value) > 0.3 {
                let time = sample.presentationTime.seconds + Double(i) / 48000
                if time - last > 0.5 { clicks.append(time) }
                last = time
            }
        }
        #expect(!flashes.isEmpty)
        // A flash in the last moment before the stop may lack its click if the audio stopped first.
        for flash in flashes where flash < audioEnd - 0.05 {
            let nearest = clicks.min { abs($0 - flash) < abs($1 - flash) } ?? 99
            #expect(abs(nearest - flash) <= 1.0 / 30 + 0.001, "flash \(flash) s, nearest click \(nearest) s")
        }
    }
}

import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

@Suite struct WriterBehaviourTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-writer-behaviour")
    }

    @Test func readinessFallsWhenTheEncoderFallsBehind() throws {
        let url = directory.appendingPathComponent("slow.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video,
                                     outputSettings: VideoSettings(width: 1920, height: 1080, preset: "veryslow"))
        try writer.add(input)
        let adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelFormat: .bgra)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        #expect(input.isReadyForMoreMediaData)
        let picture = try #require(adaptor.pixelBufferPool?.makePixelBuffer())
        var readiness: [Bool] = []
        for index in 0..<12 {
            readiness.append(input.isReadyForMoreMediaData)
            try adaptor.append(picture, withPresentationTime: MediaTime(value: Int64(index), timescale: 30))
        }
        #expect(readiness.contains(false), "the input never reported back-pressure: \(readiness)")
        writer.cancelWriting()
        #expect(writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!input.isReadyForMoreMediaData)
    }

    @Test func recommendedSettingsWriteAPlayableFile() async throws {
        let url = directory.appendingPathComponent("recommended.mov")
        let writer = try AssetWriter(outputURL: url, fileType: .mov)
        let video = AssetWriterInput(mediaType: .video, outputSettings: .recommended(width: 641, height: 480, frameRate: 25,
                                                                                     fileType: .mov))
        video.expectsMediaDataInRealTime = true
        let audio = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings.recommended(channelCount: 1))
        try writer.add(video)
        try writer.add(audio)
        try writer.startWriting()
        writer.startSession(atSourceTime: MediaTime(value: 100, timescale: 1))
        let pool = try PixelBufferPool(width: 640, height: 480, pixelFormat: .yuv420p)
        for index in 0..<25 {
            let t = MediaTime(value: 2500 + Int64(index), timescale: 25)
            try video.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index, width: 640, height: 480, pool: pool),
                                          presentationTime: t, duration: MediaTime(value: 1, timescale: 25)))
        }
        try audio.append(SampleBuffer(audioBuffer: try TestPatterns.sine(frequency: 440, seconds: 1),
                                      presentationTime: MediaTime(value: 100, timescale: 1)))
        try await writer.finishWriting()
        let probe = try FFprobe.probe(url)
        #expect(probe.streams(ofType: "video").first?.width == 640)
        #expect(abs((probe.duration ?? 0) - 1) < 0.05)
        // The session started at 100 s, so the file starts at zero.
        let track = try #require(try Asset(url: url).tracks(withMediaType: .video).first)
        #expect(track.timeRange.start == .zero)
    }

    @Test func endSessionTrimsTheTail() async throws {
        let url = directory.appendingPathComponent("trimmed.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240, preset: "ultrafast"))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        writer.endSession(atSourceTime: MediaTime(value: 1, timescale: 1))
        for index in 0..<50 {
            try input.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index),
                                          presentationTime: MediaTime(value: Int64(index), timescale: 25), duration: .invalid))
        }
        try await writer.finishWriting()
        #expect(try FFprobe.countFrames(url) == 25)
        #expect(abs((try FFprobe.probe(url).duration ?? 0) - 1) < 0.041)
    }

    @Test func cancelLeavesNothingAndSparesTheDestination() throws {
        let url = directory.appendingPathComponent("cancel.mp4")
        try Data("keep me".utf8).write(to: url)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240, preset: "ultrafast"))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        try input.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(1), presentationTime: .zero, duration: .invalid))
        writer.cancelWriting()
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cancel.mp4"])
    }
}

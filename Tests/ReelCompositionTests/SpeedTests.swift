import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

@Suite struct SpeedTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-speed")
    }

    /// 2 s of 160x90 video at 25 fps with a 440 Hz tone, written by Reel.
    private func toneClip() throws -> Asset {
        let url = directory.appendingPathComponent("tone.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 160, height: 90, preset: "ultrafast"))
        let audio = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(channelCount: 1))
        try writer.add(video)
        try writer.add(audio)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for index in 0..<50 {
            try video.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index, width: 160, height: 90),
                                          presentationTime: MediaTime(value: Int64(index), timescale: 25),
                                          duration: MediaTime(value: 1, timescale: 25)))
        }
        try audio.append(SampleBuffer(audioBuffer: try TestPatterns.sine(frequency: 440, seconds: 2), presentationTime: .zero))
        try writer.finishSynchronously()
        return try Asset(url: url)
    }

    private func export(rate: Double, pitch: AudioTimePitchAlgorithm = .timeDomain) throws -> URL {
        let change = try SpeedChange(asset: try toneClip(), rate: rate)
        let session = ExportSession(composition: change.composition, preset: .highestQuality)
        session.outputURL = directory.appendingPathComponent("speed-\(rate)-\(pitch).mp4")
        session.videoComposition = change.videoComposition
        session.audioTimePitchAlgorithm = pitch
        try session.exportSynchronously()
        return try #require(session.outputURL)
    }

    private func toneFrequency(_ url: URL) throws -> Double {
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .audio).first),
                                            audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar))
        try reader.add(output)
        try reader.startReading()
        var samples: [Float] = []
        while let sample = try output.copyNextSampleBuffer() { samples += sample.audioBuffer?.floatSamples(channel: 0) ?? [] }
        return TestPatterns.frequency(of: Array(samples.dropFirst(4800).dropLast(4800)), sampleRate: 48000)
    }

    @Test func fourTimesSlowerLastsFourTimesAndKeepsThePitch() throws {
        let url = try export(rate: 0.25)
        #expect(abs((try FFprobe.probe(url).duration ?? 0) - 8) <= 0.04)
        #expect(abs(try toneFrequency(url) - 440) < 440 * 0.01)
    }

    @Test func fiveTimesFasterLastsAFifth() throws {
        let url = try export(rate: 5)
        #expect(abs((try FFprobe.probe(url).duration ?? 0) - 0.4) <= 0.04)
        #expect(try FFprobe.countFrames(url) == 10)
    }

    @Test func varispeedMovesThePitch() throws {
        let url = try export(rate: 0.5, pitch: .varispeed)
        #expect(abs(try toneFrequency(url) - 220) < 220 * 0.02)
    }

    @Test func stretchedCopyKeepsEveryFrameAndRescalesTime() throws {
        let clip = try toneClip()
        let url = directory.appendingPathComponent("stretched.mp4")
        try StretchedCopy.write(clip, rate: 0.25, to: url)
        #expect(try FFprobe.countFrames(url) == 50)
        let probe = try FFprobe.probe(url)
        #expect(abs((probe.duration ?? 0) - 8) <= 0.16)  // one stretched frame
        #expect(abs(try toneFrequency(url) - 440) < 440 * 0.01)
        #expect(throws: ReelError.self) { try StretchedCopy.write(clip, rate: 2, to: url) }
    }

    @Test func refusesAbsurdRates() throws {
        let clip = try toneClip()
        #expect(throws: ReelError.self) { try SpeedChange(asset: clip, rate: 0) }
        #expect(throws: ReelError.self) { try SpeedChange(asset: clip, rate: 100) }
    }
}

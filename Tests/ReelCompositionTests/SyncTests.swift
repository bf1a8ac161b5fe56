import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// A/V sync through transitions, on clips with a flash and a click at the same instant.
@Suite struct SyncTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-sync")
    }

    /// 4 s at 25 fps, 160x90: dark, with one white frame at 1.5 s; silence with a 10 ms click at 1.5 s.
    private func flashAndClick(_ index: Int) throws -> Asset {
        let url = directory.appendingPathComponent("flash\(index).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 160, height: 90, preset: "ultrafast"))
        let audio = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(channelCount: 1))
        try writer.add(video)
        try writer.add(audio)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for frame in 0..<100 {
            let picture = try PixelBuffer(width: 160, height: 90, pixelFormat: .yuv420p)
            picture.fill(planeValues: [frame == 37 ? 235 : 30, 128, 128])  // frame 37 shows from 1.48 s to 1.52 s
            try video.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(frame), timescale: 25),
                                          duration: MediaTime(value: 1, timescale: 25)))
        }
        var samples = [Float](repeating: 0, count: 4 * 48000)
        for i in 0..<480 { samples[Int(1.48 * 48000) + i] = 0.9 * Float(sin(2 * Double.pi * 1000 * Double(i) / 48000)) }
        try audio.append(SampleBuffer(audioBuffer: try AudioBuffer.float(channels: [samples], sampleRate: 48000),
                                      presentationTime: .zero))
        try writer.finishSynchronously()
        return try Asset(url: url)
    }

    @Test func flashesAndClicksStayTogetherAfterFourTransitions() throws {
        let assets = try (0..<5).map { try flashAndClick($0) }
        let one = MediaTime(value: 1, timescale: 1)
        let sequence = try ClipSequence(assets: assets, transitions: [.dissolve(duration: one), .push(duration: one, direction: .left)])
        let session = ExportSession(composition: sequence.composition, preset: .highestQuality)
        session.outputURL = directory.appendingPathComponent("synced.mp4")
        session.videoComposition = sequence.videoComposition
        session.audioMix = sequence.audioMix
        try session.exportSynchronously()
        let asset = try Asset(url: try #require(session.outputURL))

        let reader = try AssetReader(asset: asset)
        let video = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        let audio = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .audio).first),
                                           audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar, channelCount: 1))
        try reader.add(video)
        try reader.add(audio)
        try reader.startReading()
        var flashes: [Double] = []
        while let sample = try video.copyNextSampleBuffer() {
            if (sample.pixelBuffer?.element(plane: 0, x: 80, y: 45)?[0] ?? 0) > 150 { flashes.append(sample.presentationTime.seconds) }
        }
        var clicks: [Double] = []
        var lastClick = -10.0
        while let sample = try audio.copyNextSampleBuffer() {
            for (i, value) in (sample.audioBuffer?.floatSamples(channel: 0) ?? []).enumerated() where abs(value) > 0.3 {
                let time = sample.presentationTime.seconds + Double(i) / 48000
                if time - lastClick > 0.5 { clicks.append(time) }
                lastClick = time
            }
        }
        // Clip k starts at 3k s: its flash and click are at 3k + 1.48 s.
        #expect(flashes.count == 5, "\(flashes)")
        #expect(clicks.count == 5, "\(clicks)")
        for (flash, click) in zip(flashes, clicks) {
            #expect(abs(flash - click) <= 0.04, "flash at \(flash) s, click at \(click) s")
        }
        for (k, flash) in flashes.enumerated() { #expect(abs(flash - (Double(3 * k) + 1.48)) <= 0.041) }
    }
}

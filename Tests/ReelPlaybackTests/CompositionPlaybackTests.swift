import Foundation
import ReelAsset
import ReelComposition
import ReelCore
@testable import ReelPlayback
import ReelTestSupport
import Testing

/// A composition plays with its video composition: a dissolve shows both clips blended, as
/// the export would draw it, without exporting.
@Suite struct CompositionPlaybackTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-playback-composition")
    }

    /// A clip of one grey level, 2 s at 25 fps, 128x72, written losslessly.
    private func solidClip(_ name: String, luma: UInt8) throws -> Asset {
        let url = directory.appendingPathComponent("\(name).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: 128, height: 72, quality: 0, preset: "ultrafast", expectedFrameRate: 25))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let picture = try PixelBuffer(width: 128, height: 72, pixelFormat: .yuv420p)
        picture.fill(planeValues: [luma, 128, 128])
        for index in 0..<50 {
            try input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(index), timescale: 25),
                                          duration: MediaTime(value: 1, timescale: 25)))
        }
        try writer.finishSynchronously()
        return try Asset(url: url)
    }

    @Test func aDissolveBlendsBothClipsWhilePlaying() throws {
        let dark = try solidClip("dark", luma: 60), light = try solidClip("light", luma: 200)
        let sequence = try ClipSequence(assets: [dark, light], transitions: [.dissolve(duration: MediaTime(value: 1, timescale: 1))])
        let item = PlayerItem(composition: sequence.composition, videoComposition: sequence.videoComposition,
                              audioMix: sequence.audioMix)
        #expect(item.status == .readyToPlay)
        #expect(item.duration == MediaTime(value: 3, timescale: 1))
        let output = PlayerItemVideoOutput()
        item.add(output)
        let clock = ManualClock()
        let player = Player(playerItem: item, clock: clock)
        player.play()
        var lumas: [(Double, Int)] = []
        for _ in 0..<75 { // every frame of 3 s at 25 fps, as a display loop pulls them
            let time = output.itemTime(forHostTime: clock.hostTime)
            if output.hasNewPixelBuffer(forItemTime: time), let picture = output.copyPixelBuffer(forItemTime: time) {
                lumas.append((time.seconds, Int(picture.element(plane: 0, x: 64, y: 36)?.first ?? 0)))
            }
            clock.advance(by: MediaTime(value: 1, timescale: 25))
        }
        #expect(lumas.count == 75)
        for (time, luma) in lumas {
            let fraction = min(max(time - 1, 0), 1) // the dissolve runs from 1 s to 2 s
            let expected = 60 + (200 - 60) * fraction
            #expect(abs(Double(luma) - expected) <= 6, "at \(time) s: luma \(luma), expected \(expected)")
        }
    }
}

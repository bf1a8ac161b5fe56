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

    /// The player draws a spec's layers and looks as the export does: over a blue clip, a PNG
    /// sequence of red pictures (10 at 10 fps, from 0.5 s) as a layer in the middle with the
    /// `PhotoEffectMono` look. At 1 s the middle is grey (Cb and Cr 128 ± 6: the layer, its
    /// look applied) and the corner blue (Cb above 200); at 1.8 s, after the layer's second,
    /// the middle is blue again.
    @Test func aSpecsLayersAndLooksPlay() throws {
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=0x0000FF:s=128x72:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast",
                                  "-qp", "0", "-pix_fmt", "yuv420p", directory.appendingPathComponent("blue.mp4").path])
        let frames = directory.appendingPathComponent("red")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=red:s=64x36:r=10:d=1,format=rgba", "-start_number", "1",
                                  frames.appendingPathComponent("r-%02d.png").path])
        let spec = try CompositionSpec(data: Data("""
            {"frameRate": 25, "clips": [{"file": "blue.mp4"}],
             "layers": [{"file": "red/r-%02d.png", "fps": 10, "start": 0.5, "filters": "PhotoEffectMono",
                         "frame": {"x": 32, "y": 18, "width": 64, "height": 36}}]}
            """.utf8))
        let built = try spec.build(relativeTo: directory)
        let item = PlayerItem(composition: built.composition, videoComposition: built.videoComposition, audioMix: built.audioMix)
        #expect(item.status == .readyToPlay)
        let output = PlayerItemVideoOutput()
        item.add(output)
        let clock = ManualClock()
        let player = Player(playerItem: item, clock: clock)
        player.play()
        var seen: [Int: (middle: [UInt8], corner: [UInt8])] = [:]
        for index in 0..<50 {
            let time = output.itemTime(forHostTime: clock.hostTime)
            if [25, 45].contains(index), output.hasNewPixelBuffer(forItemTime: time), let picture = output.copyPixelBuffer(forItemTime: time) {
                let chroma = { (x: Int, y: Int) in [1, 2].map { picture.element(plane: $0, x: x / 2, y: y / 2)?.first ?? 0 } }
                seen[index] = (chroma(64, 36), chroma(8, 8))
            }
            clock.advance(by: MediaTime(value: 1, timescale: 25))
        }
        let during = try #require(seen[25]), after = try #require(seen[45])
        #expect(during.middle.allSatisfy { abs(Int($0) - 128) <= 6 }, "the layer's middle at 1 s: Cb, Cr \(during.middle)")
        #expect(during.corner[0] > 200, "the clip's corner at 1 s: Cb, Cr \(during.corner)")
        #expect(after.middle[0] > 200, "the middle at 1.8 s, the layer over: Cb, Cr \(after.middle)")
    }
}

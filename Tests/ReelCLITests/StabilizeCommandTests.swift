import Foundation
import ReelTestSupport
import Testing

/// `reel stabilize` on a clip the ffmpeg CLI shakes (a still cellular pattern cropped along
/// a sum of sines, with a tone), judged by vidstabdetect and ffprobe.
@Suite struct StabilizeCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-stabilize")
    }

    func shakyClip() throws -> URL { try ShakeMeter.shakyClip(in: directory) }

    @Test func stabilizeTakesOutTheShakeAndKeepsTheSound() throws {
        let shaky = try shakyClip()
        let steady = directory.appendingPathComponent("steady.mp4")
        let result = try ProcessRunner.reel(["stabilize", shaky.path, "-o", steady.path, "--preset", "veryfast"])
        #expect(result.status == 0, "\(result.standardError)")
        let before = try ShakeMeter.meanMotion(shaky), after = try ShakeMeter.meanMotion(steady)
        let reduction = 1 - after.pixels / before.pixels
        print("reel stabilize: \(before.pixels) px/frame before, \(after.pixels) after (\(Int(reduction * 100)) %)")
        #expect(before.pixels > 3 && reduction >= 0.8, "\(before.pixels) → \(after.pixels) px a frame")
        #expect(try FFprobe.countFrames(steady) == FFprobe.countFrames(shaky))
        let source = try FFprobe.probe(shaky), written = try FFprobe.probe(steady)
        let (sourceVideo, writtenVideo) = (source.streams(ofType: "video").first, written.streams(ofType: "video").first)
        #expect(writtenVideo?.width == 640 && writtenVideo?.height == 480)
        let soundBefore = try #require(source.streams(ofType: "audio").first?.duration)
        let soundAfter = try #require(written.streams(ofType: "audio").first?.duration)
        #expect(abs(soundBefore - soundAfter) <= 0.0214, "sound \(soundBefore) s before, \(soundAfter) s after")
        #expect(abs((sourceVideo?.duration ?? 0) - (writtenVideo?.duration ?? 0)) < 0.001)
    }

    @Test func stabilizeTakesOutTheRoll() throws {
        // The clip also turned about its centre (0.875° at most): translation-only steadying
        // leaves every bit of the turn, as libvidstab measures it.
        let rolling = try ShakeMeter.shakyClip(in: directory, rolling: true)
        let steady = directory.appendingPathComponent("steady-roll.mp4")
        let result = try ProcessRunner.reel(["stabilize", rolling.path, "-o", steady.path, "--preset", "veryfast"])
        #expect(result.status == 0, "\(result.standardError)")
        let before = try ShakeMeter.meanRotation(rolling), after = try ShakeMeter.meanRotation(steady)
        let shift = 1 - (try ShakeMeter.meanMotion(steady).pixels) / (try ShakeMeter.meanMotion(rolling).pixels)
        let turn = 1 - after.degrees / before.degrees
        print("reel stabilize, rolling clip: turn \(before.degrees)°/frame before, \(after.degrees) after (−\(Int(turn * 100)) %), "
              + "shift −\(Int(shift * 100)) %")
        #expect(before.degrees > 0.1, "the clip turns \(before.degrees)° a frame")
        #expect(turn >= 0.7, "turn \(before.degrees) → \(after.degrees)° a frame")
        #expect(shift >= 0.8, "shift reduced by \(shift)")
        #expect(try FFprobe.countFrames(steady) == FFprobe.countFrames(rolling))
    }

    @Test func badArgumentsAreOneLine() throws {
        let shaky = try shakyClip()
        for (arguments, words) in [(["stabilize", shaky.path], "needs -o OUT"),
                                   (["stabilize", shaky.path, "-o", shaky.path], "the input"),
                                   (["stabilize", shaky.path, "-o", directory.appendingPathComponent("x.mp4").path,
                                     "--strength", "2"], "--strength"),
                                   (["stabilize", directory.appendingPathComponent("none.mp4").path, "-o",
                                     directory.appendingPathComponent("y.mp4").path], "none.mp4")] {
            let result = try ProcessRunner.reel(arguments)
            #expect(result.status != 0 && result.standardError.contains(words), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
    }
}

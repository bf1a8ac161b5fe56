import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Boomerang clips (frame order read back from numbered frames) and the sound-only `.m4a`
/// export (duration and codec by ffprobe).
@Suite struct BoomerangAndSoundOnlyTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-boomerang")
    }

    /// A 1 s range (frames 15–44 of a numbered 30 fps clip) as a boomerang, then 0.5 s of
    /// the clip forwards: 15…44, 44…15, then 0…14, every frame once each way.
    @Test func boomerangPlaysForwardsThenBackwards() throws {
        _ = try NumberedClips.make("numbers.mp4", in: directory, offset: 0, seconds: 3, crf: 10)
        let spec = directory.appendingPathComponent("boomerang.json")
        try
            #"{"frameRate": 30, "clips": [{"file": "numbers.mp4", "range": {"start": 0.5, "end": 1.5}, "boomerang": true}, {"file": "numbers.mp4", "range": {"start": 0, "end": 0.5}}]}"#
            .write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("boomerang.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        #expect(result.status == 0, "\(result.standardError)")
        let numbers = try NumberedClips.frameNumbers(out, scratch: directory)
        let expected = Array(15...44) + Array((15...44).reversed()) + Array(0...14)
        #expect(numbers == expected, "frames \(numbers)")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.duration ?? 0) - 2.5) <= 0.05, "duration \(probe.duration ?? 0)")
    }

    /// `-o out.m4a` writes the mix alone: one AAC stream, no video, as long as the composition
    /// (two 1.5 s clips with a 0.5 s dissolve: 2.5 s) within an AAC frame.
    @Test func soundOnlyM4A() throws {
        _ = try NumberedClips.make("a.mp4", in: directory, offset: 0, seconds: 1.5)
        let spec = directory.appendingPathComponent("sound.json")
        try #"{"clips": [{"file": "a.mp4", "transition": {"type": "dissolve", "duration": 0.5}}, {"file": "a.mp4"}]}"#
            .write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("sound.m4a")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        #expect(probe.streams(ofType: "video").isEmpty)
        let audio = probe.streams(ofType: "audio")
        #expect(audio.count == 1 && audio.first?.codecName == "aac", "\(audio)")
        #expect(abs((probe.duration ?? 0) - 2.5) <= 0.025, "duration \(probe.duration ?? 0)")
        #expect(probe.formatName.contains("mp4") || probe.formatName.contains("m4a"), "\(probe.formatName)")
    }
}

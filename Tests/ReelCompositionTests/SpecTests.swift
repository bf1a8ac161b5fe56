import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

@Suite struct SpecTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-spec")
        for name in ["a", "b"] {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=4",
                                      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                      directory.appendingPathComponent("\(name).mp4").path])
        }
    }

    private func error(_ json: String) -> ReelError? {
        do {
            let spec = try CompositionSpec(data: Data(json.utf8), name: "t.json")
            _ = try spec.build(relativeTo: directory)
            return nil
        } catch {
            return error
        }
    }

    @Test func buildsClipsWithRangesSpeedsTransitionsOverlaysAndMusic() throws {
        let json = """
        {"renderSize": {"width": 160, "height": 90}, "preset": "low",
         "clips": [{"file": "a.mp4", "range": {"start": 1, "end": 3}, "transition": {"type": "fade", "duration": 0.5}},
                   {"file": "b.mp4", "speed": 2}],
         "overlays": [{"type": "color", "color": "#ffff00", "frame": {"x": 0, "y": 0, "width": 10, "height": 10},
                       "animations": [{"property": "opacity", "values": [0, 1], "begin": 0, "duration": 1}]}],
         "audio": {"music": {"file": "b.mp4", "volume": 0.5, "fadeIn": 0.5}}}
        """
        let built = try CompositionSpec(data: Data(json.utf8)).build(relativeTo: directory)
        // 2 s + 2 s (4 s at double speed) - 0.5 s of fade, to within half an output frame: the
        // second clip starts inside the fade, so it starts on a whole output frame (issue 14).
        let frame = built.videoComposition.frameDuration
        #expect(abs((built.composition.duration - MediaTime(value: 7, timescale: 2)).seconds) <= frame.seconds / 2 + 1e-9,
                "\(built.composition.duration.seconds) s")
        let secondStart = try #require(built.clipRanges.last?.start)
        let frames = secondStart.scaled(by: MediaTime(value: 1, timescale: 1), over: frame)
        #expect(frames.convertScale(1) == frames, "the second clip starts at \(secondStart.seconds) s, \(frames.seconds) frames")
        #expect(built.preset == .lowQuality)
        #expect(built.videoComposition.animationTool?.sublayers.count == 1)
        #expect(built.composition.tracks(withMediaType: .audio).count == 3)
        #expect(built.audioMix.volume(ofTrack: built.composition.tracks(withMediaType: .audio)[2].trackID, at: .zero) == 0)
    }

    @Test(arguments: [
        (#"{"clips": [{"file": "a.mp4", "trasition": {"type": "dissolve"}}]}"#, "unknown key 'trasition' in clips[0]"),
        (#"{"clips": [{"file": "a.mp4", "speed": "fast"}]}"#, "clips[0].speed: wants a number"),
        (#"{"clips": [{"range": {"start": 1}}]}"#, "clips[0].file: is missing"),
        (#"{"clips": [{"file": "a.mp4"}, {"file": "b.mp4", "range": {"start": 2, "end": 9}}]}"#, "clips[1].range.end"),
        (#"{"clips": [{"file": "a.mp4", "transition": {"type": "spin"}}, {"file": "b.mp4"}]}"#, "clips[0].transition.type"),
        (#"{"clips": [{"file": "missing.mp4"}]}"#, "clips[0].file"),
        (#"{"renderSize": {"width": 161, "height": 90}, "clips": [{"file": "a.mp4"}]}"#, "renderSize"),
        (#"{"clips": [{"file": "a.mp4"}], "overlays": [{"type": "color", "color": "yellow", "frame": {"x": 0, "y": 0, "width": 1, "height": 1}}]}"#, "overlays[0].color"),
        (#"{"clips": [{"file": "a.mp4"}], "overlays": [{"type": "color", "frame": {"x": 0, "y": 0, "width": 1, "height": 1}, "animations": [{"property": "opacity", "values": [0, 1], "keyTimes": [0], "begin": 0, "duration": 1}]}]}"#, "overlays[0].animations[0].keyTimes"),
        (#"{"clips": []}"#, "clips"),
        (#"{"clips": [{"file": "a.mp4", "transition": {"type": "dissolve", "duration": 5}}, {"file": "b.mp4"}]}"#, "clips[0]"),
        (#"{"clips": [{"file": "a.mp4", "speed": 0}]}"#, "clips[0].speed"),
        (#"{"clips": [{"file": "a.mp4", "speed": -2}]}"#, "clips[0].speed"),
        ("not json", "is not JSON"),
    ])
    func refusalsNameTheSpecPath(json: String, expected: String) {
        let text = error(json).map { $0.description } ?? "no error"
        #expect(text.contains(expected), "\(text)")
    }

    @Test func composeCommandRendersAndRefusesBeforeWriting() throws {
        let spec = directory.appendingPathComponent("good.json")
        try #"{"clips": [{"file": "a.mp4", "transition": {"type": "dissolve", "duration": 1}}, {"file": "b.mp4"}]}"#
            .write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("out.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(abs((try FFprobe.probe(out).duration ?? 0) - 7) <= 0.05)

        let bad = directory.appendingPathComponent("bad.json")
        try #"{"clips": [{"file": "a.mp4", "range": {"start": 0, "end": 40}}]}"#.write(to: bad, atomically: true, encoding: .utf8)
        let refused = directory.appendingPathComponent("refused.mp4")
        let failure = try ProcessRunner.reel(["compose", bad.path, "-o", refused.path])
        #expect(failure.status == 2)
        #expect(failure.standardError.contains("\(bad.path): clips[0].range.end"))
        #expect(failure.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: refused.path))

        let original = try Data(contentsOf: directory.appendingPathComponent("a.mp4"))
        let overwrite = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("a.mp4").path])
        #expect(overwrite.status == 2 && overwrite.standardError.contains("clips[0].file"))
        #expect(try Data(contentsOf: directory.appendingPathComponent("a.mp4")) == original)
    }

    /// `audio.volume` holds for the whole edit: through and after each transition's
    /// crossfade, whose ramps went back to full volume before.
    @Test func theClipsVolumeHoldsThroughTransitions() throws {
        let json = """
        {"clips": [{"file": "a.mp4", "transition": {"type": "dissolve", "duration": 1}},
                   {"file": "b.mp4", "transition": {"type": "dissolve", "duration": 1}}, {"file": "a.mp4"}],
         "audio": {"volume": 0.25}}
        """
        let built = try CompositionSpec(data: Data(json.utf8)).build(relativeTo: directory)
        let tracks = built.composition.tracks(withMediaType: .audio)
        // The volumes of the tracks that play a clip at `seconds`, added up.
        func heard(_ seconds: Double) -> Double {
            let time = MediaTime(seconds: seconds)
            return tracks.filter { $0.segment(forTrackTime: time).map { !$0.isEmpty } ?? false }
                .reduce(0) { $0 + built.audioMix.volume(ofTrack: $1.trackID, at: time) }
        }
        // The clips play 0-4, 3-7 and 6-10 s: alone, then crossfading (the two tracks' volumes add up).
        for seconds in [0.5, 2, 3.5, 5, 6.5, 8, 9.9] {
            #expect(abs(heard(seconds) - 0.25) < 1e-6, "at \(seconds) s the clips play at \(heard(seconds))")
        }
    }

    @Test func timelinePictureOfASpec() throws {
        let spec = directory.appendingPathComponent("timeline.json")
        try #"{"clips": [{"file": "a.mp4", "transition": {"type": "push", "duration": 1}}, {"file": "b.mp4"}], "overlays": [{"type": "text", "text": "Hi", "frame": {"x": 0, "y": 0, "width": 50, "height": 20}, "animations": [{"property": "opacity", "values": [0, 1], "begin": 1, "duration": 2}]}]}"#
            .write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("timeline.png")
        let result = try ProcessRunner.reel(["timeline", spec.path, "-o", out.path, "--width", "800"])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        #expect(probe.streams.first?.width == 800)
        #expect(probe.streams.first?.height == 30 + 5 * 44 + 20)  // 2 video, 2 audio, 1 overlay row
    }

    /// An overlay's row shows what it draws over the whole edit (not only when it animates),
    /// and subtitles get a row of their cues.
    @Test func timelinePictureShowsOverlaysAndSubtitles() throws {
        try "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n".write(to: directory.appendingPathComponent("t.srt"), atomically: true, encoding: .utf8)
        let spec = directory.appendingPathComponent("timeline-text.json")
        try #"{"clips": [{"file": "a.mp4"}], "overlays": [{"type": "text", "text": "Still title", "frame": {"x": 0, "y": 0, "width": 50, "height": 20}}], "subtitles": {"file": "t.srt"}}"#
            .write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("timeline-text.png")
        let result = try ProcessRunner.reel(["timeline", spec.path, "-o", out.path, "--width", "800"])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        // 2 video, 2 audio, the overlay and the subtitles.
        #expect(probe.streams.first?.height == 30 + 6 * 44 + 20)
        let raw = directory.appendingPathComponent("timeline-text.rgb")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        func row(_ index: Int) -> Set<[UInt8]> {
            let y = 30 + index * 44 + 20
            return Set((110..<780).map { x in Array(bytes[(y * 800 + x) * 3..<(y * 800 + x) * 3 + 3]) })
        }
        // The overlay's bar runs under its label from the start; the cue is drawn white.
        #expect(row(4).contains([58, 58, 74]), "the overlay row has no bar")
        #expect(row(5).contains([236, 236, 236]), "the subtitle row has no cue")
        #expect(!row(3).contains([236, 236, 236]))
    }
}

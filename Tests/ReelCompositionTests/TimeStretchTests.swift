import Foundation
import ReelTestSupport
import Testing

/// Pitch-kept speed changes, exact ends and clip lengths, judged as a viewer would: on
/// flash-and-click clips (``FlashClick``, the sync suite's: a white frame and a 10 ms click
/// at each whole second), through the built `reel`, with clicks found in the decoded sound
/// and flashes in the decoded frames (``SyncMeter``) and durations from ffprobe.
@Suite struct TimeStretchTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-stretch")
    }

    /// One AAC frame: how far the sound's end may be from the picture's. Durations are held
    /// to 2 ms (MP4 edit lists count in milliseconds), well under a frame.
    private let audioFrame = 1024.0 / 48000

    private func run(_ arguments: [String]) throws {
        let result = try ProcessRunner.reel(arguments, timeout: 600)
        #expect(result.status == 0, "reel \(arguments.joined(separator: " ")): \(result.standardError)")
    }

    /// A flash-and-click clip with its events at whole seconds (0, 1, 2…), written as `name`.
    private func flashClick(seconds: Int, fps: Int = 25, extraSound: Double = 0, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FlashClick(rate: (fps, 1), seconds: seconds, soundExtra: extraSound, phase: 0).write(to: url)
        return url
    }

    private func streamDurations(_ url: URL) throws -> (video: Double, audio: Double) {
        let probe = try FFprobe.probe(url)
        return (probe.streams(ofType: "video").first?.duration ?? -1, probe.streams(ofType: "audio").first?.duration ?? -1)
    }

    /// Every click within 20 ms of where the picture puts it (source second k at k / rate),
    /// none lost, the sound as long as the picture.
    @Test(arguments: [1.0 / 16, 0.25, 0.5])
    func slowDownsKeepEveryClickUnderItsFlash(rate: Double) throws {
        let clip = try flashClick(seconds: 4, name: "slow-source-\(rate).mp4")
        let out = directory.appendingPathComponent("slow-\(rate).mp4")
        try run(["speed", clip.path, "--rate", "\(rate)", "-o", out.path])
        let expected = (0..<4).map { Double($0) / rate }
        let clicks = SyncMeter.match(try SyncMeter.measure(out).clicks, expected: expected, window: 0.5)
        #expect(clicks.lost == 0, "rate \(rate): lost \(clicks.lost) of 4 clicks")
        #expect(clicks.offsets.allSatisfy { abs($0) <= 0.02 }, "rate \(rate): click offsets \(clicks.offsets) s")
        let flashes = SyncMeter.match(try SyncMeter.measure(out).flashes, expected: expected, window: 0.5)
        #expect(flashes.lost == 0 && flashes.offsets.allSatisfy { abs($0) <= 0.02 }, "rate \(rate): flashes \(flashes)")
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - 4 / rate) <= 0.002, "rate \(rate): video lasts \(video) s, not \(4 / rate)")
        #expect(abs(audio - video) <= audioFrame, "rate \(rate): sound \(audio) s, picture \(video) s")
    }

    /// Speed-ups keep every click where the picture puts it, losing none where the ffmpeg
    /// CLI's atempo loses some, and end the picture with the sound.
    @Test(arguments: [2.0, 3, 5, 16])
    func speedUpsKeepEveryClickAtItsTime(rate: Double) throws {
        let clip = try flashClick(seconds: 20, name: "fast-source-\(rate).mp4")
        let out = directory.appendingPathComponent("fast-\(rate).mp4")
        try run(["speed", clip.path, "--rate", "\(rate)", "--preset", "640x480", "-o", out.path])
        let expected = (0..<20).map { Double($0) / rate }
        let window = 0.45 / rate
        let clicks = SyncMeter.match(try SyncMeter.measure(out).clicks, expected: expected, window: window)
        let reference = directory.appendingPathComponent("atempo-\(rate).m4a")
        try SyncMeter.atempo(clip, rate: rate, to: reference)
        let atempo = SyncMeter.match(try SyncMeter.measure(reference).clicks, expected: expected, window: window)
        #expect(clicks.lost <= atempo.lost, "rate \(rate): Reel lost \(clicks.lost) of 20 clicks, atempo \(atempo.lost)")
        #expect(clicks.lost == 0, "rate \(rate): lost \(clicks.lost) of 20 clicks (atempo lost \(atempo.lost))")
        #expect(clicks.offsets.allSatisfy { abs($0) <= 0.02 }, "rate \(rate): click offsets \(clicks.offsets) s")
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - 20 / rate) <= 0.002, "rate \(rate): video lasts \(video) s, not \(20 / rate)")
        #expect(abs(audio - video) <= audioFrame, "rate \(rate): sound \(audio) s, picture \(video) s")
    }

    /// A composition with a clip at every speed from 1/16 to 16: each clip exactly as long
    /// as its speed makes it, every click at its picture's time, the sound ending with the picture.
    @Test func composeAtEverySpeedKeepsClicksAndDurations() throws {
        let clip = try flashClick(seconds: 4, name: "speeds-source.mp4")
        let speeds = [1.0 / 16, 0.25, 0.5, 2, 3, 5, 16]
        let clips = speeds.map { "{ \"file\": \"\(clip.lastPathComponent)\", \"speed\": \($0) }" }.joined(separator: ", ")
        let spec = directory.appendingPathComponent("speeds.json")
        try Data("{ \"preset\": \"640x480\", \"frameRate\": 25, \"clips\": [\(clips)] }".utf8).write(to: spec)
        let out = directory.appendingPathComponent("speeds.mp4")
        try run(["compose", spec.path, "-o", out.path])
        var expected: [Double] = []
        var start = 0.0
        for speed in speeds {
            expected += (0..<4).map { start + Double($0) / speed }
            start += 4 / speed
        }
        let clicks = SyncMeter.match(try SyncMeter.measure(out).clicks, expected: expected, window: 0.03)
        #expect(clicks.lost == 0, "lost \(clicks.lost) of \(expected.count) clicks")
        #expect(clicks.offsets.allSatisfy { abs($0) <= 0.02 }, "click offsets \(clicks.offsets) s")
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - start) <= 0.002, "video lasts \(video) s, not \(start)")
        #expect(abs(audio - video) <= audioFrame, "sound \(audio) s, picture \(video) s")
    }

    /// Ranges that start and end between clicks and frames, at four speeds: every click
    /// at its picture's time.
    @Test func composeWithUnalignedRangesKeepsClicks() throws {
        let clip = try flashClick(seconds: 4, name: "unaligned-source.mp4")
        let parts: [(start: Double, end: Double, speed: Double)] = [(0.37, 3.91, 3), (1.13, 4, 0.5), (0.5, 4, 0.25), (0, 4, 5)]
        let clips = parts.map {
            "{ \"file\": \"\(clip.lastPathComponent)\", \"range\": { \"start\": \($0.start), \"end\": \($0.end) }, \"speed\": \($0.speed) }"
        }.joined(separator: ", ")
        let spec = directory.appendingPathComponent("unaligned.json")
        try Data("{ \"preset\": \"640x480\", \"frameRate\": 25, \"clips\": [\(clips)] }".utf8).write(to: spec)
        let out = directory.appendingPathComponent("unaligned.mp4")
        try run(["compose", spec.path, "-o", out.path])
        var expected: [Double] = []
        var start = 0.0
        for part in parts {
            expected += (0...4).map(Double.init).filter { $0 >= part.start && $0 < part.end }
                .map { start + ($0 - part.start) / part.speed }
            start += (part.end - part.start) / part.speed
        }
        let clicks = SyncMeter.match(try SyncMeter.measure(out).clicks, expected: expected, window: 0.05)
        #expect(clicks.lost == 0, "lost \(clicks.lost) of \(expected.count) clicks")
        #expect(clicks.offsets.allSatisfy { abs($0) <= 0.02 }, "click offsets \(clicks.offsets) s")
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - start) <= 0.002 && abs(audio - video) <= audioFrame, "picture \(video) s, sound \(audio) s, not \(start)")
    }

    /// 1/16 of a 1 s and of a 2 s clip last 16 and 32 s (they lasted 15.90 and 31.77 s when
    /// the speed was kept to a thousandth, 0.063).
    @Test(arguments: [1, 2])
    func sixteenTimesSlowerIsExact(seconds: Int) throws {
        let clip = try flashClick(seconds: seconds, name: "slow16-source-\(seconds).mp4")
        let spec = directory.appendingPathComponent("slow16-\(seconds).json")
        try Data("{ \"preset\": \"640x480\", \"clips\": [ { \"file\": \"\(clip.lastPathComponent)\", \"speed\": 0.0625 } ] }".utf8)
            .write(to: spec)
        let out = directory.appendingPathComponent("slow16-\(seconds).mp4")
        try run(["compose", spec.path, "-o", out.path])
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - Double(16 * seconds)) <= 0.002, "video lasts \(video) s, not \(16 * seconds)")
        #expect(abs(audio - video) <= audioFrame, "sound \(audio) s, picture \(video) s")
    }

    /// Where the end falls between two frames (10 fps sped up 7 times: 3 s → 0.4286 s), the
    /// last picture lasts until the end and no longer (it lasted a whole frame, to 0.5 s).
    @Test func lastPictureEndsWithTheSound() throws {
        let clip = try flashClick(seconds: 3, fps: 10, name: "ten-fps.mp4")
        let out = directory.appendingPathComponent("ten-fps-x7.mp4")
        try run(["speed", clip.path, "--rate", "7", "--preset", "640x480", "-o", out.path])
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - 3.0 / 7) <= 0.002, "video lasts \(video) s, not \(3.0 / 7)")
        #expect(abs(audio - video) <= audioFrame, "sound \(audio) s, picture \(video) s")
        #expect(try FFprobe.countFrames(out) == 5)
    }

    /// A 7 fps file whose sound runs 50 ms past its picture, exported whole (the longest
    /// track, as AVFoundation does): the last picture holds to the sound's end and no further
    /// (it lasted a whole 1/7 s frame, to 3.143 s, 93 ms after the sound).
    @Test func lowFrameRateExportEndsWithItsSound() throws {
        let clip = try flashClick(seconds: 3, fps: 7, extraSound: 0.05, name: "seven-fps.mp4")
        let out = directory.appendingPathComponent("seven-fps-export.mp4")
        try run(["export", clip.path, "--preset", "640x480", "-o", out.path])
        let (video, audio) = try streamDurations(out)
        #expect(abs(audio - 3.05) <= 0.002, "sound lasts \(audio) s, not 3.05")
        #expect(abs(video - audio) <= audioFrame, "picture \(video) s, sound \(audio) s")
    }

    /// In `reel merge` a clip lasts as long as its picture: a sound 0.5 s longer is cut, so
    /// the next clip (and its click) starts when the picture ends, with no frozen frames.
    @Test func mergeCutsASoundLongerThanItsPicture() throws {
        let long = try flashClick(seconds: 2, extraSound: 0.5, name: "merge-long-sound.mp4")
        let plain = try flashClick(seconds: 2, name: "merge-plain.mp4")
        let out = directory.appendingPathComponent("merged-long-sound.mp4")
        try run(["merge", long.path, plain.path, "--preset", "640x480", "-o", out.path])
        #expect(try FFprobe.countFrames(out) == 100)
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - 4) <= 0.001, "video lasts \(video) s, not 4")
        #expect(abs(audio - video) <= audioFrame, "sound \(audio) s, picture \(video) s")
        let clicks = SyncMeter.match(try SyncMeter.measure(out).clicks, expected: [0, 1, 2, 3], window: 0.1)
        #expect(clicks.lost == 0 && clicks.offsets.allSatisfy { abs($0) <= 0.02 }, "\(clicks)")
        let flashes = SyncMeter.match(try SyncMeter.measure(out).flashes, expected: [0, 1, 2, 3], window: 0.1)
        #expect(flashes.lost == 0 && flashes.offsets.allSatisfy { abs($0) <= 0.001 }, "\(flashes)")
    }

    /// `reel speed` cuts a sound longer than its picture at the picture when speeding up, as
    /// its slow-down and `merge` do: 4 s of picture with 4.5 s of sound at 2x lasts 2 s, 50
    /// frames (it lasted 2.25 s, the last picture frozen for 0.25 s).
    @Test func speedUpCutsASoundLongerThanItsPicture() throws {
        let long = try flashClick(seconds: 4, extraSound: 0.5, name: "speed-long-sound.mp4")
        let out = directory.appendingPathComponent("speed-long-sound-x2.mp4")
        try run(["speed", long.path, "--rate", "2", "--preset", "640x480", "-o", out.path])
        #expect(try FFprobe.countFrames(out) == 50)
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - 2) <= 0.002 && abs(audio - video) <= audioFrame, "picture \(video) s, sound \(audio) s, not 2")
        let clicks = SyncMeter.match(try SyncMeter.measure(out).clicks, expected: [0, 0.5, 1, 1.5], window: 0.1)
        #expect(clicks.lost == 0 && clicks.offsets.allSatisfy { abs($0) <= 0.02 }, "\(clicks)")
    }

    /// A spec clip without a range is as long as its picture too.
    @Test func specClipWithoutRangeLastsAsLongAsItsPicture() throws {
        let long = try flashClick(seconds: 2, extraSound: 0.5, name: "spec-long-sound.mp4")
        let spec = directory.appendingPathComponent("long-sound.json")
        try Data("{ \"preset\": \"640x480\", \"clips\": [ { \"file\": \"spec-long-sound.mp4\" }, { \"file\": \"spec-long-sound.mp4\" } ] }".utf8)
            .write(to: spec)
        let out = directory.appendingPathComponent("composed-long-sound.mp4")
        try run(["compose", spec.path, "-o", out.path])
        _ = long
        #expect(try FFprobe.countFrames(out) == 100)
        let (video, audio) = try streamDurations(out)
        #expect(abs(video - 4) <= 0.001 && abs(audio - video) <= audioFrame, "picture \(video) s, sound \(audio) s")
    }
}

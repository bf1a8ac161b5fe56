import Foundation
import ReelComposition
import ReelTestSupport
import Testing

/// The sync suite (issue 14): flash-and-click clips through every kind of edit, each output
/// measured from its decoded frames and samples (``SyncMeter``) and judged by the issue's
/// criteria: click-flash offsets within 20 ms (one output frame where the ideal time falls
/// between frames), no event lost (except above 2x), the picture's length within one frame,
/// the sound ending with the picture within one audio frame.
///
/// `make test` runs this subset; `make bench` runs all of it (60 clips, every speed, the
/// 10-minute soak) after the table of `scripts/sync-bench.sh`, Reel beside the ffmpeg CLI.
@Suite struct SyncSuiteTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-sync-suite")
    }

    /// The clip of `kind`, 3 s long, written once per test.
    private func clip(_ kind: FlashClick, _ name: String = "source") throws -> URL {
        let url = directory.appendingPathComponent("\(name).mp4")
        if !FileManager.default.fileExists(atPath: url.path) { try kind.write(to: url) }
        return url
    }

    /// Runs `reel` and measures its output against `events` and `duration`; records every
    /// failed criterion as an issue and returns the verdict.
    @discardableResult
    private func judge(_ label: String, _ arguments: [String], output: URL, events: [Double], duration: Double,
                       frameTolerant: Bool = false, lossAllowed: Bool = false) throws -> SyncVerdict? {
        var result = try ProcessRunner.reel(arguments, timeout: 600)
        if result.status != 0, result.standardError.contains("(export check)") {
            // The export check refused the output: that is a failure, and the file it refused is
            // measured too (written again without the check), so the numbers show why.
            Issue.record("\(label): \(result.standardError)")
            var environment = ProcessInfo.processInfo.environment
            environment["REEL_EXPORT_CHECK"] = "off"
            result = try ProcessRunner.run(Paths.reelBinary.path, arguments, timeout: 600, environment: environment)
        }
        guard result.status == 0 else {
            Issue.record("\(label): reel \(arguments.first ?? "") failed: \(result.standardError)")
            return nil
        }
        let verdict = SyncMeter.judge(try SyncMeter.measure(output), expected: events, duration: duration)
        print("sync \(label): \(verdict)")
        for failure in verdict.failures(frameTolerant: frameTolerant, lossAllowed: lossAllowed) {
            Issue.record("\(label): \(failure)")
        }
        return verdict
    }

    /// Events of `count` clips merged with `transition` seconds of overlap.
    private func merged(_ kind: FlashClick, count: Int, transition: Double) -> (events: [Double], duration: Double) {
        // A merge clip lasts as long as its picture (3.003 s for 3 s at 29.97 fps).
        let step = kind.pictureSeconds - transition
        let events = (0..<count).flatMap { index in kind.events.map { Double(index) * step + $0 } }
        return (events, Double(count) * step + transition)
    }

    // MARK: - merge

    @Test(arguments: ["none", "dissolve", "push", "slide", "wipe", "fade", "zoom"])
    func mergeWithEachTransition(_ transition: String) throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let overlap = transition == "none" ? 0 : 0.4
        let out = directory.appendingPathComponent("merge-\(transition).mp4")
        let expected = merged(kind, count: 3, transition: overlap)
        try judge("merge 3 \(transition)", ["merge", source.path, source.path, source.path, "-o", out.path]
                  + (transition == "none" ? [] : ["--transition", "\(transition):0.4"]),
                  output: out, events: expected.events, duration: expected.duration)
    }

    static let sourceKinds: [FlashClick] = [
        FlashClick(rate: (30000, 1001), sampleRate: 44100),
        FlashClick(rate: (30, 1), sampleRate: 48000),
        FlashClick(rate: (25, 1), sampleRate: 44100),
        FlashClick(variableRate: true),
        FlashClick(soundDelay: 0.6),
    ]

    @Test(arguments: sourceKinds)
    func mergeOfEachKindOfSource(_ kind: FlashClick) throws {
        let source = try clip(kind)
        let out = directory.appendingPathComponent("merge-kind.mp4")
        let expected = merged(kind, count: 3, transition: 0.4)
        // A variable-rate source's frames are rendered at the merge's rate, so its flashes may
        // move to the output's frames. At 29.97 fps the 0.4 s overlaps are no whole number of
        // frames: the later clips start on the output's frames (within half a frame of 0.4 s),
        // so their flashes need no tolerance (they came a frame late, 32.9 ms, before).
        try judge("merge 3 \(kind)", ["merge", source.path, source.path, source.path, "-o", out.path, "--transition", "dissolve:0.4"],
                  output: out, events: expected.events, duration: expected.duration,
                  frameTolerant: kind.variableRate)
    }

    /// A clip whose sound outlasts its picture lasts as long as its picture in a merge (it
    /// lengthened the merge by the excess before clip lengths came from the picture).
    @Test func mergeOfClipsWhoseSoundOutlastsThePicture() throws {
        let kind = FlashClick(soundExtra: 0.5)
        let source = try clip(kind)
        let out = directory.appendingPathComponent("merge-long-sound.mp4")
        let expected = merged(kind, count: 3, transition: 0.4)
        try judge("merge 3 \(kind)", ["merge", source.path, source.path, source.path, "-o", out.path, "--transition", "dissolve:0.4"],
                  output: out, events: expected.events, duration: expected.duration)
    }

    @Test(arguments: SyncSuite.full ? [2, 10, 30, 60] : [2, 12])
    func mergeOfManyClips(_ count: Int) throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let out = directory.appendingPathComponent("merge-\(count).mp4")
        let expected = merged(kind, count: count, transition: 0.4)
        try judge("merge \(count) dissolve", ["merge"] + Array(repeating: source.path, count: count)
                  + ["-o", out.path, "--transition", "dissolve:0.4"],
                  output: out, events: expected.events, duration: expected.duration)
    }

    /// Issue 14, "passthrough drift": copied AAC kept each clip's priming and padding, +5–11 ms
    /// a join; the sound is now encoded once, cut to the pictures, and must stay on them.
    @Test(arguments: SyncSuite.full ? [2, 5, 60] : [2, 5])
    func passthroughMerge(_ count: Int) throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let out = directory.appendingPathComponent("copy-\(count).mp4")
        let expected = merged(kind, count: count, transition: 0)
        try judge("passthrough \(count)", ["merge"] + Array(repeating: source.path, count: count)
                  + ["-o", out.path, "--preset", "passthrough"],
                  output: out, events: expected.events, duration: expected.duration)
    }

    // MARK: - speed and compose

    static let rates: [Double] = SyncSuite.full ? [1.0 / 16, 0.25, 0.5, 2, 3, 5, 16] : [0.5, 2]

    @Test(arguments: rates)
    func speed(_ rate: Double) throws {
        let kind = FlashClick(seconds: rate < 0.2 ? 2 : 4, flashLength: Int(rate.rounded(.up)))
        let source = try clip(kind)
        let out = directory.appendingPathComponent("speed.mp4")
        let events = kind.events.map { $0 / rate }
        let verdict = try judge(String(format: "speed %.4g", rate), ["speed", source.path, "--rate", "\(rate)", "-o", out.path],
                                output: out, events: events, duration: Double(kind.seconds) / rate,
                                frameTolerant: true, lossAllowed: rate > 2)
        guard rate > 2, let verdict else { return }
        // Above 2x a pitch-kept stretch may merge clicks: no more than the ffmpeg CLI's atempo.
        let reference = directory.appendingPathComponent("atempo.m4a")
        try SyncMeter.atempo(source, rate: rate, to: reference)
        let spacing = zip(events.dropFirst(), events).map { $0 - $1 }.min() ?? 1
        let atempo = SyncMeter.match(try SyncMeter.measure(reference).clicks, expected: events, window: min(1, spacing / 3))
        print(String(format: "sync speed %.4g: clicks lost %d of %d, atempo %d", rate, verdict.lostClicks, events.count, atempo.lost))
        #expect(verdict.lostClicks <= atempo.lost, "speed \(rate) lost \(verdict.lostClicks) clicks, atempo \(atempo.lost)")
    }

    /// Issue 14: a source whose track holds its last frame longer than the others, coded with
    /// B-frames, as a HandBrake file is (FFmpeg's MP4 reader gives its video packets no
    /// duration). A slowed copy gave the last picture a usual interval, and the export check
    /// refused seed 01_nebula at 0.25x: the picture ended 240 ms before the plan.
    @Test(arguments: [0.25, 0.5])
    func speedOfAClipWhoseLastFrameIsHeld(_ rate: Double) throws {
        let kind = FlashClick(seconds: 3, soundExtra: 0.04, heldLastFrame: 0.08)
        let source = try clip(kind)
        // ffprobe, the outside judge, gives the length the track presents: its last picture
        // lasts longer than its others (a usual interval would end it at 3 s).
        let presented = try #require(try FFprobe.probe(source).streams(ofType: "video").first?.duration)
        #expect(presented > kind.pictureSeconds + 0.03, "the source's last frame is held (\(presented) s)")
        let out = directory.appendingPathComponent("speed-held.mp4")
        try judge(String(format: "speed %.4g \(kind)", rate), ["speed", source.path, "--rate", "\(rate)", "-o", out.path],
                  output: out, events: kind.events.map { $0 / rate }, duration: presented / rate, frameTolerant: true)
    }

    /// Two clips with unaligned ranges (0.33–3.71 s, 1.07–3.9 s of a 4 s clip), the first at `rate`.
    @Test(arguments: rates)
    func composeWithUnalignedRangesAndSpeed(_ rate: Double) throws {
        let kind = FlashClick(seconds: 4, flashLength: Int(rate.rounded(.up)))
        let source = try clip(kind)
        let spec = directory.appendingPathComponent("spec.json")
        try Data("""
            {"clips": [{"file": "source.mp4", "range": {"start": 0.33, "end": 3.71}, "speed": \(rate)},
                       {"file": "source.mp4", "range": {"start": 1.07, "end": 3.9}}]}
            """.utf8).write(to: spec)
        let first = kind.events.filter { $0 >= 0.33 && $0 < 3.71 }.map { ($0 - 0.33) / rate }
        let firstLength = (3.71 - 0.33) / rate
        let second = kind.events.filter { $0 >= 1.07 && $0 < 3.9 }.map { firstLength + $0 - 1.07 }
        let out = directory.appendingPathComponent("compose.mp4")
        let verdict = try judge(String(format: "compose range+speed %.4g", rate), ["compose", spec.path, "-o", out.path],
                                output: out, events: first + second, duration: firstLength + 3.9 - 1.07,
                                frameTolerant: true, lossAllowed: rate > 2)
        guard rate > 2, let verdict else { return }
        // Above 2x: no more clicks lost than atempo loses from the same stretch of the source.
        let reference = directory.appendingPathComponent("atempo.m4a")
        try SyncMeter.atempo(source, rate: rate, to: reference)
        let stretched = kind.events.filter { $0 >= 0.33 && $0 < 3.71 }.map { $0 / rate }
        let spacing = zip(stretched.dropFirst(), stretched).map { $0 - $1 }.min() ?? 1
        let atempo = SyncMeter.match(try SyncMeter.measure(reference).clicks, expected: stretched, window: min(1, spacing / 3))
        print(String(format: "sync compose range+speed %.4g: clicks lost %d of %d, atempo %d of the stretched %d", rate,
                     verdict.lostClicks, first.count + second.count, atempo.lost, stretched.count))
        #expect(verdict.lostClicks <= atempo.lost, "compose at \(rate) lost \(verdict.lostClicks) clicks, atempo \(atempo.lost)")
    }

    /// Spec v2 (issue 22): a still picture between two sounding clips, dissolving in and out,
    /// moving (Ken Burns). It is silent for its length, so the clip after it keeps every click
    /// on its flash.
    @Test func composeWithAStillBetweenClips() throws {
        let kind = FlashClick()
        let source = try clip(kind)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=0x202020:s=320x240", "-frames:v", "1",
                                  directory.appendingPathComponent("still.png").path])
        let spec = directory.appendingPathComponent("still.json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "still.png", "duration": 1.6, "fit": "cover", "transition": {"type": "dissolve", "duration": 0.4},
                        "kenBurns": {"start": {"x": 0, "y": 0, "width": 1, "height": 1},
                                     "end": {"x": 0.2, "y": 0.2, "width": 0.5, "height": 0.5}, "easing": "easeInOut"}},
                       {"file": "\(source.lastPathComponent)"}]}
            """.utf8).write(to: spec)
        let stillStart = kind.pictureSeconds - 0.4, lastStart = stillStart + 1.6 - 0.4
        let events = kind.events + kind.events.map { lastStart + $0 }
        let out = directory.appendingPathComponent("still.mp4")
        try judge("compose still between clips", ["compose", spec.path, "-o", out.path], output: out, events: events,
                  duration: lastStart + kind.pictureSeconds)
    }

    /// Spec v2: a freeze frame of 0.7 s at 1.1 s of the first clip (between two flashes), the
    /// clips joined by a dissolve. The freeze lasts whole output frames (17.5 frames at 25 fps
    /// are 18, 0.72 s: 0.7 s left every later picture half a frame late, 20 ms) and the sound
    /// pauses with the picture, so every click after the freeze is 0.72 s later with its flash.
    @Test func composeWithAFreezeFrame() throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let spec = directory.appendingPathComponent("freeze.json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "freeze": {"at": 1.1, "duration": 0.7},
                        "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "\(source.lastPathComponent)"}]}
            """.utf8).write(to: spec)
        let first = kind.events.map { $0 < 1.1 ? $0 : $0 + 0.72 }
        let secondStart = kind.pictureSeconds + 0.72 - 0.4
        let out = directory.appendingPathComponent("freeze.mp4")
        try judge("compose freeze", ["compose", spec.path, "-o", out.path], output: out,
                  events: first + kind.events.map { secondStart + $0 }, duration: secondStart + kind.pictureSeconds)
    }

    /// Spec v2: a clip played backwards, then forwards. Reversed, a flash frame [t, t + 1/25)
    /// shows over [T - t - 1/25, T - t) and its 10 ms click sounds over [T - t - 10 ms, T - t):
    /// the two end together, as they began together. Flashes and click onsets are measured
    /// against those times, and the forward clip after it against its own.
    @Test func composeWithAReversedClip() throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let spec = directory.appendingPathComponent("reverse.json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "reverse": true}, {"file": "\(source.lastPathComponent)"}]}
            """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("reverse.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        #expect(result.status == 0, "\(result.standardError)")
        let length = kind.pictureSeconds
        let measurement = try SyncMeter.measure(out)
        let flashes = kind.events.map { length - $0 - kind.frameDuration }.reversed() + kind.events.map { length + $0 }
        let clicks = kind.events.map { length - $0 - 0.01 }.reversed() + kind.events.map { length + $0 }
        let flashMatch = SyncMeter.match(measurement.flashes, expected: Array(flashes), window: 0.2)
        let clickMatch = SyncMeter.match(measurement.clicks, expected: Array(clicks), window: 0.2)
        let worst = { (offsets: [Double]) in offsets.map(abs).max() ?? 0 }
        print(String(format: "sync compose reverse: flashes %d of %d, worst %.1f ms; click onsets %d of %d, worst %.1f ms; picture %.3f s, sound %.3f s",
                     flashes.count - flashMatch.lost, flashes.count, worst(flashMatch.offsets) * 1000,
                     clicks.count - clickMatch.lost, clicks.count, worst(clickMatch.offsets) * 1000,
                     measurement.videoEnd - measurement.videoStart, measurement.audioEnd - measurement.audioStart))
        #expect(flashMatch.lost == 0 && worst(flashMatch.offsets) <= 0.001, "flashes \(measurement.flashes) against \(flashes)")
        #expect(clickMatch.lost == 0 && worst(clickMatch.offsets) <= 0.002, "clicks \(measurement.clicks) against \(clicks)")
        #expect(abs(measurement.videoEnd - measurement.videoStart - 2 * length) <= 0.001)
        #expect(abs(measurement.audioEnd - measurement.videoEnd) <= 0.025)
    }

    /// Spec v2: music ducked under the clips' sound and the loudness normalised, over two
    /// clips joined by a dissolve: the gain changes move no click off its flash.
    @Test func composeWithDuckingAndLoudness() throws {
        let kind = FlashClick()
        let source = try clip(kind)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000:duration=8,volume=0.1", "-c:a", "aac",
                                  directory.appendingPathComponent("bed.m4a").path])
        let spec = directory.appendingPathComponent("duck.json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "\(source.lastPathComponent)"}],
             "audio": {"loudness": -23, "music": {"file": "bed.m4a", "duck": {"amount": 12, "threshold": -30}}}}
            """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("duck.mp4")
        let expected = merged(kind, count: 2, transition: 0.4)
        try judge("compose ducking+loudness", ["compose", spec.path, "-o", out.path], output: out, events: expected.events,
                  duration: expected.duration)
    }

    /// Spec v2: a flash-and-click clip as a video layer over the whole frame of a dark, silent
    /// main clip, from 0.48 s of its file (a frame's start), starting at 1.2 s on the timeline, at normal speed
    /// and at half speed: every flash and click lands where the layer's start, range and speed
    /// put it (the layer's sound is mixed in with its picture), and the output lasts the main
    /// clip's 7 s.
    @Test(arguments: [1.0, 0.5])
    func composeWithAPictureInPictureLayer(speed: Double) throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let dark = directory.appendingPathComponent("dark.mp4")
        if !FileManager.default.fileExists(atPath: dark.path) {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=0x101010:s=160x90:r=25:d=7", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                                      dark.path])
        }
        let spec = directory.appendingPathComponent("pip-\(speed).json")
        try Data("""
            {"clips": [{"file": "dark.mp4"}],
             "layers": [{"file": "\(source.lastPathComponent)", "start": 1.2, "range": {"start": 0.48}, "speed": \(speed),
                         "frame": {"x": 0, "y": 0, "width": 160, "height": 90}}]}
            """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("pip-\(speed).mp4")
        let events = kind.events.filter { $0 >= 0.48 }.map { 1.2 + ($0 - 0.48) / speed }
        try judge("compose picture-in-picture layer at \(speed)x", ["compose", spec.path, "-o", out.path], output: out,
                  events: events, duration: 7)
    }

    /// Spec v2: subtitles over two clips joined by a dissolve, burned in by libass (the
    /// pictures inside the cues redrawn, between the flashes so that no flash is covered) and
    /// as a soft track (the rendered streams copied into a new file beside a mov_text track):
    /// no click moves off its flash, and the picture and sound keep their lengths.
    @Test(arguments: [true, false])
    func composeWithSubtitles(_ burn: Bool) throws {
        let kind = FlashClick()
        let source = try clip(kind)
        try Data("""
            1
            00:00:00,600 --> 00:00:01,400
            SUBTITLE ONE

            2
            00:00:01,600 --> 00:00:02,400
            <i>two</i>

            3
            00:00:03,200 --> 00:00:03,900
            three

            """.utf8).write(to: directory.appendingPathComponent("sync.srt"))
        let spec = directory.appendingPathComponent("subtitles-\(burn).json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "\(source.lastPathComponent)"}],
             "subtitles": {"file": "sync.srt", "burn": \(burn)}}
            """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("subtitles-\(burn).mp4")
        let expected = merged(kind, count: 2, transition: 0.4)
        try judge("compose subtitles \(burn ? "burned" : "soft")", ["compose", spec.path, "-o", out.path], output: out,
                  events: expected.events, duration: expected.duration)
    }

    /// Spec v2: clips with sound fades and volumes of their own (a fade in, a fade out inside
    /// the dissolve, a fade out at the end), built as volume ramps: the gain changes move no
    /// click off its flash, and the sound ends with the picture.
    @Test func composeWithClipSoundFades() throws {
        let kind = FlashClick()
        let source = try clip(kind)
        let spec = directory.appendingPathComponent("fades.json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "audio": {"volume": 0.8, "fadeIn": 0.3, "fadeOut": 0.4},
                        "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "\(source.lastPathComponent)", "audio": {"fadeIn": 0.2, "fadeOut": 0.45}}]}
            """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("fades.mp4")
        let expected = merged(kind, count: 2, transition: 0.4)
        try judge("compose clip sound fades", ["compose", spec.path, "-o", out.path], output: out, events: expected.events,
                  duration: expected.duration)
    }

    // MARK: - segment merge

    @Test func segmentMerge() throws {
        let kind = FlashClick()
        let sources = try (0..<3).map { try clip(kind, "segment\($0)") }
        let out = directory.appendingPathComponent("segments.mp4")
        try SegmentMerge.write(sources, to: out)
        let expected = merged(kind, count: 3, transition: 0)
        let verdict = SyncMeter.judge(try SyncMeter.measure(out), expected: expected.events, duration: expected.duration)
        print("sync segment merge 3: \(verdict)")
        #expect(verdict.failures().isEmpty, "\(verdict.failures())")
    }

    /// A long run of segments (10 minutes in the full suite, 1 minute in `make test`), as a
    /// camera's held segments come: 29.97 fps (no segment a whole number of frames long), of
    /// four lengths in turn, merged by copy with the sound encoded once. The sound must not
    /// drift from the pictures: every click with its flash at the end as at the start.
    @Test func segmentMergeSoak() throws {
        let lengths = SyncSuite.full ? [27, 31, 33, 29] : [7, 9, 8, 6]
        let repeats = SyncSuite.full ? 5 : 2
        let kinds = lengths.map { FlashClick(rate: (30000, 1001), sampleRate: 48000, seconds: $0) }
        let files = try kinds.enumerated().map { try clip($0.element, "soak\($0.offset)") }
        var sources: [URL] = []
        var events: [Double] = []
        var start = 0.0
        for _ in 0..<repeats {
            for (kind, file) in zip(kinds, files) {
                sources.append(file)
                events += kind.events.map { start + $0 }
                start += kind.pictureSeconds
            }
        }
        let out = directory.appendingPathComponent("soak.mp4")
        try SegmentMerge.write(sources, to: out)
        let measurement = try SyncMeter.measure(out)
        let verdict = SyncMeter.judge(measurement, expected: events, duration: start)
        // Drift: the offsets of the last minute against those of the first.
        let minute = min(60, start / 2)
        let paired = zip(events, verdict.offsets).map { $0 }
        func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
        let early = mean(paired.filter { $0.0 < minute }.map(\.1))
        let late = mean(paired.filter { $0.0 >= start - minute }.map(\.1))
        print(String(format: "sync segment soak %d segments, %.1f s: %@; drift (last minute - first) %+.2f ms",
                     sources.count, start, verdict.description, (late - early) * 1000))
        #expect(verdict.failures().isEmpty, "\(verdict.failures())")
        #expect(verdict.offsets.count == events.count, "\(verdict)")
        #expect(abs(late - early) <= 0.001, "the sound drifted \((late - early) * 1000) ms from the pictures over \(start) s")
        #expect(measurement.frameCount == kinds.map { Int(($0.pictureSeconds * $0.frameRate).rounded()) }.reduce(0, +) * repeats,
                "\(measurement.frameCount) frames")
    }
}

/// Whether the whole suite runs (`REEL_SYNC_FULL=1`, as `make bench` sets) or the subset for `make test`.
enum SyncSuite {
    static let full = ProcessInfo.processInfo.environment["REEL_SYNC_FULL"] != nil
}

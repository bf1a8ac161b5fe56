import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// The copy paths (passthrough merge and compose, segment merge, the stretched slow-down)
/// keep time: no drift at joins, and every source shows exactly the frames it shows alone,
/// its own edit list honoured. Judged by the ffmpeg CLI decoding the output.
@Suite struct CopyTimeTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-copy-time")
    }

    // MARK: - Clips

    /// Flash and click: dark pictures at 30 fps with a white frame at 0.5 s, 1.5 s…, and a
    /// 10 ms 1 kHz click at the same instants, AAC at 48 kHz. `extra` adds filters.
    private func flashAndClick(_ name: String, seconds: Double, extra: String = "") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=c=0x202020:s=160x90:r=30:d=\(seconds),drawbox=c=white:t=fill:enable='eq(mod(n,30),15)'\(extra)",
            "-f", "lavfi", "-i", "aevalsrc='0.9*sin(2*PI*1000*t)*lt(mod(t-0.5,1),0.01)':s=48000:d=\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-video_track_timescale", "15360", url.path])
        return url
    }

    /// A 3 s flash-and-click clip whose edit lists show only 0.3–2.3 s: the nine frames before
    /// (red) are needed to decode the first shown one (the keyframes are at 0 and 2 s) and the
    /// frames after (blue) follow the keyframe at 2 s. Alone it shows 60 frames, 2 s.
    private func editListed(_ name: String) throws -> URL {
        let raw = try flashAndClick("raw-" + name, seconds: 3,
                                    extra: ",drawbox=c=red:t=fill:enable='lt(n,9)',drawbox=c=blue:t=fill:enable='gte(n,69)'")
        let half = directory.appendingPathComponent("half-" + name), url = directory.appendingPathComponent(name)
        let surgery = Paths.packageRoot.appendingPathComponent("Tests/Corpus/mp4surgery.py").path
        // Video: 2000 ms from media time 0.3 s (4608 of 15360); sound: from 0.3 s after the 1024 priming samples.
        for (input, output, handler, media) in [(raw, half, "vide", 4608), (half, url, "soun", 1024 + 14400)] {
            let result = try ProcessRunner.run("/usr/bin/python3", [surgery, input.path, output.path, "edit", handler, "2000", "\(media)"])
            guard result.status == 0 else { throw TestFailure("mp4surgery: \(result.standardError)") }
        }
        return url
    }

    // MARK: - Measuring with the ffmpeg CLI

    struct Shown {
        struct Frame {
            var time: Double
            var y: Int, u: Int, v: Int
            var isFlash: Bool { y > 150 }
            /// Red or blue: a frame the source's edit list hides.
            var isHidden: Bool { abs(u - 128) > 20 || abs(v - 128) > 20 }
        }
        var frames: [Frame]
        var clicks: [Double]
        var audioSeconds: Double
        var flashes: [Double] { frames.filter(\.isFlash).map(\.time) }
        var hidden: [Frame] { frames.filter(\.isHidden) }
    }

    /// Every frame ffmpeg decodes (no frame dropped or repeated) with its time and mean
    /// colour, and the onsets of the clicks in the decoded sound.
    private func measure(_ url: URL) throws -> Shown {
        let video = try ProcessRunner.run("ffmpeg", ["-nostdin", "-hide_banner", "-i", url.path, "-map", "0:v", "-fps_mode", "passthrough",
                                                     "-vf", "showinfo", "-f", "null", "-"])
        guard video.status == 0 else { throw TestFailure("ffmpeg showinfo \(url.path): \(video.standardError)") }
        var frames: [Shown.Frame] = []
        for line in video.standardError.split(separator: "\n") where line.contains("pts_time:") && line.contains("mean:[") {
            guard let time = line.split(separator: "pts_time:").last?.split(separator: " ").first.flatMap({ Double($0) }),
                  let means = line.split(separator: "mean:[").last?.split(separator: "]").first?.split(separator: " ")
                    .compactMap({ Int($0) }), means.count == 3 else { continue }
            frames.append(Shown.Frame(time: time, y: means[0], u: means[1], v: means[2]))
        }
        let raw = directory.appendingPathComponent(url.lastPathComponent + ".f32")
        try ProcessRunner.ffmpeg(["-i", url.path, "-map", "0:a", "-f", "f32le", "-ac", "1", "-ar", "48000", raw.path])
        let data = try Data(contentsOf: raw)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var clicks: [Double] = []
        var last = -10.0
        for (index, value) in samples.enumerated() where abs(value) > 0.3 {
            let time = Double(index) / 48000
            if time - last > 0.5 { clicks.append(time) }
            last = time
        }
        return Shown(frames: frames, clicks: clicks, audioSeconds: Double(samples.count) / 48000)
    }

    // MARK: - Passthrough merge

    /// 60 clips (1 s, an edit-listed 2 s, 1.5 s, twenty times): every flash and click where the
    /// clip puts it, to the millisecond, after 59 joins. The old copy kept each join's AAC
    /// priming and padding (+5–11 ms a join) and showed the hidden frames mid-merge.
    @Test func sixtyClipPassthroughMergeHasNoDriftAndEveryFrame() throws {
        let a = try flashAndClick("a.mp4", seconds: 1), b = try editListed("b.mp4"), c = try flashAndClick("c.mp4", seconds: 1.5)
        let alone = try measure(b)
        #expect(alone.frames.count == 60 && alone.hidden.isEmpty, "\(alone.frames.count) frames alone")
        let out = directory.appendingPathComponent("sixty.mp4")
        let inputs = (0..<20).flatMap { _ in [a, b, c] }
        let result = try ProcessRunner.reel(["merge"] + inputs.map(\.path) + ["--preset", "passthrough", "-o", out.path], timeout: 300)
        #expect(result.status == 0, "\(result.standardError)")

        // Where each clip puts its events: a at 0.5; b at 0.2 and 1.2 (its 0.5 and 1.5, less the 0.3 hidden); c at 0.5.
        var expected: [Double] = []
        for round in 0..<20 {
            let start = Double(round) * 4.5
            expected += [start + 0.5, start + 1 + 0.2, start + 1 + 1.2, start + 3 + 0.5]
        }
        let shown = try measure(out)
        #expect(shown.frames.count == 20 * (30 + 60 + 45))
        #expect(shown.hidden.isEmpty, "hidden frames shown at \(shown.hidden.map(\.time).prefix(5))")
        #expect(shown.flashes.count == expected.count, "\(shown.flashes.count) flashes")
        #expect(shown.clicks.count == expected.count, "\(shown.clicks.count) clicks")
        for (index, time) in expected.enumerated() where index < min(shown.flashes.count, shown.clicks.count) {
            #expect(abs(shown.flashes[index] - time) < 0.001, "flash \(index) at \(shown.flashes[index]) s, not \(time) s")
            // The click's onset is found a few samples in (the sine starts at 0).
            #expect(abs(shown.clicks[index] - time) < 0.001, "click \(index) at \(shown.clicks[index]) s, not \(time) s")
        }
        let offsets = zip(shown.flashes, shown.clicks).map { $1 - $0 }
        #expect((offsets.max() ?? 1) - (offsets.min() ?? 0) < 0.0005, "drift \(offsets.first ?? 0) → \(offsets.last ?? 0)")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 90) < 0.001)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 90) < 0.001)
        #expect(try FFprobe.countFrames(out) == 2700)
        if BrowserPlayer.available {
            let report = try BrowserPlayer.play(out, seconds: 0.5)
            #expect(report.readyState == 4 && report.error == nil && report.currentTimeAfter > report.currentTimeBefore)
            // Chromium honours the per-clip edit lists: just inside each end of an edit-listed
            // clip it shows the dark picture (not the red lead-in nor the blue tail), and its flash.
            let rounds = [0, 9, 19]
            let times = rounds.flatMap { round in [0.01, 0.21, 1.99].map { Double(round) * 4.5 + 1 + $0 } }
            let colors = try BrowserPlayer.colors(out, at: times)
            for (index, color) in colors.enumerated() {
                let flash = index % 3 == 1
                #expect(flash ? color.red > 200 && color.blue > 200 : color.red < 60 && color.blue < 60,
                        "Chromium at \(color.time) s shows \(color.red), \(color.green), \(color.blue)")
            }
        }
    }

    /// The edit-listed clip between two others shows the same frames, in the same order, as
    /// alone; the one-frame-short edit list of old is gone too (every frame shown).
    @Test func editListedSourceShowsWhatItShowsAlone() throws {
        let a = try flashAndClick("e-a.mp4", seconds: 1), b = try editListed("e-b.mp4")
        let alone = try measure(b).frames
        let out = directory.appendingPathComponent("a-b-b-a.mp4")
        let result = try ProcessRunner.reel(["merge", a.path, b.path, b.path, a.path, "--preset", "passthrough", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let frames = try measure(out).frames
        #expect(frames.count == 30 + 60 + 60 + 30)
        for (copy, start) in [(0, 30), (1, 90)] where frames.count >= start + 60 {
            let shown = frames[start..<start + 60]
            #expect(zip(shown, alone).allSatisfy { $0.y == $1.y && $0.u == $1.u && $0.v == $1.v }, "copy \(copy) differs")
            #expect(zip(shown, alone).allSatisfy { abs($0.time - Double(start) / 30 - $1.time) < 0.0005 }, "copy \(copy) moved")
        }
    }

    /// The seed clips' own edit lists hide a last frame of 03 and 05 (ffprobe reads 250 of
    /// their 251): merged by copy, the output shows exactly the frames each shows alone.
    /// (With the movie timescale at FFmpeg's default 1000, 05's entry rounded from 9.962878 s
    /// up to 9.963 s and showed its hidden last frame.)
    @Test(.enabled(if: Paths.seedClipsAvailable, Comment(rawValue: Paths.seedClipsMissing)))
    func seedClipsMergedByCopyShowTheirOwnFrames() throws {
        let names = ["01_nebula.mp4", "02_blackhole.mp4", "03_nebula.mp4", "05_blackhole.mp4"]
        let out = directory.appendingPathComponent("seeds.mp4")
        let result = try ProcessRunner.reel(["merge"] + names.map { Paths.seedClip($0).path } + ["--preset", "passthrough", "-o", out.path],
                                            timeout: 300)
        #expect(result.status == 0, "\(result.standardError)")
        func hashes(_ url: URL) throws -> [Substring] {
            let run = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v", "-fps_mode", "passthrough",
                                                       "-f", "framemd5", "-"], timeout: 300)
            guard run.status == 0 else { throw TestFailure("framemd5 \(url.path): \(run.standardError)") }
            return run.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        }
        let alone = try names.flatMap { try hashes(Paths.seedClip($0)) }
        let merged = try hashes(out)
        #expect(alone.count == 1002 && merged == alone, "\(merged.count) frames merged, \(alone.count) alone")
    }

    // MARK: - Compose with the passthrough preset

    /// Counter frames: luma 16 + 2n in frame n, so a decoded frame names itself.
    private func counter(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=160x90:r=30:d=3,geq=lum='16+2*N':cb=128:cr=128",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-g", "90", "-pix_fmt", "yuv420p",
                                  "-c:a", "aac", url.path])
        return url
    }

    @Test func composePassthroughCopiesRangesInsideAGroupOfPicturesAndMixesTheSound() throws {
        let clip = try counter("counter.mp4")
        let music = directory.appendingPathComponent("music.m4a")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=2000:sample_rate=48000:duration=5", "-c:a", "aac", music.path])
        let spec = directory.appendingPathComponent("ranges.json")
        try Data("""
        {"clips": [{"file": "counter.mp4", "range": {"start": 0.7, "end": 1.9}},
                   {"file": "counter.mp4", "range": {"start": 2.1, "end": 2.5}}],
         "audio": {"volume": 0.5, "music": {"file": "music.m4a", "volume": 0.8}}}
        """.utf8).write(to: spec)
        let out = directory.appendingPathComponent("ranges.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "--preset", "passthrough", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        // Frames 21…56 then 63…74, each showing its own number (the only keyframe is frame 0).
        let numbers = try measure(out).frames.map { ($0.y - 16 + 1) / 2 }
        #expect(numbers == Array(21..<57) + Array(63..<75), "\(numbers)")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 1.6) < 0.001)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 1.6) < 0.001)
        _ = clip
    }

    @Test func composePassthroughRefusesWhatItCannotCopyNamingTheKey() throws {
        _ = try counter("refuse.mp4")
        let clip = #"{"file": "refuse.mp4"}"#
        let cases: [(String, String)] = [
            (##"{"clips": [\##(clip)], "overlays": [{"type": "color", "color": "#ff0000", "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}]}"##, "overlays"),
            (#"{"renderSize": {"width": 320, "height": 180}, "clips": [\#(clip)]}"#, "renderSize"),
            (#"{"frameRate": 25, "clips": [\#(clip)]}"#, "frameRate"),
            (#"{"clips": [{"file": "refuse.mp4", "speed": 2}]}"#, "clips[0].speed"),
            (#"{"clips": [{"file": "refuse.mp4", "transition": {"type": "dissolve", "duration": 1}}, \#(clip)]}"#,
             "clips[0].transition"),
        ]
        for (index, (json, key)) in cases.enumerated() {
            let spec = directory.appendingPathComponent("refuse\(index).json")
            try Data(json.utf8).write(to: spec)
            let out = directory.appendingPathComponent("refused\(index).mp4")
            let result = try ProcessRunner.reel(["compose", spec.path, "--preset", "passthrough", "-o", out.path])
            #expect(result.status == 2, "\(key): \(result.standardError)")
            #expect(result.standardError.contains(": \(key): "), "\(key): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    // MARK: - Segment merge and the stretched copy

    @Test func segmentMergeHidesWhatEachSegmentHides() throws {
        let a = try flashAndClick("s-a.mp4", seconds: 1), b = try editListed("s-b.mp4")
        let out = directory.appendingPathComponent("segments.mp4")
        let length = try SegmentMerge.write([a, b, a], to: out)
        #expect(length == MediaTime(value: 4, timescale: 1))
        // The index in front, moved there once its edit lists were written.
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: out)).map(\.type)
        #expect((boxes.firstIndex(of: "moov") ?? 99) < (boxes.firstIndex(of: "mdat") ?? -1), "\(boxes)")
        let shown = try measure(out)
        #expect(shown.frames.count == 120 && shown.hidden.isEmpty, "\(shown.frames.count) frames")
        let expected = [0.5, 1.2, 2.2, 3.5]
        #expect(shown.flashes.count == 4 && shown.clicks.count == 4, "\(shown.flashes) \(shown.clicks)")
        for (time, (flash, click)) in zip(expected, zip(shown.flashes, shown.clicks)) {
            #expect(abs(flash - time) < 0.001 && abs(click - time) < 0.001, "flash \(flash), click \(click), not \(time)")
        }
    }

    /// A replay's range that starts where the camera dropped frames: every picture at its own
    /// time and every click with its flash. FFmpeg's reading moves the first picture shown to
    /// zero, so an edit starting in the gap put the pictures ahead of the sound by the time
    /// from the start to that picture (a CI run's replay: 100 ms); nothing shows until it now.
    @Test(arguments: [1.2, 1.1])
    func aRangeStartingWhereTheCameraDroppedFramesKeepsSync(start: Double) throws {
        // 4 s at 30 fps without frames 31-38 (1.033-1.267 s): a gap from 1.0 to 1.3 s.
        let gapped = directory.appendingPathComponent("gapped-\(start).mp4")
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=c=0x202020:s=160x90:r=30:d=4,drawbox=c=white:t=fill:enable='eq(mod(n,30),15)',"
                + "select='not(between(n,31,38))'",
            "-f", "lavfi", "-i", "aevalsrc='0.9*sin(2*PI*1000*t)*lt(mod(t-0.5,1),0.01)':s=48000:d=4",
            "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-video_track_timescale", "15360", gapped.path])
        let out = directory.appendingPathComponent("gap-range-\(start).mp4")
        let range = MediaTimeRange(start: MediaTime(seconds: start), end: MediaTime(value: 4, timescale: 1))
        try SegmentMerge.write([gapped], to: out, ranges: [range])
        let shown = try measure(out)
        // The first picture after the gap, at 1.3 s, shows at its own time in the range.
        let first = try #require(shown.frames.first)
        #expect(abs(first.time - (1.3 - start)) < 0.001, "first picture at \(first.time) s")
        let expected = [1.5, 2.5, 3.5].map { $0 - start }
        #expect(shown.flashes.count == 3 && shown.clicks.count == 3, "\(shown.flashes) \(shown.clicks)")
        for (time, (flash, click)) in zip(expected, zip(shown.flashes, shown.clicks)) {
            #expect(abs(flash - time) < 0.001 && abs(click - time) < 0.001, "flash \(flash), click \(click), not \(time)")
        }
        #expect(abs((try FFprobe.probe(out).duration ?? 0) - (4 - start)) < 0.03)
    }

    @Test func stretchedCopyShowsOnlyWhatTheSourceShows() throws {
        let b = try editListed("slow-b.mp4")
        let out = directory.appendingPathComponent("slow.mp4")
        let result = try ProcessRunner.reel(["speed", b.path, "--rate", "0.5", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let shown = try measure(out)
        #expect(shown.frames.count == 60 && shown.hidden.isEmpty, "\(shown.frames.count) frames")
        #expect(abs((shown.frames.first?.time ?? 1)) < 0.001)
        #expect(abs((try FFprobe.probe(out).streams(ofType: "video").first?.duration ?? 0) - 4) < 0.001)
    }

    /// A quarter-speed copy of a 29.97 fps clip whose sound is 6 ms shorter than its picture
    /// (180 frames, 6.006 s, against 6 s of sound, as phones and the ffmpeg CLI write it): the
    /// sound is filled to the picture's end and every flash stays on its click. (It was refused
    /// by the export check: the 6 ms became 24 ms, past one audio frame.)
    @Test func aSlowedClipWhoseSoundIsShortEndsWithItsPicture() throws {
        let kind = FlashClick(rate: (30000, 1001), seconds: 6)
        let clip = directory.appendingPathComponent("ntsc.mp4")
        try kind.write(to: clip)
        let out = directory.appendingPathComponent("ntsc-quarter.mp4")
        let result = try ProcessRunner.reel(["speed", clip.path, "--rate", "0.25", "-o", out.path])
        try #require(result.status == 0, "\(result.standardError)")
        let verdict = SyncMeter.judge(try SyncMeter.measure(out), expected: kind.events.map { $0 * 4 }, duration: kind.pictureSeconds * 4)
        print("speed 0.25 of 29.97 fps: \(verdict)")
        #expect(verdict.failures(frameTolerant: true).isEmpty, "\(verdict.failures(frameTolerant: true))")
        #expect(abs(verdict.endGap) < 0.001, "the sound ends \(verdict.endGap) s from the picture")
    }

    /// recover on a file whose edit lists show 0.3–2.3 s: the frames before and after stay
    /// hidden (the old copy showed the 21 after). And an interrupted (fragmented) recording
    /// whose edit lists hide a lead-in keeps it hidden, sound and picture together.
    @Test func recoverShowsWhatTheEditListsShow() throws {
        let edited = try editListed("r-b.mp4")
        let out = directory.appendingPathComponent("recovered-b.mp4")
        let result = try ProcessRunner.reel(["recover", edited.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let shown = try measure(out)
        #expect(shown.frames.count == 60 && shown.hidden.isEmpty, "\(shown.frames.count) frames, \(shown.hidden.count) hidden ones")

        let raw = try flashAndClick("r-raw.mp4", seconds: 3, extra: ",drawbox=c=red:t=fill:enable='lt(n,9)'")
        let fragmented = directory.appendingPathComponent("r-frag.mp4")
        try ProcessRunner.ffmpeg(["-i", raw.path, "-c", "copy", "-movflags", "frag_keyframe+empty_moov+default_base_moof",
                                  fragmented.path])
        let half = directory.appendingPathComponent("r-half.mp4"), partial = directory.appendingPathComponent("r.partial.mp4")
        let surgery = Paths.packageRoot.appendingPathComponent("Tests/Corpus/mp4surgery.py").path
        for (input, output, handler, media) in [(fragmented, half, "vide", 4608), (half, partial, "soun", 1024 + 14400)] {
            let result = try ProcessRunner.run("/usr/bin/python3", [surgery, input.path, output.path, "add-edit", handler, "2700", "\(media)"])
            guard result.status == 0 else { throw TestFailure("mp4surgery: \(result.standardError)") }
        }
        let recovered = directory.appendingPathComponent("recovered.mp4")
        let second = try ProcessRunner.reel(["recover", partial.path, "-o", recovered.path])
        #expect(second.status == 0, "\(second.standardError)")
        let fragment = try measure(recovered)
        #expect(fragment.frames.count == 81 && fragment.hidden.isEmpty, "\(fragment.frames.count) frames, \(fragment.hidden.count) hidden")
        #expect(fragment.flashes.count == 3 && fragment.clicks.count == 3, "\(fragment.flashes) \(fragment.clicks)")
        for (time, (flash, click)) in zip([0.2, 1.2, 2.2], zip(fragment.flashes, fragment.clicks)) {
            #expect(abs(flash - time) < 0.001 && abs(click - time) < 0.001, "flash \(flash), click \(click), not \(time)")
        }
    }
}

import Foundation
import ReelTestSupport
import Testing

@Suite struct CompositionCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-compose")
    }

    private func clips(_ count: Int, seconds: Int = 3) throws -> [URL] {
        try (0..<count).map { index in
            let url = directory.appendingPathComponent("clip\(index).mp4")
            var arguments = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=\(seconds)"]
            if index != 2 {  // one clip without sound
                arguments += ["-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * index):sample_rate=48000:duration=\(seconds)"]
            }
            arguments += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", url.path]
            try ProcessRunner.ffmpeg(arguments)
            return url
        }
    }

    @Test func mergeWithDissolvesHasTheExactDuration() throws {
        let inputs = try clips(3)
        let out = directory.appendingPathComponent("merged.mp4")
        let result = try ProcessRunner.reel(["merge"] + inputs.map(\.path) + ["-o", out.path, "--transition", "dissolve:1"])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.duration ?? 0) - 7) <= 0.05)  // 3 + 3 + 3 - 1 - 1
        #expect(try FFprobe.countFrames(out) == 175)
        #expect(probe.streams(ofType: "audio").first?.codecName == "aac")
    }

    @Test func demoOnGivenClipsPlaysInChromium() throws {
        let folder = directory.appendingPathComponent("seedlike")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, url) in try clips(5, seconds: 5).enumerated() {
            try FileManager.default.moveItem(at: url, to: folder.appendingPathComponent("0\(index + 1)_clip.mp4"))
        }
        let out = directory.appendingPathComponent("demo.mp4")
        let result = try ProcessRunner.reel(["demo", "--clips", folder.path, "-o", out.path], timeout: 300)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("contact sheet:"))
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.duration ?? 0) - 17) <= 0.05)  // 5 x 5 s - 4 x 2 s
        #expect(probe.streams(ofType: "video").first?.width == 320)  // never scaled up to 640
        if BrowserPlayer.available {
            let report = try BrowserPlayer.play(out)
            #expect(report.readyState == 4 && report.error == nil && report.currentTimeAfter > report.currentTimeBefore)
        }
    }

    @Test func exportPresetFitsTheBox() throws {
        let input = try clips(1)[0]
        let out = directory.appendingPathComponent("small.mp4")
        let result = try ProcessRunner.reel(["export", input.path, "--preset", "low", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.probe(out).streams(ofType: "video").first?.width == 320)
    }

    private func fifo() throws -> String {
        let path = directory.appendingPathComponent("pipe.json").path
        guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): errno \(errno)") }
        return path
    }

    private func spec(_ name: String, _ clip: URL, _ extra: String?, reverse: Bool = false) throws -> String {
        let url = directory.appendingPathComponent(name)
        let clipJSON = reverse ? #"{"file": "\#(clip.path)", "reverse": true}"# : #"{"file": "\#(clip.path)"}"#
        try #"{"clips": [\#(clipJSON)]\#(extra.map { ", " + $0 } ?? "")}"#.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func hugeSpec() throws -> String {
        let url = directory.appendingPathComponent("huge.json")
        try Data(repeating: 0x20, count: 17 * 1_048_576).write(to: url)
        return url.path
    }

    @Test func badRequestsGiveOneLine() throws {
        let input = try clips(1)[0]
        let out = directory.appendingPathComponent("x.mp4").path
        let cases: [([String], Int32, String)] = [
            (["merge", input.path, input.path, "-o", out, "--transition", "wobble:1"], 1, "--transition is"),
            (["merge", input.path, "-o", out, "--preset", "huge"], 1, "--preset is one of"),
            (["merge", input.path, input.path, "-o", out, "--transition", "dissolve:5"], 2, "too short"),
            (["merge", input.path, directory.appendingPathComponent("missing.mp4").path, "-o", out], 2, "no such file"),
            (["export", input.path, "-o", directory.appendingPathComponent("x.webm").path], 1, "must end in .mp4"),
            (["demo", "--clips", directory.appendingPathComponent("nothing").path, "-o", out], 2, "holds no .mp4 clips"),
            // A spec that is a device or a pipe is refused before it is read (/dev/zero never
            // ends, a pipe with no writer never answers); one over 16 MiB is not a spec.
            (["compose", "/dev/null", "-o", out], 2, "/dev/null: is a device, pipe or socket"),
            (["compose", "/dev/zero", "-o", out], 2, "/dev/zero: is a device, pipe or socket"),
            (["compose", try fifo(), "-o", out], 2, "pipe.json: is a device, pipe or socket"),
            (["compose", try hugeSpec(), "-o", out], 2, "huge.json: is 17 MiB; a spec is JSON of at most 16 MiB"),
            // Keys only reel compose carries out are refused where a spec is built another way,
            // rather than written without them.
            (["compose", try spec("duck.json", input, #""audio": {"music": {"file": "\#(input.path)", "duck": {}}}"#), "--jobs",
              "2", "-o", out], 2, "duck.json: audio.music.duck: a chunked export cannot duck the music yet"),
            (["compose", try spec("reverse.json", input, nil, reverse: true), "--jobs", "2", "-o", out], 2,
             "clips[0].reverse: a chunked export cannot reverse clips yet"),
            (["export", try spec("loud.json", input, #""audio": {"loudness": -16}"#), "--hls",
              directory.appendingPathComponent("package").path], 2, "audio.loudness: a package cannot normalise the loudness yet"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 120)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

@Suite struct PassthroughMergeTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-passthrough")
    }

    private func clip(_ name: String, size: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=2",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25",
                                  "-c:a", "aac", "-shortest", url.path])
        return url
    }

    @Test func copiesEveryPacketOfMatchingClips() throws {
        let a = try clip("a.mp4", size: "320x240"), b = try clip("b.mp4", size: "320x240")
        let out = directory.appendingPathComponent("joined.mp4")
        let result = try ProcessRunner.reel(["merge", a.path, b.path, a.path, "--preset", "passthrough", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.countFrames(out) == 150)
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.duration ?? 0) - 6) < 0.1)
        #expect(probe.streams(ofType: "audio").first?.codecName == "aac")
        // The index is in front, written there in the one pass (room kept for it).
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: out)).map(\.type)
        #expect((boxes.firstIndex(of: "moov") ?? 99) < (boxes.firstIndex(of: "mdat") ?? -1), "\(boxes)")
        if BrowserPlayer.available {
            let report = try BrowserPlayer.play(out)
            #expect(report.readyState == 4 && report.error == nil && report.currentTimeAfter > report.currentTimeBefore)
        }
    }

    @Test func keepsTheRotationAndRefusesMixedOnes() throws {
        let a = try clip("e.mp4", size: "320x240")
        let turned = directory.appendingPathComponent("e-portrait.mp4")
        try ProcessRunner.ffmpeg(["-i", a.path, "-c", "copy", "-metadata:s:v", "rotate=270", turned.path])
        let out = directory.appendingPathComponent("turned.mp4")
        let result = try ProcessRunner.reel(["merge", turned.path, turned.path, "--preset", "passthrough", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.probe(out).streams(ofType: "video").first?.rotation == -90)
        let mixed = try ProcessRunner.reel(["merge", a.path, turned.path, "--preset", "passthrough", "-o",
                                            directory.appendingPathComponent("mixed.mp4").path])
        #expect(mixed.status == 2 && mixed.standardError.contains("clips[1]") && mixed.standardError.contains("turned 90°"))
    }

    @Test func namesTheClipAndParameterThatDiffer() throws {
        let a = try clip("c.mp4", size: "320x240"), b = try clip("d.mp4", size: "316x240")
        let out = directory.appendingPathComponent("refused.mp4")
        let result = try ProcessRunner.reel(["merge", a.path, b.path, "--preset", "passthrough", "-o", out.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("clips[1]") && result.standardError.contains("width 316, not 320"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let transition = try ProcessRunner.reel(["merge", a.path, a.path, "--preset", "passthrough", "--transition", "dissolve:1",
                                                 "-o", out.path])
        #expect(transition.status == 2 && transition.standardError.contains("overlaps the clip before"))
    }
}

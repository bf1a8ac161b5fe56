import Foundation
import ReelTestSupport
import Testing

@Suite struct TranscodeCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-transcode")
    }

    /// A 2-second 320x240 clip with a tone, made by the ffmpeg CLI.
    private func source(seconds: Int = 2, name: String = "source.mp4") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
                                  "-shortest", url.path])
        return url
    }

    @Test func defaultOutputIsBrowserFriendlyAndMatchesFFprobe() throws {
        let input = try source()
        let output = directory.appendingPathComponent("out.mp4")
        let result = try ProcessRunner.reel(["transcode", input.path, "-o", output.path, "--size", "640x480"])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(output)
        let video = try #require(probe.streams(ofType: "video").first)
        #expect(video.codecName == "h264" && video.profile == "High" && video.pixelFormat == "yuv420p")
        #expect(video.width == 640 && video.height == 480)
        #expect(try FFprobe.countFrames(output) == 50)
        let audio = try #require(probe.streams(ofType: "audio").first)
        #expect(audio.codecName == "aac" && audio.sampleRate == 48000)
        #expect(abs((probe.duration ?? 0) - 2.0) < 0.05)
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: output)).map(\.type)
        #expect((boxes.firstIndex(of: "moov") ?? 99) < (boxes.firstIndex(of: "mdat") ?? -1))
    }

    @Test(.enabled(if: BrowserPlayer.available, "needs chromium and chromium-driver (make deps)"))
    func defaultOutputPlaysInChromium() throws {
        let input = try source()
        let output = directory.appendingPathComponent("play.mp4")
        #expect(try ProcessRunner.reel(["transcode", input.path, "-o", output.path]).status == 0)
        let report = try BrowserPlayer.play(output)
        #expect(report.error == nil)
        #expect(report.readyState == 4)
        #expect(report.videoWidth == 320 && report.videoHeight == 240)
        #expect(report.currentTimeAfter > report.currentTimeBefore + 0.3)
    }

    @Test func jsonProgressLines() throws {
        let input = try source()
        let output = directory.appendingPathComponent("json.mp4")
        let result = try ProcessRunner.reel(["transcode", input.path, "-o", output.path, "--json", "--preset", "ultrafast"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Double]
        }
        #expect(!lines.isEmpty)
        #expect(lines.last?["progress"] == 1)
        #expect(lines.allSatisfy { $0["speed"] != nil && $0["eta"] != nil && $0["duration"] != nil })
    }

    @Test(arguments: [("hevc", "mp4", "hevc"), ("prores", "mov", "prores"), ("vp9", "webm", "vp9")])
    func otherCodecs(codec: String, ext: String, expected: String) throws {
        let input = try source(seconds: 1, name: "short-\(codec).mp4")
        let output = directory.appendingPathComponent("out-\(codec).\(ext)")
        let result = try ProcessRunner.reel(["transcode", input.path, "-o", output.path, "--codec", codec,
                                             "--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(output)
        #expect(probe.streams(ofType: "video").first?.codecName == expected)
        if codec == "hevc" {
            let tag = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                        "stream=codec_tag_string", "-of", "csv=p=0", output.path])
            #expect(tag.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")
        }
        if codec == "vp9" { #expect(probe.streams(ofType: "audio").first?.codecName == "opus") }
    }

    @Test func badArgumentsGiveOneLine() throws {
        let input = try source(seconds: 1, name: "args.mp4")
        let cases: [([String], Int32, String)] = [
            (["transcode", input.path], 1, "needs -o OUT"),
            (["transcode", input.path, "-o", directory.appendingPathComponent("x.mp4").path, "--codec", "divx"], 1, "--codec is"),
            (["transcode", input.path, "-o", directory.appendingPathComponent("x.mp4").path, "--size", "641x480"], 1, "even"),
            (["transcode", input.path, "-o", directory.appendingPathComponent("x.avi").path], 1, "must end in"),
            (["transcode", input.path, "-o", input.path], 2, "overwrite the input"),
            (["transcode", directory.appendingPathComponent("none.mp4").path, "-o", directory.appendingPathComponent("y.mp4").path], 2, "no such file"),
            (["transcode", input.path, "-o", "/nonexistent-dir/y.mp4"], 2, "does not exist"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 60)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.mp4").path))
    }

    @Test func existingDestinationSurvivesAFailedTranscode() throws {
        let output = directory.appendingPathComponent("keep.mp4")
        try Data("previous".utf8).write(to: output)
        let text = directory.appendingPathComponent("text.mp4")
        try Data("not a movie".utf8).write(to: text)
        let result = try ProcessRunner.reel(["transcode", text.path, "-o", output.path])
        #expect(result.status == 2)
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func sizeOfATurnedClipIsTheSizeOnScreen() throws {
        let clip = try TestClips.rotated(270, in: directory)
        let output = directory.appendingPathComponent("portrait-small.mp4")
        let result = try ProcessRunner.reel(["transcode", clip.path, "-o", output.path, "--size", "120x160", "--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.standardError)")
        let video = try #require(try FFprobe.probe(output).streams(ofType: "video").first)
        #expect(video.width == 160 && video.height == 120 && video.rotation == -90)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func interruptedTranscodeLeavesNoTemporaryFile(signal: Int32) throws {
        let input = try source(seconds: 20, name: "interrupt-\(signal).mp4")
        let folder = directory.appendingPathComponent("interrupt-\(signal)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["transcode", input.path, "-o", folder.appendingPathComponent("out.mp4").path,
                             "--size", "1280x720", "--preset", "slow"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (try FileManager.default.contentsOfDirectory(atPath: folder.path)).isEmpty {
            usleep(50_000)
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func killedFragmentedTranscodeKeepsEveryCompleteFragment() throws {
        let input = try source(seconds: 30, name: "long.mp4")
        let output = directory.appendingPathComponent("frag.mp4")
        let partial = directory.appendingPathComponent("frag.partial.mp4")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["transcode", input.path, "-o", output.path, "--size", "1280x720", "--preset", "medium",
                             "--fragment-interval", "0.5"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Three 0.5 s fragments of 720p at preset medium: seconds alone, much longer on a loaded machine.
        let deadline = Date().addingTimeInterval(300)
        var fragments = 0
        while Date() < deadline, process.isRunning {
            if let data = try? Data(contentsOf: partial) {
                fragments = MP4Boxes.topLevel(data).filter { $0.type == "moof" }.count
                if fragments >= 3 { break }
            }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the transcode finished before it could be killed")
        #expect(fragments >= 3)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let data = try Data(contentsOf: partial)
        let boxes = MP4Boxes.topLevel(data)
        let complete = boxes.indices.filter { boxes[$0].type == "moof" && $0 + 1 < boxes.count && boxes[$0 + 1].type == "mdat" }
        let videoSamplesWritten = complete.map { MP4Boxes.sampleCount(inFragment: boxes[$0], of: data) }.reduce(0, +)
        #expect(videoSamplesWritten > 0)
        let probe = try FFprobe.probe(partial)
        #expect(probe.streams(ofType: "video").first?.codecName == "h264")
        let frames = try FFprobe.countFrames(partial)
        // Every video frame of the complete fragments is there (the traf counts include audio).
        #expect(frames >= complete.count * 12, "\(frames) frames in \(complete.count) fragments")
        #expect(abs(Double(frames) / 25 - (probe.duration ?? 0)) < 0.5)
    }

    /// A fragmented transcode, once finished, is the same film as a plain one: the picture from
    /// zero, every frame, each flash at its time and on its click. (Its fragments had no edit
    /// list, so FFmpeg wrote every track 80 ms late, the B-frames' delay, and the finished file
    /// kept that: an 80 ms hole before the sound, flashes 80 ms late, and the last frame cut
    /// off, as its packet came with no duration.)
    @Test func aFragmentedTranscodeKeepsItsTimesAndEveryFrame() throws {
        let kind = FlashClick(rate: (25, 1), seconds: 6)
        let input = directory.appendingPathComponent("flashes.mp4")
        try kind.write(to: input)
        for (name, options) in [("plain", [String]()), ("fragmented", ["--fragment-interval", "2"]),
                                ("fragmented-ultrafast", ["--fragment-interval", "2", "--preset", "ultrafast"])] {
            let output = directory.appendingPathComponent("\(name).mp4")
            let result = try ProcessRunner.reel(["transcode", input.path, "-o", output.path] + options)
            try #require(result.status == 0, "\(name): \(result.standardError)")
            let measured = try SyncMeter.measure(output)
            let verdict = SyncMeter.judge(measured, expected: kind.events, duration: kind.pictureSeconds)
            print("transcode \(name): \(verdict), picture from \(measured.videoStart) s, sound from \(measured.audioStart) s")
            #expect(verdict.failures().isEmpty, "\(name): \(verdict.failures())")
            #expect(verdict.worstPlacement < 0.001, "\(name): flashes off their times by \(verdict.placements)")
            #expect(abs(measured.videoStart) < 0.001 && abs(measured.audioStart) < 0.001,
                    "\(name): picture from \(measured.videoStart) s, sound from \(measured.audioStart) s")
            #expect(try FFprobe.countFrames(output) == 150, "\(name)")
            #expect(abs(measured.videoEnd - kind.pictureSeconds) < 0.001, "\(name): the picture ends at \(measured.videoEnd) s")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(name).partial.mp4").path))
        }
    }

    /// A phone's portrait clip (stored on its side with a 90° display matrix) transcoded into
    /// Matroska or WebM, which carry no matrix here, comes out upright in its pixels: 90x160
    /// with its bright half on top, as FFmpeg shows the source. (It came out 160x90, on its side.)
    @Test(arguments: [("mkv", "h264"), ("webm", "vp9")])
    func aPortraitClipStaysUprightInAContainerWithoutAMatrix(_ container: String, _ codec: String) throws {
        let phone = directory.appendingPathComponent("phone-\(container).mp4")
        try PortraitClip.write(to: phone, width: 90, height: 160, seconds: 1)
        let output = directory.appendingPathComponent("phone.\(container)")
        let result = try ProcessRunner.reel(["transcode", phone.path, "-o", output.path, "--codec", codec])
        try #require(result.status == 0, "\(result.standardError)")
        let video = try #require(try FFprobe.probe(output).streams(ofType: "video").first)
        #expect(video.width == 90 && video.height == 160, "\(video.width ?? 0)x\(video.height ?? 0)")
        for (file, label) in [(output, "the \(container)"), (phone, "the source")] {
            let (top, bottom) = try PortraitClip.halves(of: file, width: 90, height: 160)
            #expect(top > 200 && bottom < 40, "\(label): top half \(top), bottom half \(bottom)")
        }
    }
}

import Foundation
import ReelTestSupport
import Testing

/// Chunked exports (issue 20): `reel plan`'s cut list, and `--jobs N` (chunks rendered in
/// local processes, the sound once, a join by stream copy) against a single render of the
/// same composition: the same frames (counted, and each within 40 dB PSNR by ffmpeg's psnr
/// filter), the same length by ffprobe, flash and click together at the joins (the sync
/// suite's measure), the index in front.
@Suite struct ChunkedExportTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-chunks")
    }

    /// Three 3 s clips (320x180, 25 fps, each with a tone), a music file, and a spec with two
    /// dissolves, an overlay whose opacity is animated from 5.5 s to 6.5 s, and the music.
    private func spec(preset: String = "highest") throws -> URL {
        for index in 0..<3 {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=3",
                                      "-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * index):sample_rate=48000:duration=3",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                      directory.appendingPathComponent("clip\(index).mp4").path])
        }
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=880:sample_rate=44100:duration=10", "-c:a", "aac",
                                  directory.appendingPathComponent("music.m4a").path])
        let json = """
            {
              "preset": "\(preset)", "frameRate": 25,
              "clips": [
                { "file": "clip0.mp4", "transition": { "type": "dissolve", "duration": 1 } },
                { "file": "clip1.mp4", "transition": { "type": "push", "duration": 1 } },
                { "file": "clip2.mp4" }
              ],
              "overlays": [
                { "type": "color", "color": "#ffff00", "opacity": 0, "frame": { "x": 10, "y": 10, "width": 40, "height": 40 },
                  "animations": [ { "property": "opacity", "values": [0, 1, 0], "begin": 5.5, "duration": 1 } ] }
              ],
              "audio": { "volume": 0.8, "music": { "file": "music.m4a", "volume": 0.3, "fadeIn": 1 } }
            }
            """
        let url = directory.appendingPathComponent("spec.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    private struct Job: Decodable {
        struct Time: Decodable {
            var value: Int64
            var timescale: Int32
            var seconds: Double
        }

        struct Chunk: Decodable {
            var index: Int
            var start: Time
            var end: Time
            var frames: Int
            var file: String
        }

        var chunks: [Chunk]
        var framesPerGOP: Int
        var keptWhole: [[Double]]
        var duration: Time
        var output: String
        var sound: String?
    }

    private func job(_ folder: URL) throws -> Job {
        try JSONDecoder().decode(Job.self, from: Data(contentsOf: folder.appendingPathComponent("job.json")))
    }

    /// Each frame's PSNR (the average over the planes) of `b` against `a`, by ffmpeg's psnr filter.
    private func psnr(_ a: URL, _ b: URL) throws -> [Double] {
        let log = directory.appendingPathComponent("psnr-\(UUID().uuidString.prefix(6)).log")
        try ProcessRunner.ffmpeg(["-i", a.path, "-i", b.path, "-lavfi", "[0:v][1:v]psnr=stats_file=\(log.path)", "-f", "null", "-"])
        let text = try String(contentsOf: log, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("psnr_avg:") }) else { return nil }
            let value = field.dropFirst("psnr_avg:".count)
            return value == "inf" ? Double.infinity : Double(value)
        }
    }

    @Test func planCutsOnTheGOPGridOutsideTransitionsAndOverlays() throws {
        let spec = try spec()
        let folder = directory.appendingPathComponent("job")
        let result = try ProcessRunner.reel(["plan", spec.path, "--chunks", "4", "--no-smart", "-o", folder.path])
        #expect(result.status == 0, "\(result.standardError)")
        print(result.standardOutput)
        let job = try job(folder)
        // 3 + 3 + 3 - 1 - 1 = 7 s at 25 fps.
        #expect(job.chunks.reduce(0) { $0 + $1.frames } == 175)
        #expect(abs(job.duration.seconds - 7) < 1e-9)
        #expect(job.chunks.count == 4)
        #expect(job.sound == "sound.mp4")
        // Longest first.
        #expect(job.chunks.map(\.frames) == job.chunks.map(\.frames).sorted(by: >))
        // Together they tile the timeline, each starting on the GOP grid and outside the windows.
        let ordered = job.chunks.sorted { $0.start.seconds < $1.start.seconds }
        #expect(ordered.first?.start.value == 0)
        #expect(abs((ordered.last?.end.seconds ?? 0) - 7) < 1e-9)
        for (a, b) in zip(ordered, ordered.dropFirst()) { #expect(a.end.value * Int64(b.start.timescale) == b.start.value * Int64(a.end.timescale)) }
        // The dissolve (2-3 s), the push (4-5 s) and the overlay's animation (5.5-6.5 s).
        let windows = [(2.0, 3.0), (4.0, 5.0), (5.5, 6.5)]
        #expect(job.keptWhole.count == 3)
        for chunk in ordered.dropFirst() {
            let frame = (chunk.start.seconds * 25).rounded()
            #expect(Int(frame) % job.framesPerGOP == 0, "chunk \(chunk.index) starts at frame \(frame), off the \(job.framesPerGOP)-frame grid")
            #expect(!windows.contains { $0.0 < chunk.start.seconds && chunk.start.seconds < $0.1 },
                    "chunk \(chunk.index) starts at \(chunk.start.seconds) s, inside a transition or an animation")
        }

        // The parts by hand, as a cluster's tasks would run them, then the join.
        for chunk in job.chunks {
            let rendered = try ProcessRunner.reel(["render-chunk", folder.path, String(chunk.index)], timeout: 300)
            #expect(rendered.status == 0, "\(rendered.standardError)")
            // Picture only, starting on an IDR frame, as long as planned.
            let file = folder.appendingPathComponent(chunk.file)
            let probe = try FFprobe.probe(file)
            #expect(probe.streams(ofType: "audio").isEmpty)
            #expect(try FFprobe.countFrames(file) == chunk.frames)
            let first = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type,key_frame",
                                                          "-read_intervals", "%+#1", "-of", "csv=p=0", file.path])
            #expect(first.standardOutput.hasPrefix("1,I"), "\(first.standardOutput)")
        }
        let joinedEarly = try ProcessRunner.reel(["join", folder.path])
        #expect(joinedEarly.status == 2 && joinedEarly.standardError.contains("the sound is not rendered"), "\(joinedEarly.standardError)")
        #expect(try ProcessRunner.reel(["render-sound", folder.path], timeout: 300).status == 0)
        let joined = try ProcessRunner.reel(["join", folder.path])
        #expect(joined.status == 0, "\(joined.standardError)")
        #expect(try FFprobe.countFrames(URL(fileURLWithPath: job.output)) == 175)
        let status = try ProcessRunner.reel(["jobs", folder.path])
        #expect(status.status == 0 && status.standardOutput.contains("done"), "\(status.standardOutput)")

        // By length: about 2 s each.
        let bySeconds = try ProcessRunner.reel(["plan", spec.path, "--chunk-seconds", "2", "--no-smart", "-o", folder.path])
        #expect(bySeconds.status == 0, "\(bySeconds.standardError)")
        #expect(try self.job(folder).chunks.count == 4)  // 7 s / 2 s, rounded up
    }

    @Test func jobsTwoMatchesASingleRender() throws {
        let spec = try spec()
        let single = directory.appendingPathComponent("single.mp4")
        let chunked = directory.appendingPathComponent("chunked.mp4")
        let one = try ProcessRunner.reel(["compose", spec.path, "-o", single.path], timeout: 300)
        #expect(one.status == 0, "\(one.standardError)")
        let started = Date()
        let many = try ProcessRunner.reel(["compose", spec.path, "-o", chunked.path, "--jobs", "2"], timeout: 300)
        print(String(format: "compose --jobs 2: %.2f s", Date().timeIntervalSince(started)))
        #expect(many.status == 0, "\(many.standardError)")
        // Nothing left beside the output: the job folder was scratch.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("reel-job") }
        #expect(left.isEmpty, "\(left)")

        #expect(try FFprobe.countFrames(chunked) == FFprobe.countFrames(single))
        let a = try FFprobe.probe(single), b = try FFprobe.probe(chunked)
        #expect(abs((a.duration ?? 0) - (b.duration ?? -1)) < 0.001)
        #expect(abs((b.duration ?? 0) - 7) < 0.001)
        for type in ["video", "audio"] {
            #expect(abs((a.streams(ofType: type).first?.duration ?? 0) - (b.streams(ofType: type).first?.duration ?? -1)) < 0.001, "\(type)")
        }
        let values = try psnr(single, chunked)
        #expect(values.count == 175)
        let worst = values.min() ?? 0
        print(String(format: "chunked against single: worst frame %.2f dB over %d frames", worst, values.count))
        #expect(worst >= 40)
        // moov first, and the file plays.
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: chunked)).map(\.type)
        #expect((boxes.firstIndex(of: "moov") ?? .max) < (boxes.firstIndex(of: "mdat") ?? -1), "\(boxes)")
        if BrowserPlayer.available {
            let report = try BrowserPlayer.play(chunked)
            #expect(report.readyState == 4 && report.error == nil && report.currentTimeAfter > report.currentTimeBefore)
        }
    }

    /// A spec with video layers (a PNG sequence with alpha at 10 fps, a movie with a look and
    /// rounded corners) and looks on clips, as `--jobs 2` renders it: the same frames as a
    /// single render (counted, each within 40 dB PSNR), the same length, the layers in place.
    @Test func jobsTwoRendersLayersAndLooks() throws {
        _ = try spec()
        let frames = directory.appendingPathComponent("dots")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i",
                                  "color=black:s=80x80:r=10:d=3,format=rgba,geq=r=255:g=255:b=0:a='255*clip(20+4*N-hypot(X-39.5\\,Y-39.5)\\,0\\,1)'",
                                  "-start_number", "1", frames.appendingPathComponent("d-%03d.png").path])
        let url = directory.appendingPathComponent("layers.json")
        try Data("""
            {
              "frameRate": 25,
              "clips": [
                { "file": "clip0.mp4", "filters": "PhotoEffectNoir", "transition": { "type": "dissolve", "duration": 1 } },
                { "file": "clip1.mp4", "filters": "SepiaTone", "transition": { "type": "push", "duration": 1 } },
                { "file": "clip2.mp4" }
              ],
              "layers": [
                { "file": "dots/d-%03d.png", "fps": 10, "start": 1.5, "frame": { "x": 220, "y": 10, "width": 80, "height": 80 } },
                { "file": "clip2.mp4", "start": 3, "range": { "start": 0, "end": 2.5 }, "filters": "PhotoEffectMono",
                  "cornerRadius": 10, "frame": { "x": 10, "y": 100, "width": 112, "height": 63 } }
              ]
            }
            """.utf8).write(to: url)
        let single = directory.appendingPathComponent("layers-single.mp4")
        let chunked = directory.appendingPathComponent("layers-chunked.mp4")
        let one = try ProcessRunner.reel(["compose", url.path, "-o", single.path], timeout: 600)
        #expect(one.status == 0, "\(one.standardError)")
        let many = try ProcessRunner.reel(["compose", url.path, "-o", chunked.path, "--jobs", "2"], timeout: 600)
        #expect(many.status == 0, "\(many.standardError)")
        #expect(try FFprobe.countFrames(chunked) == 175)
        #expect(try FFprobe.countFrames(single) == 175)
        let a = try FFprobe.probe(single), b = try FFprobe.probe(chunked)
        #expect(abs((a.duration ?? 0) - (b.duration ?? -1)) < 0.001)
        let values = try psnr(single, chunked)
        #expect(values.count == 175)
        let worst = values.min() ?? 0
        print(String(format: "layers and looks, chunked against single: worst frame %.2f dB over %d frames", worst, values.count))
        #expect(worst >= 40)
        // At 2 s (frame 50) the yellow dot is drawn at (260, 50) in both.
        for movie in [single, chunked] {
            let raw = directory.appendingPathComponent("dot-\(movie.lastPathComponent).rgb")
            try ProcessRunner.ffmpeg(["-y", "-i", movie.path, "-vf", "select=eq(n\\,50),format=rgb24,crop=1:1:260:50", "-frames:v", "1",
                                      "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            let pixel = [UInt8](try Data(contentsOf: raw)).map(Int.init)
            #expect(pixel.count == 3 && pixel[0] > 200 && pixel[1] > 200 && pixel[2] < 60, "\(movie.lastPathComponent): \(pixel)")
        }
    }

    @Test func flashAndClickStayTogetherAtTheJoins() throws {
        // Four 3 s flash-and-click clips merged with 0.4 s dissolves (as the sync suite merges
        // them: 10.8 s), cut in four chunks (at 2, 6 and 8 s): events fall on both sides of every join.
        let kind = FlashClick()
        var clips: [String] = []
        for index in 0..<4 {
            let url = directory.appendingPathComponent("flash\(index).mp4")
            try kind.write(to: url)
            clips.append(url.path)
        }
        let step = kind.pictureSeconds - 0.4
        let events = (0..<4).flatMap { index in kind.events.map { Double(index) * step + $0 } }
        var verdicts: [SyncVerdict] = []
        for jobs in [nil, 2] as [Int?] {
            let out = directory.appendingPathComponent("merged-\(jobs ?? 1).mp4")
            var arguments = ["merge"] + clips + ["--transition", "dissolve:0.4", "-o", out.path]
            if let jobs { arguments += ["--jobs", String(jobs), "--chunks", "4"] }
            let result = try ProcessRunner.reel(arguments, timeout: 300)
            #expect(result.status == 0, "\(result.standardError)")
            let verdict = SyncMeter.judge(try SyncMeter.measure(out), expected: events, duration: 4 * step + 0.4)
            print("sync merge \(jobs.map { "--jobs \($0)" } ?? "single"): \(verdict)")
            #expect(verdict.failures().isEmpty, "\(verdict.failures())")
            verdicts.append(verdict)
        }
        // The chunked file's sound sits on its picture exactly as the single render's does.
        #expect(verdicts[1].offsets.count == verdicts[0].offsets.count)
        for (a, b) in zip(verdicts[0].offsets, verdicts[1].offsets) { #expect(abs(a - b) < 0.0005, "\(a) vs \(b)") }
        #expect(verdicts[1].worstOffset < 0.0005, "\(verdicts[1])")
    }

    /// SIGTERM to a `--jobs 2` export stops its workers with it and leaves nothing: no output,
    /// no job folder, no worker's temporary file. (The workers went on rendering, and the
    /// scratch job folder stayed, after the command had exited 143.)
    @Test func aSignalStopsTheWorkersAndLeavesNothing() throws {
        let folder = directory.appendingPathComponent("signalled")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var clips: [String] = []
        for index in 0..<2 {
            let clip = directory.appendingPathComponent("long-\(index).mp4")
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=12", "-c:v", "libx264",
                                      "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip.path])
            clips.append(clip.path)
        }
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["merge"] + clips + ["--jobs", "2", "--no-smart", "--preset", "1280x720", "-o",
                                                 folder.appendingPathComponent("out.mp4").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let parent = process.processIdentifier
        // The workers: processes whose parent is the command.
        func children() -> [pid_t] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name -> pid_t? in
                guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return nil }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 2 && pid_t(fields[1]) == parent ? pid : nil
            }
        }
        var workers: [pid_t] = []
        let deadline = Date().addingTimeInterval(120)
        while workers.isEmpty, process.isRunning, Date() < deadline {
            usleep(100_000)
            workers = children()
        }
        try #require(!workers.isEmpty, "no worker started (the command \(process.isRunning ? "is running" : "ended"))")
        usleep(500_000)
        kill(parent, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 143, "exit \(process.terminationStatus)")
        let gone = Date().addingTimeInterval(2)
        var alive = workers
        while !alive.isEmpty, Date() < gone {
            alive = alive.filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
                return !stat.contains(") Z ")
            }
            usleep(100_000)
        }
        #expect(alive.isEmpty, "workers \(alive) of \(workers) still running after the command exited")
        usleep(300_000)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.isEmpty, "left \(left)")
    }

    @Test func badRequestsGiveOneLine() throws {
        let spec = try spec()
        let out = directory.appendingPathComponent("x.mp4").path
        let plain = directory.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: plain)
        let broken = directory.appendingPathComponent("broken.json")
        try Data(#"{ "clips": [ { "file": "missing.mp4" } ] }"#.utf8).write(to: broken)
        let empty = directory.appendingPathComponent("empty-folder")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let cases: [([String], Int32, String)] = [
            (["plan", spec.path, "--chunks", "0", "-o", directory.appendingPathComponent("j").path], 1, "--chunks wants a whole number"),
            (["plan", spec.path, "--chunks", "many", "-o", directory.appendingPathComponent("j").path], 1, "--chunks wants a whole number"),
            (["plan", spec.path, "--chunk-seconds", "0", "-o", directory.appendingPathComponent("j").path], 1, "--chunk-seconds wants"),
            (["plan", spec.path, "--chunks", "2", "--chunk-seconds", "2", "-o", directory.appendingPathComponent("j").path], 1, "not both"),
            (["plan", spec.path, "-o", directory.appendingPathComponent("j").path], 1, "needs --chunks N or --chunk-seconds S"),
            (["plan", spec.path, "--chunks", "2"], 1, "needs -o JOB/"),
            (["plan", spec.path, "--chunks", "2", "-o", plain.appendingPathComponent("job").path], 2, "does not exist"),
            (["plan", spec.path, "--chunks", "2", "-o", plain.path], 2, "exists and is not a folder"),
            (["plan", spec.path, "--chunks", "2", "-o", "/proc/reel-job"], 2, "cannot be made"),
            (["plan", broken.path, "--chunks", "2", "-o", directory.appendingPathComponent("j").path], 2, "clips[0]"),
            (["plan", spec.path, "--chunks", "2", "--preset", "passthrough", "-o", directory.appendingPathComponent("j").path], 2,
             "nothing to cut"),
            (["compose", spec.path, "-o", out, "--jobs", "0"], 1, "--jobs wants a whole number"),
            (["compose", spec.path, "-o", out, "--chunks", "3"], 1, "go with --jobs N or --slurm"),
            (["compose", spec.path, "-o", out, "--jobs", "2", "--slurm"], 1, "not both"),
            (["compose", broken.path, "-o", out, "--jobs", "2"], 2, "clips[0]"),
            (["compose", spec.path, "-o", directory.appendingPathComponent("none/x.mp4").path, "--jobs", "2"], 2, "does not exist"),
            (["render-chunk", directory.appendingPathComponent("nowhere").path, "0"], 2, "no such job folder"),
            (["render-chunk", empty.path, "0"], 2, "holds no job.json"),
            (["join", empty.path], 2, "holds no job.json"),
            (["jobs", directory.appendingPathComponent("nowhere").path], 2, "no such job folder"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 120)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        // More chunks than half-second GOPs: the GOP stops at half a second (13 frames at 25 fps)
        // rather than going down to one frame, and fewer chunks come out.
        let many = directory.appendingPathComponent("many")
        let planned = try ProcessRunner.reel(["plan", spec.path, "--chunks", "10000", "--no-smart", "-o", many.path])
        #expect(planned.status == 0, "\(planned.standardError)")
        let manyJob = try job(many)
        #expect(manyJob.framesPerGOP == 13)
        #expect((2...14).contains(manyJob.chunks.count), "\(manyJob.chunks.count) chunks")
        #expect(manyJob.chunks.reduce(0) { $0 + $1.frames } == 175)
        // A chunk index out of range is a usage error (exit 1: a cluster task never retries it).
        let folder = directory.appendingPathComponent("job")
        #expect(try ProcessRunner.reel(["plan", spec.path, "--chunks", "2", "-o", folder.path]).status == 0)
        let outOfRange = try ProcessRunner.reel(["render-chunk", folder.path, "7"])
        #expect(outOfRange.status == 1 && outOfRange.standardError.contains("INDEX is a chunk from 0 to 1"), "\(outOfRange.standardError)")
        // A job.json changed by hand (it lives in a shared folder) is refused, not trusted.
        let jobURL = folder.appendingPathComponent("job.json")
        let text = try String(contentsOf: jobURL, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""framesPerGOP" : "#, with: #""framesPerGOP" : 9999999"#).utf8).write(to: jobURL)
        let tampered = try ProcessRunner.reel(["render-chunk", folder.path, "0"])
        #expect(tampered.status == 2 && tampered.standardError.contains("out of range"), "\(tampered.standardError)")
        #expect(tampered.standardError.split(separator: "\n").count == 1)
    }
}

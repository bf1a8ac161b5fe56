import Foundation
import ReelTestSupport
import Testing

/// Smart chunks (issues 20 and 21): `--jobs 2` of a composition that smart render can mostly
/// copy cuts where the smart render's copied GOPs and rendered runs begin, renders each chunk
/// as its part of the whole smart render, and joins them into what a single smart render
/// writes: the same frames (copied ones bit-identical, decoded checksums by ffmpeg), the same
/// numbers drawn in the pictures, the same lengths by ffprobe, the in-band parameter sets
/// (`avc3`) stated again at every join, moov first, and no decoding error.
@Suite struct SmartChunkTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-smart-chunks")
    }

    private func ffprobe(_ arguments: [String]) throws -> String {
        try ProcessRunner.run("ffprobe", ["-v", "error"] + arguments).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The copied and rendered frame ranges `--explain` printed: (action, first frame, last frame).
    private func explained(_ text: String) -> [(String, Int, Int)] {
        // "  copy        0.000 -     1.033 s  frames      0-    30  a.mp4 from 0.000 s"
        text.split(separator: "\n").compactMap { line in
            guard let action = line.split(separator: " ").first, ["copy", "render"].contains(action),
                  let at = line.range(of: "frames") else { return nil }
            let parts = line[at.upperBound...].split(separator: "-", maxSplits: 1)
            guard parts.count == 2, let first = Int(parts[0].trimmingCharacters(in: .whitespaces)),
                  let last = parts[1].split(separator: " ").first.flatMap({ Int($0) }) else { return nil }
            return (String(action), first, last)
        }
    }

    /// Three numbered clips (the middle one at another CRF: its parameter sets differ and go
    /// in the stream), 0.5 s dissolves, a title fading over the first clip; with `--jobs 2`
    /// in 4 chunks against one smart render.
    @Test func smartChunksJoinIntoTheSingleSmartRender() throws {
        _ = try NumberedClips.make("a.mp4", in: directory, offset: 0, seconds: 4, crf: 23)
        _ = try NumberedClips.make("b.mp4", in: directory, offset: 128, seconds: 3, crf: 30)
        _ = try NumberedClips.make("c.mp4", in: directory, offset: 64, seconds: 4, crf: 23)
        let json = """
            { "preset": "highest", "frameRate": 30,
              "clips": [ { "file": "a.mp4", "transition": { "type": "dissolve", "duration": 0.5 } },
                         { "file": "b.mp4", "transition": { "type": "dissolve", "duration": 0.5 } },
                         { "file": "c.mp4" } ],
              "overlays": [ { "type": "color", "color": "#ffff00", "opacity": 0, "frame": { "x": 10, "y": 120, "width": 60, "height": 40 },
                              "animations": [ { "property": "opacity", "values": [0, 1, 0], "begin": 1, "duration": 0.5 } ] } ] }
            """
        let spec = directory.appendingPathComponent("spec.json")
        try Data(json.utf8).write(to: spec)

        let single = directory.appendingPathComponent("single.mp4")
        let one = try ProcessRunner.reel(["compose", spec.path, "-o", single.path, "--explain"], timeout: 300)
        #expect(one.status == 0, "\(one.standardError)")
        let chunked = directory.appendingPathComponent("chunked.mp4")
        let folder = directory.appendingPathComponent("job")
        let many = try ProcessRunner.reel(["compose", spec.path, "-o", chunked.path, "--jobs", "2", "--chunks", "4",
                                           "--job-dir", folder.path, "--explain"], timeout: 300)
        #expect(many.status == 0, "\(many.standardError)")
        let summary = one.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        print("smart chunks: single \(summary); chunked \(many.standardOutput.split(separator: "\n").first ?? "")")
        #expect(summary.hasPrefix("smart render:") && !summary.contains(" 0 of"), "\(one.standardOutput)")

        // 4 + 3 + 4 s less two 0.5 s dissolves: 10 s, 300 frames.
        let ranges = explained(one.standardOutput)
        #expect(ranges.last?.2 == 299, "\(one.standardOutput)")
        let jobText = try String(contentsOf: folder.appendingPathComponent("job.json"), encoding: .utf8)
        #expect(jobText.contains(#""smart" : true"#), "\(jobText)")
        struct Job: Decodable {
            struct Chunk: Decodable {
                struct Time: Decodable { var seconds: Double }
                var start: Time
                var frames: Int
            }
            var chunks: [Chunk]
        }
        let job = try JSONDecoder().decode(Job.self, from: Data(jobText.utf8))
        #expect(job.chunks.count == 4)
        #expect(job.chunks.reduce(0) { $0 + $1.frames } == 300)
        // Each cut falls where a rendered run begins or on a copied GOP's first frame (the
        // copies start on a source keyframe, and the sources have one every 30 frames).
        for chunk in job.chunks where chunk.start.seconds > 0 {
            let frame = Int((chunk.start.seconds * 30).rounded())
            let clean = ranges.contains { action, first, last in
                action == "render" ? frame == first : (first...last).contains(frame) && (frame - first) % 30 == 0
            }
            #expect(clean, "chunk at frame \(frame) starts inside a copied GOP or a rendered run: \(one.standardOutput)")
        }

        // The same frames: copied ones bit-identical, every one within 40 dB (rendered ones are
        // encoded again by the chunk, as the single render encodes them), the same numbers.
        let x = try NumberedClips.checksums(single), y = try NumberedClips.checksums(chunked)
        #expect(x.count == 300 && y.count == 300)
        var copied = 0, identical = 0
        for (action, first, last) in ranges where action == "copy" {
            for frame in first...last where frame < min(x.count, y.count) {
                copied += 1
                #expect(x[frame] == y[frame], "copied frame \(frame) differs from the single smart render's")
            }
        }
        identical = zip(x, y).filter { $0 == $1 }.count
        print("smart chunks: \(copied) of 300 frames copied (\(300 - copied) re-encoded, \(String(format: "%.1f", Double(300 - copied) / 3))%); \(identical) of 300 decode identical to the single smart render's")
        #expect(copied > 150)
        let worst = try FramePSNR.values(single, chunked, in: directory).min() ?? 0
        print(String(format: "smart chunks: worst frame %.2f dB against the single smart render", worst))
        #expect(worst >= 40)
        let numbers = try NumberedClips.frameNumbers(single, scratch: directory)
        let chunkNumbers = try NumberedClips.frameNumbers(chunked, scratch: directory)
        let dissolves = ranges.filter { $0.0 == "render" }.flatMap { Array($0.1...$0.2) }
        let differing = numbers.indices.filter { !dissolves.contains($0) && numbers[$0] != chunkNumbers[$0] }
        #expect(differing.isEmpty, "frames showing another number than in the single render: \(differing.prefix(10))")

        // The stream as the single smart render's: in-band sets (avc3), no decoding error, the same lengths, moov first.
        let tag = ["-select_streams", "v:0", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0"]
        #expect(try ffprobe(tag + [single.path]) == "avc3")
        #expect(try ffprobe(tag + [chunked.path]) == "avc3")
        let decoding = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", chunked.path, "-f", "null", "-"])
        #expect(decoding.status == 0 && decoding.standardError.isEmpty, "\(decoding.standardError)")
        let p = try FFprobe.probe(single), q = try FFprobe.probe(chunked)
        for type in ["video", "audio"] {
            #expect(abs((p.streams(ofType: type).first?.duration ?? 0) - (q.streams(ofType: type).first?.duration ?? -1)) < 0.001, "\(type)")
        }
        #expect(abs((q.duration ?? 0) - 10) < 0.001)
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: chunked)).map(\.type)
        #expect((boxes.firstIndex(of: "moov") ?? .max) < (boxes.firstIndex(of: "mdat") ?? -1), "\(boxes)")
        if BrowserPlayer.available {
            let report = try BrowserPlayer.play(chunked)
            #expect(report.readyState == 4 && report.error == nil && report.currentTimeAfter > report.currentTimeBefore)
        }

        // --no-smart chunks render every frame, on the GOP grid.
        let full = try ProcessRunner.reel(["plan", spec.path, "--chunks", "4", "--no-smart", "-o", directory.appendingPathComponent("full").path])
        #expect(full.status == 0 && full.standardOutput.contains("GOP"), "\(full.standardOutput)\(full.standardError)")
    }
}

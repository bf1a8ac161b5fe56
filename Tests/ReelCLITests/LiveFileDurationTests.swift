import Foundation
import ReelTestSupport
import Testing

/// Files whose header has no duration (a browser's MediaRecorder WebM, Matroska written to a
/// pipe) are seen whole by every command: each output lasts as long as the source.
@Suite struct LiveFileDurationTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-live-duration")
    }

    /// Runs `reel`; true when it wrote its output (the export check refusing it is a failure).
    private func wrote(_ arguments: [String]) throws -> Bool {
        let result = try ProcessRunner.reel(arguments)
        #expect(result.status == 0, "\(result.standardError)")
        return result.status == 0
    }

    private func probe(_ url: URL) throws -> (video: Double, audio: Double, frames: Int) {
        let probe = try FFprobe.probe(url)
        // Within 0.1 s here: this suite is about seeing the file whole (before, 0.015 s of it).
        // Matroska's AAC keeps its 1024 priming samples (4.031 s of sound under 4 s of picture),
        // and a clip lasting as long as its picture is another fix (issue 14, item 4).
        return (probe.streams(ofType: "video").first?.duration ?? 0, probe.streams(ofType: "audio").first?.duration ?? 0,
                try FFprobe.countFrames(url))
    }

    @Test(arguments: ["webm", "matroska"])
    func everyCommandSeesTheWholeFile(format: String) throws {
        let source = try TestClips.live(format, seconds: 4, in: directory)
        #expect(try FFprobe.probe(source).duration == nil, "the fixture must lack a duration, as a live file does")

        let probed = try ProcessRunner.reel(["probe", "--json", source.path])
        #expect(probed.status == 0, "\(probed.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(probed.standardOutput.utf8)) as? [[String: Any]])
        let duration = try #require(json.first?["duration"] as? Double)
        #expect(abs(duration - 4) <= 0.05, "probe: \(duration) s")

        let exported = directory.appendingPathComponent("export-\(format).mp4")
        if try wrote(["export", source.path, "--preset", "640x480", "-o", exported.path]) {
            let seen = try probe(exported)
            #expect(abs(seen.video - 4) <= 0.1 && abs(seen.audio - 4) <= 0.1, "export: \(seen)")
            #expect(abs(seen.frames - 100) <= 1, "export: \(seen.frames) frames")
        }

        let merged = directory.appendingPathComponent("merge-\(format).mp4")
        if try wrote(["merge", source.path, source.path, "-o", merged.path, "--transition", "dissolve:1"]) {
            let seen = try probe(merged)
            #expect(abs(seen.video - 7) <= 0.1 && abs(seen.audio - 7) <= 0.1, "merge: \(seen)")
        }

        let spec = directory.appendingPathComponent("spec-\(format).json")
        try Data("""
            {"clips": [{"file": "\(source.lastPathComponent)", "transition": {"type": "dissolve", "duration": 1}},
                       {"file": "\(source.lastPathComponent)", "range": {"start": 1, "end": 3.5}}]}
            """.utf8).write(to: spec)
        let composed = directory.appendingPathComponent("compose-\(format).mp4")
        if try wrote(["compose", spec.path, "-o", composed.path]) {
            let seen = try probe(composed)
            #expect(abs(seen.video - 5.5) <= 0.1 && abs(seen.audio - 5.5) <= 0.1, "compose: \(seen)")
        }

        let faster = directory.appendingPathComponent("speed-\(format).mp4")
        if try wrote(["speed", source.path, "--rate", "2", "-o", faster.path]) {
            let seen = try probe(faster)
            #expect(abs(seen.video - 2) <= 0.1 && abs(seen.audio - 2) <= 0.1, "speed: \(seen)")
        }
    }

    /// The contact sheet's twelve cells show twelve moments: the fixture's brightness rises
    /// 50 levels a second, so each cell is brighter than the one before.
    @Test(arguments: ["webm", "matroska"])
    func contactSheetSpansTheWholeFile(format: String) throws {
        let source = try TestClips.live(format, seconds: 4, in: directory)
        let sheet = directory.appendingPathComponent("sheet-\(format).png")
        let result = try ProcessRunner.reel(["contact-sheet", source.path, "-o", sheet.path, "--columns", "4", "--rows", "3"])
        #expect(result.status == 0, "\(result.standardError)")
        // The sheet's layout (ContactSheet): 8 px padding, a 44 px header, cells 320 wide with a
        // 24 px label; a 160x90 picture is centred in its cell.
        let raw = directory.appendingPathComponent("sheet-\(format).gray")
        try ProcessRunner.ffmpeg(["-i", sheet.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let pixels = try Data(contentsOf: raw)
        let width = 8 + 4 * (320 + 8)
        let levels = (0..<12).map { cell -> Int in
            let x = 8 + (cell % 4) * 328 + 160, y = 44 + (cell / 4) * (90 + 24 + 8) + 45
            let index = y * width + x
            return pixels.indices.contains(index) ? Int(pixels[index]) : -1
        }
        for (earlier, later) in zip(levels, levels.dropFirst()) {
            #expect(later > earlier + 8, "cells \(levels): the sheet repeats a moment")
        }
        #expect(levels[11] - levels[0] >= 150, "cells \(levels): the sheet does not reach the end of the file")
    }
}

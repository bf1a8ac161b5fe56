import Foundation
import ReelTestSupport
import Testing

/// `reel batch MANIFEST.tsv` (issue 20): a spec and files, one a line with per-line presets,
/// rendered locally with `--jobs 2` and as a Slurm job array; a line that fails does not
/// stop the others and is named in one line; a bad manifest is refused before anything renders.
@Suite(.serialized) struct BatchCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-batch")
    }

    /// Two clips, a spec merging them, and a file that is not media, in a manifest.
    private func manifest(broken: Bool) throws -> URL {
        for index in 0..<2 {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2",
                                      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                      directory.appendingPathComponent("clip\(index).mp4").path])
        }
        try Data(#"{ "clips": [ { "file": "clip0.mp4" }, { "file": "clip1.mp4" } ] }"#.utf8)
            .write(to: directory.appendingPathComponent("both.json"))
        try Data("not a movie".utf8).write(to: directory.appendingPathComponent("text.mp4"))
        var lines = ["# uploads", "both.json\tout/both.mp4", "clip0.mp4\tout/small.mp4\tlow", "clip1.mp4\tout/copy.mp4"]
        if broken { lines.append("text.mp4\tout/text.mp4") }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("out"), withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("uploads.tsv")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        return url
    }

    private func checkOutputs() throws {
        let out = directory.appendingPathComponent("out")
        #expect(try FFprobe.countFrames(out.appendingPathComponent("both.mp4")) == 100)
        // The per-line preset: low fits 640x360 and never scales up, so 320 wide.
        #expect(try FFprobe.probe(out.appendingPathComponent("small.mp4")).streams(ofType: "video").first?.width == 320)
        #expect(try FFprobe.countFrames(out.appendingPathComponent("copy.mp4")) == 50)
    }

    @Test func batchWithJobsTwo() throws {
        let manifest = try manifest(broken: true)
        let result = try ProcessRunner.reel(["batch", manifest.path, "--jobs", "2"], timeout: 300)
        #expect(result.status == 2)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("out/text.mp4 failed"), "\(result.standardError)")
        #expect(result.standardOutput.contains("3 of 4 written"), "\(result.standardOutput)")
        try checkOutputs()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/text.mp4").path))
    }

    @Test func badManifestsAreRefusedBeforeRendering() throws {
        let manifest = try manifest(broken: false)
        let cases: [(String, String)] = [
            ("both.json", "wants INPUT<TAB>OUTPUT[<TAB>PRESET]"),
            ("nowhere.mp4\tout/x.mp4", "does not exist"),
            ("clip0.mp4\tout/x.webm", "must end in .mp4"),
            ("clip0.mp4\tout/x.mp4\thuge", "the preset is one of"),
            ("clip0.mp4\tout/x.mp4\nclip1.mp4\tout/x.mp4", "as line"),
            // Nothing a batch reads is written over: neither a line's own input nor another line's.
            ("clip1.mp4\tclip1.mp4", "would overwrite the input of line 2"),
            ("clip1.mp4\tclip0.mp4", "would overwrite the input of line 1"),
            // Found before anything renders: a missing folder, a name no file system takes, and
            // one file written by two lines through a symbolic link to its folder.
            ("clip1.mp4\tnowhere/x.mp4", "nowhere does not exist"),
            ("clip1.mp4\tout/" + String(repeating: "n", count: 300) + ".mp4", "longer than a file name"),
            ("clip1.mp4\tlinked/first.mp4", "as line 1 does"),
        ]
        try? FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("linked"),
                                                    withDestinationURL: directory.appendingPathComponent("out"))
        for (text, expected) in cases {
            let bad = directory.appendingPathComponent("bad.tsv")
            try Data(("clip0.mp4\tout/first.mp4\n" + text + "\n").utf8).write(to: bad)
            let result = try ProcessRunner.reel(["batch", bad.path, "--jobs", "2"])
            #expect(result.status == 2, "\(text): \(result.standardError)")
            #expect(result.standardError.contains(expected) && result.standardError.split(separator: "\n").count == 1,
                    "\(text): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/first.mp4").path))
        }
        // A manifest with Windows line endings reads as one with Unix ones (its CR was taken
        // for part of the last field): checked with a bad preset, refused by its own name.
        let crlf = directory.appendingPathComponent("crlf.tsv")
        try Data("clip0.mp4\tout/first.mp4\tlow\r\nclip1.mp4\tout/x.mp4\tnope\r\n".utf8).write(to: crlf)
        let windows = try ProcessRunner.reel(["batch", crlf.path, "--jobs", "2"])
        #expect(windows.status == 2 && windows.standardError.contains("crlf.tsv:2") && windows.standardError.contains("not 'nope'"),
                "\(windows.standardError)")
        let usage = try ProcessRunner.reel(["batch", manifest.path, "--jobs", "2", "--slurm"])
        #expect(usage.status == 1 && usage.standardError.contains("not both"), "\(usage.standardError)")
        let missing = try ProcessRunner.reel(["batch", directory.appendingPathComponent("none.tsv").path])
        #expect(missing.status == 2 && missing.standardError.contains("cannot be read"), "\(missing.standardError)")
    }

    @Test(.enabled(if: SlurmCluster.available, "\(SlurmCluster.missing)"))
    func batchOnSlurm() throws {
        let cluster = try SlurmCluster()
        defer { cluster.stop() }
        let manifest = try manifest(broken: true)
        let result = try ProcessRunner.run(Paths.reelBinary.path, ["batch", manifest.path, "--slurm", "--job-dir",
                                                                   directory.appendingPathComponent("job").path],
                                           timeout: 300, environment: cluster.environment)
        #expect(result.status == 2, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").filter { !$0.hasPrefix("reel: submitted") }
        #expect(lines.count == 1 && lines[0].contains("out/text.mp4 failed"), "\(result.standardError)")
        try checkOutputs()
    }
}

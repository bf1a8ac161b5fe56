import Foundation
import ReelTestSupport
import Testing

/// `reel probe` run as a user runs it: the built binary, its output and exit status.
@Suite struct ProbeCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-probe")
    }

    private func json(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func jsonHasTheStableShape() throws {
        let clip = try TestClips.rotated(270, in: directory)
        let result = try ProcessRunner.reel(["probe", "--json", clip.path])
        #expect(result.status == 0)
        let file = try #require(try json(result.standardOutput).first)
        #expect(file["file"] as? String == clip.path)
        let duration = try #require(file["duration"] as? Double)
        #expect(abs(duration - (try FFprobe.probe(clip).duration ?? 0)) < 0.001)
        let tracks = try #require(file["tracks"] as? [[String: Any]])
        let video = try #require(tracks.first { $0["mediaType"] as? String == "video" })
        #expect(video["index"] as? Int == 0)
        #expect(video["codec"] as? String == "h264")
        #expect(video["rotation"] as? Int == 90)
        let size = try #require(video["naturalSize"] as? [String: Int])
        #expect(size == ["width": 320, "height": 240])
        #expect(abs((video["nominalFrameRate"] as? Double ?? 0) - 25) < 0.01)
        let audio = try #require(tracks.first { $0["mediaType"] as? String == "audio" })
        #expect(audio["sampleRate"] as? Int == 48000)
        #expect(audio["channels"] as? Int == 1)
        #expect(file["error"] == nil)
    }

    @Test func readableSummary() throws {
        let clip = try TestClips.rotated(90, in: directory)
        let result = try ProcessRunner.reel(["probe", clip.path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("video h264 (Constrained Baseline) 320x240 rotated 270°, 25 fps, 25 frames"))
        #expect(result.standardOutput.contains("audio aac (LC) 48000 Hz mono"))
    }

    @Test func badFilesGiveOneLineEachAndExitTwo() throws {
        let empty = directory.appendingPathComponent("empty.mp4")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        let text = directory.appendingPathComponent("text.mp4")
        try "not a movie".write(to: text, atomically: true, encoding: .utf8)
        let good = try TestClips.rotated(0, in: directory)
        let missing = directory.appendingPathComponent("missing.mp4")
        let result = try ProcessRunner.reel(["probe", "--json", empty.path, good.path, text.path, missing.path, directory.path],
                                            timeout: 30)
        #expect(result.status == 2)
        #expect(!result.timedOut && !result.crashed)
        let files = try json(result.standardOutput)
        #expect(files.count == 5)
        #expect(files.map { $0["error"] == nil } == [false, true, false, false, false])
        #expect((files[0]["error"] as? String)?.contains("empty") == true)
        #expect((files[4]["error"] as? String)?.contains("is a directory") == true)

        let plain = try ProcessRunner.reel(["probe", empty.path, text.path, missing.path, directory.path], timeout: 30)
        #expect(plain.status == 2)
        let lines = plain.standardError.split(separator: "\n")
        #expect(lines.count == 4)
        for (line, path) in zip(lines, [empty, text, missing, directory]) {
            #expect(line.hasPrefix("reel probe: \(path.path): "))
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run reel as the unprivileged 'nobody'"))
    func unreadableFileAsAnotherUser() throws {
        let clip = try TestClips.rotated(0, in: directory)
        let locked = URL(fileURLWithPath: "/tmp/reel-locked-\(UUID().uuidString.prefix(6)).mp4")
        try FileManager.default.copyItem(at: clip, to: locked)
        defer { try? FileManager.default.removeItem(at: locked) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: locked.path)
        // setpriv runs reel as nobody; the binary must be reachable for that user.
        let binary = URL(fileURLWithPath: "/tmp/reel-bin-\(UUID().uuidString.prefix(6))")
        try FileManager.default.copyItem(at: Paths.reelBinary, to: binary)
        defer { try? FileManager.default.removeItem(at: binary) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)
        let result = try ProcessRunner.run("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                                       binary.path, "probe", locked.path], timeout: 30)
        #expect(result.status == 2)
        #expect(result.standardError == "reel probe: \(locked.path): permission denied: this user cannot read the file\n")
    }

    @Test func usageErrorsExitOne() throws {
        let unknown = try ProcessRunner.reel(["probe", "--colour"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("unknown option '--colour'"))
        let none = try ProcessRunner.reel(["probe"])
        #expect(none.status == 1)
        let command = try ProcessRunner.reel(["frobnicate"])
        #expect(command.status == 1)
        #expect(command.standardError.contains("unknown command 'frobnicate'"))
    }

    @Test func helpAndVersion() throws {
        let help = try ProcessRunner.reel(["probe", "--help"])
        #expect(help.status == 0 && help.standardOutput.contains("Usage: reel probe FILE..."))
        let overview = try ProcessRunner.reel(["--help"])
        #expect(overview.status == 0 && overview.standardOutput.contains("probe"))
        let version = try ProcessRunner.reel(["--version"])
        #expect(version.status == 0 && version.standardOutput.hasPrefix("reel ") && version.standardOutput.contains("libavformat 59."))
    }
}

import Foundation
import ReelTestSupport
import Testing

@Suite struct CaptureCommandTests {
    @Test func devicesListsTheVirtualOnesAsJSON() throws {
        let result = try ProcessRunner.reel(["devices", "--json"])
        #expect(result.status == 0)
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        // The virtual ones first; then whatever live devices this machine has (an Xvfb a
        // test started, say).
        let ids = devices.compactMap { $0["id"] as? String }
        #expect(Array(ids.prefix(2)) == ["virtual:camera", "virtual:microphone"])
        #expect(ids.dropFirst(2).allSatisfy { ["virtual:front-camera", "pulse:", "alsa:", "x11:", "v4l2:"].contains(where: $0.hasPrefix) },
                "\(ids)")
        #expect((devices[0]["formats"] as? [[String: Any]])?.isEmpty == false)
        #expect(devices[0]["position"] as? String == "back" && devices[1]["mediaType"] as? String == "audio")
    }

    @Test(.disabled(if: DeviceServer.pulseMissing != nil, "needs pulseaudio and pulseaudio-utils (make deps)"))
    func devicesListsAPulseAudioServersSources() throws {
        let server = try DeviceServer.pulseAudio(sink: "reelcli")
        defer { server.stop() }
        let result = try ProcessRunner.run(Paths.reelBinary.path, ["devices"], timeout: 30,
                                           environment: ["PULSE_SERVER": server.pulseServer, "HOME": server.directory.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("pulse:default"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("pulse:reelcli.monitor  Monitor of Null Output (audio, unspecified)"),
                "\(result.standardOutput)")
        let missing = try ProcessRunner.run(Paths.reelBinary.path, ["record", "-o", "/tmp/never.mp4", "--mic", "alsa:reel_none",
                                                                    "--max-duration", "1"], timeout: 30)
        #expect(missing.status != 0)
        let lines = missing.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("alsa:reel_none") == true, "\(missing.standardError)")
    }

    @Test func recordsForAGivenDurationAndStopsCleanlyOnSIGINT() throws {
        let directory = try Paths.temporaryDirectory("reel-cli-record")
        let out = directory.appendingPathComponent("timed.mp4")
        let result = try ProcessRunner.reel(["record", "-o", out.path, "--preset", "low", "--max-duration", "1.5",
                                             "--filter", "PhotoEffectMono"], timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let timed = try FFprobe.probe(out).duration ?? 0
        expectInRealTime { #expect(abs(timed - 1.5) < 0.15, "\(timed) s") }

        let interrupted = directory.appendingPathComponent("interrupted.mp4")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["record", "-o", interrupted.path, "--preset", "low"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Once the recording has begun (its file is there), and a second into it.
        let partial = directory.appendingPathComponent("interrupted.partial.mp4")
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: partial.path), Date() < deadline { usleep(10_000) }
        usleep(1_000_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect((try FFprobe.probe(interrupted).duration ?? 0) > 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["interrupted.mp4", "timed.mp4"])
    }

    @Test func badDevicesAndPresetsGiveOneLine() throws {
        let cases: [([String], Int32, String)] = [
            (["record", "-o", "/tmp/x.mp4", "--device", "v4l2:/dev/video7"], 2, "no such device"),
            (["record", "-o", "/tmp/x.mp4", "--preset", "8k"], 1, "--preset is one of"),
            (["record", "-o", "/tmp/x.mp4", "--fps", "500"], 1, "--fps"),
            (["record", "-o", "/tmp/x.avi"], 1, "must end in"),
            (["record", "-o", "/tmp/x.mp4", "--device", "file:/nonexistent.mp4"], 2, "no such file"),
            (["photo", "-o", "/tmp/x.gif"], 1, "--format is jpeg or png"),
            (["photo", "-o", "/tmp/x.jpg", "--flash", "sometimes"], 1, "--flash is on, off or auto"),
            (["photo", "-o", "/tmp/x.jpg", "--quality", "3"], 1, "--quality"),
            (["photo", "-o", "/no/such/folder/x.jpg"], 2, "/no/such/folder/x.jpg"),
            (["shoot", "-o", "/tmp/x.webm"], 1, "must end in"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 30)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
        }
    }

    @Test func photoWritesAJPEGWithExif() throws {
        let directory = try Paths.temporaryDirectory("reel-cli-photo")
        let out = directory.appendingPathComponent("shot.jpg")
        let result = try ProcessRunner.reel(["photo", "-o", out.path, "--size", "640x360", "--flash", "on"], timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("640x360 JPEG, flash fired"), "\(result.standardError)")
        let video = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
        #expect(video.width == 640 && video.height == 360 && video.codecName == "mjpeg")
        if FileManager.default.fileExists(atPath: "/usr/bin/exiftool") {
            let tags = try ProcessRunner.run("/usr/bin/exiftool", ["-s", "-s", "-s", "-Flash", "-Model", out.path]).standardOutput
            #expect(tags == "On, Fired\nReel Virtual Camera\n", "\(tags)")
        }
    }

    /// `reel shoot` driven by keys on a pipe: record, pause, record, undo, record, save.
    @Test func shootRecordsSegmentsUndoesAndSaves() throws {
        let directory = try Paths.temporaryDirectory("reel-cli-shoot")
        let out = directory.appendingPathComponent("short.mp4")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["shoot", "-o", out.path, "--preset", "640x480"]
        let keys = Pipe(), errors = Pipe()
        process.standardInput = keys
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        func press(_ key: String, thenWait seconds: Double) throws {
            try keys.fileHandleForWriting.write(contentsOf: Data(key.utf8))
            usleep(UInt32(seconds * 1e6))
        }
        usleep(300_000)
        let first = Date()
        try press(" ", thenWait: 1.2)
        let firstHeld = Date().timeIntervalSince(first)
        try press(" ", thenWait: 0.3)
        try press(" ", thenWait: 1.0)
        try press(" ", thenWait: 0.3)
        try press("u", thenWait: 0.3)
        let second = Date()
        try press(" ", thenWait: 0.8)
        let secondHeld = Date().timeIntervalSince(second)
        try press(" ", thenWait: 0.3)
        try press("s", thenWait: 0)
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("from 2 segments"), "\(stderr)")
        let duration = try FFprobe.probe(out).duration ?? 0
        expectInRealTime {
            #expect(abs(duration - (firstHeld + secondHeld)) < 0.5, "\(duration) s for holds of \(firstHeld) and \(secondHeld) s")
        }
        // The segments' folder is gone; only the merged file is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["short.mp4"])
    }
}

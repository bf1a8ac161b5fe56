import Foundation
import ReelTestSupport
import Testing

@Suite struct CaptureCommandTests {
    @Test func devicesListsTheVirtualOnesAsJSON() throws {
        let result = try ProcessRunner.reel(["devices", "--json"])
        #expect(result.status == 0)
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(devices.compactMap { $0["id"] as? String } == ["virtual:camera", "virtual:microphone"])
        #expect((devices[0]["formats"] as? [[String: Any]])?.isEmpty == false)
        #expect(devices[0]["position"] as? String == "back" && devices[1]["mediaType"] as? String == "audio")
    }

    @Test func recordsForAGivenDurationAndStopsCleanlyOnSIGINT() throws {
        let directory = try Paths.temporaryDirectory("reel-cli-record")
        let out = directory.appendingPathComponent("timed.mp4")
        let result = try ProcessRunner.reel(["record", "-o", out.path, "--preset", "low", "--max-duration", "1.5",
                                             "--filter", "PhotoEffectMono"], timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let timed = try FFprobe.probe(out).duration ?? 0
        #expect(abs(timed - 1.5) < 0.15, "\(timed) s")

        let interrupted = directory.appendingPathComponent("interrupted.mp4")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["record", "-o", interrupted.path, "--preset", "low"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(2_000_000)
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
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 30)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
        }
    }
}

import Foundation
import ReelTestSupport
import Testing

/// `reel record --orientation/--stabilization` and `reel photo --orientation`, judged by
/// ffprobe and exiftool; bad values are one line each.
@Suite struct ConnectionOptionTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-connection")
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func recordWritesTheOrientationAsTheDisplayMatrix() throws {
        let out = directory.appendingPathComponent("portrait.mp4")
        let result = try ProcessRunner.reel(["record", "-o", out.path, "--preset", "640x480", "--mic", "none",
                                             "--max-duration", "1", "--orientation", "portrait", "--stabilization", "standard"])
        #expect(result.status == 0, "\(result.standardError)")
        let stream = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
        #expect(stream.rotation == -90 && stream.width == 640 && stream.height == 480, "rotation \(stream.rotation)")
        let probe = try ProcessRunner.reel(["probe", out.path, "--json"])
        #expect(probe.standardOutput.contains("\"rotation\" : 90") || probe.standardOutput.contains("\"rotation\": 90"),
                "\(probe.standardOutput)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/exiftool"), "needs exiftool (make deps)"))
    func photoTakesTheOrientation() throws {
        let out = directory.appendingPathComponent("upside-down.jpg")
        let result = try ProcessRunner.reel(["photo", "-o", out.path, "--orientation", "portrait-upside-down"])
        #expect(result.status == 0, "\(result.standardError)")
        let tags = try ProcessRunner.run("/usr/bin/exiftool", ["-s", "-s", "-s", "-Orientation", out.path])
        #expect(tags.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "Rotate 270 CW")
    }

    @Test func badValuesAreOneLine() throws {
        let out = directory.appendingPathComponent("never.mp4").path
        for (arguments, words) in [(["record", "-o", out, "--orientation", "sideways"], "--orientation is auto"),
                                   (["record", "-o", out, "--stabilization", "wobbly"], "--stabilization is off"),
                                   (["photo", "-o", out + ".jpg", "--orientation", "up"], "--orientation is auto"),
                                   (["record", "-o", out, "--fps", "30", "--playback-fps", "60"], "--playback-fps must be below")] {
            let result = try ProcessRunner.reel(arguments)
            #expect(result.status == 1 && result.standardError.contains(words), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}

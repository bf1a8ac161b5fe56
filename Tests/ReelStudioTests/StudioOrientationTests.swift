import Foundation
import ReelTestSupport
import Testing

/// `reel studio --orientation`: the studio's videos carry the display matrix and its photos
/// the EXIF orientation of the way the device is held, judged by ffprobe and exiftool; a bad
/// value is one line and a nonzero exit.
@Suite struct StudioOrientationTests {
    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func portraitVideosAndPhotosAreMarkedTurned() throws {
        let studio = try StudioProcess(arguments: ["--mic", "none", "--orientation", "portrait"])
        let port = studio.port
        #expect(try RawHTTP.post("/api/segments/start", body: "{}", port: port).status == 200)
        usleep(500_000)
        #expect(try RawHTTP.post("/api/segments/pause", body: "{}", port: port).status == 200)
        // A second segment of the same video keeps the first one's matrix through the merge.
        #expect(try RawHTTP.post("/api/segments/start", body: "{}", port: port).status == 200)
        usleep(300_000)
        #expect(try RawHTTP.post("/api/segments/pause", body: "{}", port: port).status == 200)
        #expect(try RawHTTP.post("/api/segments/save", body: "{}", port: port).status == 200)
        #expect(try RawHTTP.post("/api/photo", body: "{}", port: port).status == 200)
        let names = try FileManager.default.contentsOfDirectory(atPath: studio.library.path).filter { !$0.hasPrefix(".") }
        let video = try #require(names.first { $0.hasSuffix(".mp4") }, "\(names)")
        let stream = try #require(try FFprobe.probe(studio.library.appendingPathComponent(video)).streams(ofType: "video").first)
        // Stored as the sensor sees it (1280×720, nothing re-encoded turned), shown turned.
        #expect(stream.rotation == -90 && stream.width == 1280 && stream.height == 720,
                "rotation \(stream.rotation), \(stream.width ?? 0)x\(stream.height ?? 0)")
        let photo = try #require(names.first { $0.hasSuffix(".jpg") }, "\(names)")
        if FileManager.default.fileExists(atPath: "/usr/bin/exiftool") {
            let tags = try ProcessRunner.run("/usr/bin/exiftool", ["-s", "-s", "-s", "-Orientation",
                                                                   studio.library.appendingPathComponent(photo).path])
            #expect(tags.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "Rotate 90 CW", "\(tags.standardOutput)")
        }
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func landscapeLeftIsNotTurned() throws {
        let studio = try StudioProcess(arguments: ["--mic", "none", "--orientation", "landscape-left"])
        let port = studio.port
        #expect(try RawHTTP.post("/api/segments/start", body: "{}", port: port).status == 200)
        usleep(400_000)
        #expect(try RawHTTP.post("/api/segments/pause", body: "{}", port: port).status == 200)
        #expect(try RawHTTP.post("/api/segments/save", body: "{}", port: port).status == 200)
        let names = try FileManager.default.contentsOfDirectory(atPath: studio.library.path).filter { $0.hasSuffix(".mp4") }
        let video = try #require(names.first, "\(names)")
        let stream = try #require(try FFprobe.probe(studio.library.appendingPathComponent(video)).streams(ofType: "video").first)
        #expect(stream.rotation == 0, "held landscape left (video landscape right, as on iOS) is the sensor's own way: rotation \(stream.rotation)")
    }

    @Test func aBadOrientationIsOneLine() throws {
        let library = try Paths.temporaryDirectory("reel-studio-bad-orientation")
        let result = try ProcessRunner.reel(["studio", "--port", "0", "--library", library.path, "--orientation", "sideways"],
                                            timeout: 20)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("--orientation is auto") && result.standardError.contains("'sideways'"),
                "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(!result.standardOutput.contains("Reel Studio: "))
    }
}

import Foundation
import ReelTestSupport
import Testing

/// `reel studio --orientation`: the live preview shows the picture the way the recording
/// plays, judged in headless Chromium (`Tests/browser/orientation.py`): the preview <img>
/// and the saved video in a <video> have the same shape, and the virtual camera's colour
/// bars run the same way in both (across the sensor's width; down a portrait picture).
@Suite(.serialized) struct StudioPreviewOrientationTests {
    /// Records a short video with the studio held `orientation` and measures the preview
    /// and the recording as Chromium shows them.
    func measure(_ orientation: String) throws -> (preview: [String: Any], recording: [String: Any]) {
        let studio = try StudioProcess(arguments: ["--mic", "none", "--orientation", orientation])
        let port = studio.port
        #expect(try RawHTTP.post("/api/segments/start", body: "{}", port: port).status == 200)
        usleep(1_200_000)
        #expect(try RawHTTP.post("/api/segments/pause", body: "{}", port: port).status == 200)
        #expect(try RawHTTP.post("/api/segments/save", body: "{}", port: port).status == 200)
        let names = try FileManager.default.contentsOfDirectory(atPath: studio.library.path).filter { $0.hasSuffix(".mp4") }
        let video = try #require(names.first, "\(names)")
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/orientation.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, studio.base, video], timeout: 90)
        guard result.status == 0, let line = result.standardOutput.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let preview = json["preview"] as? [String: Any], let recording = json["recording"] as? [String: Any]
        else { throw TestFailure("orientation.py: status \(result.status) \(result.standardOutput) \(result.standardError.suffix(2000))") }
        print("studio --orientation \(orientation): preview \(preview), recording \(recording)")
        for shown in [preview, recording] {
            let detail = max((shown["acrossVariance"] as? Double) ?? 0, (shown["downVariance"] as? Double) ?? 0)
            #expect(detail > 300, "the bars are not seen (a flash or an empty picture): \(shown)")
        }
        return (preview, recording)
    }

    static func aspect(_ shown: [String: Any]) -> Double {
        let width = (shown["width"] as? Double) ?? 0, height = (shown["height"] as? Double) ?? 0
        return height > 0 ? width / height : 0
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func portraitPreviewIsUprightAsTheRecordingPlays() throws {
        let (preview, recording) = try measure("portrait")
        // Chromium turns the recording by its display matrix: 720x1280, bars running down.
        #expect(Self.aspect(recording) < 1 && recording["bars"] as? String == "y", "\(recording)")
        #expect(abs(Self.aspect(preview) - Self.aspect(recording)) < 0.02, "preview \(preview), recording \(recording)")
        #expect(preview["bars"] as? String == recording["bars"] as? String, "preview \(preview), recording \(recording)")
    }

    @Test func aTapOnTheTurnedPreviewFocusesWhereItShows() throws {
        // Near the top left of the portrait preview (a picture turned 90° clockwise) is near
        // the bottom left of the sensor's: device point (y, 1 − x).
        let studio = try StudioProcess(arguments: ["--mic", "none", "--orientation", "portrait"])
        let tap = try RawHTTP.post("/api/focus", body: #"{"x": 0.25, "y": 0.1, "viewWidth": 304, "viewHeight": 540}"#,
                                   port: studio.port)
        #expect(tap.status == 200, "\(String(decoding: tap.body, as: UTF8.self))")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(tap.body)) as? [String: Any])
        let x = try #require(answer["x"] as? Double), y = try #require(answer["y"] as? Double)
        #expect(abs(x - 0.1) < 0.01 && abs(y - 0.75) < 0.01, "device point \(x), \(y)")
    }

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func landscapePreviewIsLeftAsTheSensorTakesIt() throws {
        let (preview, recording) = try measure("landscape-left")
        #expect(Self.aspect(recording) > 1 && recording["bars"] as? String == "x", "\(recording)")
        #expect(abs(Self.aspect(preview) - Self.aspect(recording)) < 0.02, "preview \(preview), recording \(recording)")
        #expect(preview["bars"] as? String == recording["bars"] as? String, "preview \(preview), recording \(recording)")
    }
}

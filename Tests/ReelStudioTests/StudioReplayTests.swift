import Foundation
import ReelTestSupport
import Testing

/// `reel studio --replay-buffer N` (issue 23, item 4): the last N seconds of the virtual
/// camera and microphone saved into the library while the studio goes on, over the HTTP API
/// and from the camera page's button in headless Chromium (`Tests/browser/studio_replay.py`).
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the studio records in real time"))
struct StudioReplayTests {
    /// The virtual camera's frame counter of each frame (16 blocks along the top, white = 1),
    /// read from ffmpeg's decoded grey pictures.
    static func counters(_ file: URL) throws -> [Int] {
        let width = 256
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-counters-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ProcessRunner.ffmpeg(["-i", file.path, "-vf", "format=gray,crop=\(width):1:0:8", "-fps_mode", "passthrough",
                                  "-f", "rawvideo", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        return stride(from: 0, to: bytes.count - width + 1, by: width).map { start in
            (0..<16).reduce(0) { value, bit in bytes[start + bit * 16 + 8] > 128 ? value | 1 << bit : value }
        }
    }

    @Test func aReplaySavedOverHTTPHoldsTheLastSecondsAndTheStudioGoesOn() throws {
        let seconds = 3.0
        let studio = try StudioProcess(arguments: ["--replay-buffer", "3"], binary: Paths.releaseReelBinary ?? Paths.reelBinary)
        defer { studio.stop() }
        let state = try RawHTTP.get("/api/state", port: studio.port)
        let json = try JSONSerialization.jsonObject(with: state.body) as? [String: Any]
        #expect(json?["replaySeconds"] as? Double == seconds, "\(String(decoding: state.body.prefix(300), as: UTF8.self))")
        Thread.sleep(forTimeInterval: 6)
        let asked = try RawHTTP.post("/api/replay", body: "", port: studio.port)
        #expect(asked.status == 202, "\(asked.status) \(String(decoding: asked.body, as: UTF8.self))")
        // The replay lands in the library (the gallery's list) within a few seconds.
        var name: String?
        let deadline = Date().addingTimeInterval(60)
        while name == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.25)
            let library = try RawHTTP.get("/api/library", port: studio.port)
            let items = (try? JSONSerialization.jsonObject(with: library.body) as? [[String: Any]]) ?? []
            name = items.compactMap { $0["name"] as? String }.first { $0.hasPrefix("replay-") && $0.hasSuffix(".mp4") }
        }
        let saved = try #require(name, "no replay in the library: \(studio.standardError)")
        let file = studio.library.appendingPathComponent(saved)
        // Exactly N seconds (a frame either way); the camera's frames in order.
        let probed = try #require(try FFprobe.probe(file).duration)
        #expect(abs(probed - seconds) <= 1.0 / 30 + 0.001, "replay \(probed) s")
        let counters = try Self.counters(file)
        // From the camera's frames of N seconds at least (the buffer's encoder leaves out frames
        // it cannot take in time; the counters say which the replay spans).
        let spanned = (counters.last ?? 0) - (counters.first ?? 0) + 1
        #expect(spanned >= Int(seconds * 30) - 1 && counters.count >= Int(seconds * 10), "\(counters.count) frames over \(spanned)")
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $1 > $0 }, "counters \(counters)")
        // Sound in sync: every flash has its click within a frame.
        let measured = try SyncMeter.measure(file)
        let sync = SyncMeter.match(measured.clicks, expected: measured.flashes, window: 0.2)
        #expect(measured.flashes.count >= 1 && sync.lost == 0, "flashes \(measured.flashes), clicks \(measured.clicks)")
        #expect((sync.offsets.map(abs).max() ?? 1) <= 1.0 / 30 + 0.001, "offsets \(sync.offsets)")
        // The studio went on: the camera still delivers, and nothing of the buffer is listed.
        let status = try RawHTTP.get("/api/status", port: studio.port)
        let running = (try? JSONSerialization.jsonObject(with: status.body) as? [String: Any])?["running"] as? Bool
        #expect(running == true)
        let listed = try FileManager.default.contentsOfDirectory(atPath: studio.library.path)
        #expect(listed.filter { !$0.hasPrefix(".") } == [saved], "\(listed)")
        print("studio replay over HTTP: \(saved), \(probed) s, counters \(counters.first ?? -1)-\(counters.last ?? -1) "
              + "(\(counters.count) frames), click - flash \(sync.offsets.map { ($0 * 1000).rounded() }) ms")
    }

    @Test func withoutABufferTheAPIRefusesInOneLine() throws {
        let studio = try StudioProcess()
        defer { studio.stop() }
        let asked = try RawHTTP.post("/api/replay", body: "", port: studio.port)
        let text = String(decoding: asked.body, as: UTF8.self)
        #expect(asked.status == 409 && text.contains("--replay-buffer"), "\(asked.status) \(text)")
        let wrong = try ProcessRunner.reel(["studio", "--port", "0", "--replay-buffer", "0"])
        #expect(wrong.status != 0 && wrong.standardError.split(separator: "\n").count == 1
                    && wrong.standardError.contains("--replay-buffer"), "\(wrong.standardError)")
    }

    @Test func theCameraPageSavesAReplayIntoTheGallery() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--replay-buffer", "2"], binary: Paths.releaseReelBinary ?? Paths.reelBinary)
        defer { studio.stop() }
        let result = try StudioBrowser.run(script: "studio_replay.py", [studio.base, "4"], timeout: 180)
        print("studio replay page: \(result)")
        let button = try #require(result["button"] as? [String: Any], "no Save replay button: \(result)")
        #expect(button["text"] as? String == "Last 2 s" && (button["label"] as? String)?.contains("last 2 seconds") == true, "\(button)")
        #expect((result["announced"] as? String)?.hasPrefix("Replay saved") == true, "\(result)")
        let moved = (result["previewMoved"] as? [Any])?.compactMap { $0 as? Int } ?? []
        #expect(moved.count == 2 && moved[1] > moved[0], "the preview went on: \(moved)")
        let gallery = (result["gallery"] as? [String]) ?? []
        #expect(gallery.contains { $0.hasPrefix("replay-") }, "gallery \(gallery)")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result["consoleErrors"] ?? "")")
    }
}

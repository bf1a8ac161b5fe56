import Foundation
import ReelTestSupport
import Testing

/// The compose page's preview in headless Chromium (`Tests/browser/compose_preview.py`)
/// against the real `reel studio`: two library clips whose frames spell their index (8
/// black/white stripes; the second clip's numbers start at 128), composed with a cut.
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the page's timings need real time"))
struct StudioComposePreviewTests {
    static let rate = 30.0

    /// Two 2 s clips at 30 fps, 320x240, with a tone each; frame n of A spells n, of B 128 + n.
    static func makeLibrary() throws -> URL {
        let folder = try Paths.temporaryDirectory("reel-studio-compose-preview")
        for (name, offset, tone) in [("Clip A.mp4", 0, 440), ("Clip B.mp4", 128, 660)] {
            let stripes = "geq=lum='if(bitand(N+\(offset)\\,pow(2\\,floor(X*8/W)))\\,235\\,16)':cb=128:cr=128"
            try ProcessRunner.ffmpeg([
                "-f", "lavfi", "-i", "color=c=black:s=320x240:r=30:d=2,format=yuv420p,\(stripes)",
                "-f", "lavfi", "-i", "sine=f=\(tone):d=2", "-c:v", "libx264", "-g", "30",
                "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", folder.appendingPathComponent(name).path,
            ])
        }
        return folder
    }

    /// The frame of the composition at `time`: A's 60 frames, then B's.
    static func expectedCode(at time: Double) -> Int {
        let index = Int((min(max(time, 0), 3.99) * rate + 1e-6).rounded(.down))
        return index < 60 ? index : 128 + index - 60
    }

    @Test func thePreviewPlaysWithSoundScrubsToTheFrameAndNeverShowsAnOldComposition() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(library: try Self.makeLibrary())
        let result = try StudioBrowser.run(script: "compose_preview.py", [studio.base, "Clip A.mp4", "Clip B.mp4", "19"])
        print("compose preview: \(result)")
        let ready = try #require(result["ready"] as? [String: Any], "\(result)")
        #expect(abs((ready["duration"] as? Double ?? 0) - 4.0) < 0.05, "two 2 s clips cut together: \(ready)")

        // Play: the picture moves and the element decodes (and plays) sound within 1 s of the press.
        let play = try #require(result["play"] as? [String: Any], "\(result)")
        let moved = try #require(play["moved"] as? Double, "the picture never moved: \(play)")
        let audio = try #require(play["audio"] as? Double, "no sound decoded: \(play)")
        expectInRealTime {
            #expect(moved < 1000 && audio < 1000, "moving picture after \(moved) ms, sound after \(audio) ms")
        }
        #expect(play["rms"] as? Double ?? 0 > 0.01, "the element's sound is a tone, not silence: \(play)")
        let seen = try #require(play["seen"] as? [[Any]])
        let codes = seen.compactMap { $0[1] as? Int }
        #expect(codes.first.map { $0 < 10 } == true, "playing starts at the first frame: \(codes)")

        // Scrubs: the frame shown is the one under the playhead, within one frame.
        let scrubs = try #require(result["scrubs"] as? [[String: Any]])
        #expect(scrubs.count == 12)
        var exact = 0
        for scrub in scrubs {
            let playhead = try #require(scrub["playhead"] as? Double), code = try #require(scrub["code"] as? Int)
            let expected = Self.expectedCode(at: playhead)
            let neighbours = [
                Self.expectedCode(at: playhead - 1 / Self.rate), expected, Self.expectedCode(at: playhead + 1 / Self.rate),
            ]
            #expect(neighbours.contains(code), "playhead \(playhead) s shows frame code \(code), expected \(expected)")
            if code == expected { exact += 1 }
        }
        print("compose preview scrubs: \(exact) of \(scrubs.count) on the exact frame")
        #expect(exact >= scrubs.count - 1, "the page seeks to the middle of the frame under the playhead")

        // A changed clip list: the old picture is gone in the same moment, its file no longer served.
        let after = try #require(result["afterChange"] as? [String: Any])
        #expect(
            after["src"] is NSNull && after["readyState"] as? Int == 0 && after["state"] as? String == "rendering", "\(after)")
        #expect(result["oldURL"] as? Int == 404, "\(result)")
        let changed = try #require(result["changed"] as? [String: Any])
        #expect(abs((changed["duration"] as? Double ?? 0) - 2.0) < 0.05, "clip A alone: \(changed)")
        #expect(changed["key"] as? String != ready["key"] as? String)
        let last = try #require(result["changedScrub"] as? [String: Any])
        #expect([56, 57, 58].contains(last["code"] as? Int ?? -1), "1.9 s of clip A alone is its frame 57: \(last)")

        // Play pressed at once after a change: the time includes making the preview.
        let immediate = try #require(result["immediate"] as? [String: Any], "\(result)")
        #expect(immediate["moved"] as? Double != nil, "\(immediate)")
        let immediateCodes = (immediate["seen"] as? [[Any]] ?? []).compactMap { $0[1] as? Int }
        #expect(immediateCodes.first.map { $0 < 10 } == true, "the new composition from its start: \(immediateCodes)")
        print(
            "compose preview: play \(moved) ms to moving picture, sound \(audio) ms; pressed during the render: "
                + "\(immediate["moved"] ?? "-") ms; render \(ready["status"] ?? "")")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }
}

/// The preview's API refuses what is wrong in one line, and serves only the current preview.
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the studio runs live capture"))
struct StudioComposePreviewAPITests {
    @Test func wrongRequestsAreRefusedInWordsAndOnlyTheCurrentPreviewIsServed() throws {
        let studio = try StudioProcess(library: try StudioComposePreviewTests.makeLibrary())
        let missing = try RawHTTP.post("/api/compose/preview", body: #"{"clips": ["Nothing.mp4"]}"#, port: studio.port)
        #expect(missing.status == 400)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("clips[0] Nothing.mp4"), "\(missing)")
        let empty = try RawHTTP.post("/api/compose/preview", body: #"{"clips": []}"#, port: studio.port)
        #expect(empty.status == 400)
        let garbled = try RawHTTP.post("/api/compose/preview", body: "{", port: studio.port)
        #expect(garbled.status == 400)
        #expect(try RawHTTP.get("/api/compose/preview/0123456789abcdef.mp4", port: studio.port).status == 404)
        #expect(try RawHTTP.get("/api/compose/preview/../../etc/passwd", port: studio.port).status == 404)

        // A real request: rendering, then ready, then its file with byte ranges.
        let made = try RawHTTP.post(
            "/api/compose/preview", body: #"{"clips": ["Clip A.mp4"], "transition": "none"}"#,
            port: studio.port)
        #expect(made.status == 200)
        let preview = try #require(try JSONSerialization.jsonObject(with: made.body) as? [String: Any])
        let url = try #require(preview["url"] as? String)
        #expect(try Self.waitUntilReady(studio))
        let part = try RawHTTP.get(url, port: studio.port, headers: ["Range: bytes=0-99"])
        #expect(part.status == 206 && part.body.count == 100, "\(part.status) \(part.body.count)")
        #expect(part.body.subdata(in: 4..<8) == Data("ftyp".utf8))
        let file = studio.library.appendingPathComponent("preview.mp4")
        try RawHTTP.get(url, port: studio.port).body.write(to: file)
        let probe = try FFprobe.probe(file)
        #expect(abs((probe.duration ?? 0) - 2.0) < 0.05, "the preview of clip A alone lasts 2 s")
        #expect(probe.streams.contains { $0.codecType == "audio" })
        try FileManager.default.removeItem(at: file)
    }

    /// Whether the studio's current preview became ready within 60 s.
    static func waitUntilReady(_ studio: StudioProcess) throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let now = try JSONSerialization.jsonObject(with: try RawHTTP.get("/api/compose/preview", port: studio.port).body)
            if (now as? [String: Any])?["state"] as? String == "ready" { return true }
            usleep(100_000)
        }
        return false
    }

    /// A studio killed (SIGKILL: no chance to clean up) leaves its preview folder behind;
    /// the next studio started removes it, and leaves a running studio's alone.
    @Test func aKilledStudiosPreviewFolderIsRemovedByTheNextStudio() throws {
        let temporary = try Paths.temporaryDirectory("reel-studio-tmp")
        let previews = {
            try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("reel-studio-preview-") }
        }
        let library = try StudioComposePreviewTests.makeLibrary()
        let running = try StudioProcess(library: library, environment: ["TMPDIR": temporary.path])
        let killed = try StudioProcess(library: library, environment: ["TMPDIR": temporary.path])
        for studio in [running, killed] {
            let made = try RawHTTP.post(
                "/api/compose/preview", body: #"{"clips": ["Clip A.mp4"], "transition": "none"}"#, port: studio.port)
            #expect(made.status == 200)
            #expect(try Self.waitUntilReady(studio))
        }
        let made = try previews()
        #expect(made.count == 2, "one preview folder a studio: \(made)")
        kill(killed.process.processIdentifier, SIGKILL)
        killed.process.waitUntilExit()
        #expect(try previews() == made, "a killed studio cannot clean up")

        let next = try StudioProcess(library: library, environment: ["TMPDIR": temporary.path])
        let left = try previews()
        #expect(left.count == 1 && left.first?.contains("-\(running.process.processIdentifier)-") == true, "\(left)")
        _ = next.stop()
        _ = running.stop()
        #expect(try previews().isEmpty, "a studio that stops removes its own")
    }
}

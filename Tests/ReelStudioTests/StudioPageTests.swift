import Foundation
import ReelTestSupport
import Testing

/// The pages in headless Chromium against the real `reel studio` on the virtual camera.
/// One at a time: each drives a browser, and the machine has two cores.
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the pages run against live capture; a sanitizer build cannot keep its pace"))
struct StudioPageTests {
    /// Two short clips with sound and a photo, made with the ffmpeg CLI.
    static func makeLibrary() throws -> URL {
        let folder = try Paths.temporaryDirectory("reel-studio-pages")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=2", "-f", "lavfi", "-i",
                                  "sine=f=440:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                                  folder.appendingPathComponent("Clip A.mp4").path])
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "smptebars=size=640x360:rate=30:duration=2", "-f", "lavfi", "-i",
                                  "sine=f=660:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                                  folder.appendingPathComponent("Clip B.mp4").path])
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "mandelbrot=size=640x360", "-frames:v", "1",
                                  folder.appendingPathComponent("Photo.jpg").path])
        return folder
    }

    @Test func previewFramesArriveAndChange() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess()
        let result = try StudioBrowser.run("preview", [studio.base])
        #expect(result["ready"] as? Bool == true, "\(result)")
        let first = try #require(result["first"] as? [String: Any]), second = try #require(result["second"] as? [String: Any])
        #expect(first["width"] as? Int == 960 && first["height"] as? Int == 540, "the 1280x720 frame fitted into 960x540")
        let a = try #require(first["counter"] as? Int), b = try #require(second["counter"] as? Int)
        // 0.4 s apart at 30 fps: about 12 frames later on the camera's own counter (the rates
        // asserted are loose: the machine is shared, and a benchmark is not a test).
        let distinct = try #require(result["distinctFramesIn2s"] as? Int)
        let latency = try #require(result["latencyMedian"] as? Double)
        expectInRealTime {
            #expect(distinct >= 5, "the page saw \(distinct) different frames in 2 s")
            #expect(b > a && b - a <= 90, "counters \(a) then \(b)")
            #expect(latency > -0.1 && latency < 1, "the page shows frames \(latency) s behind the capture")
        }
        print("studio preview: \(distinct) distinct frames in 2 s in the page, median latency \(Int(latency * 1000)) ms")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }

    @Test func theFilterPickerChangesThePreview() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess()
        let result = try StudioBrowser.run("filter", [studio.base, "PhotoEffectMono"])
        let before = try #require(result["before"] as? [String: Any]), after = try #require(result["after"] as? [String: Any])
        let chromaBefore = try #require(before["chroma"] as? Double), chromaAfter = try #require(after["chroma"] as? Double)
        // The camera's colour bars, then grey: R, G and B within JPEG noise of each other.
        #expect(chromaBefore > 60, "colour before: \(chromaBefore)")
        #expect(chromaAfter < 8, "colour after Mono: \(chromaAfter)")
        #expect(result["filter"] as? String == "PhotoEffectMono")
        #expect(result["label"] as? String == "Mono")
        // The seed's random button picks another filter and the page says which.
        let random = try #require(result["randomFilter"] as? String)
        #expect(random != "PhotoEffectMono" && random != "none", "\(result)")
        #expect(result["randomLabel"] as? String != nil)
    }

    @Test func aPhotoAppearsInTheGallery() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess()
        let result = try StudioBrowser.run("photo", [studio.base])
        let dialog = try #require(result["dialog"] as? [Any], "the photo dialog: \(result)")
        #expect(dialog[0] as? Int == 1280 && dialog[1] as? Int == 720)
        let names = try FileManager.default.contentsOfDirectory(atPath: studio.library.path).filter { $0.hasSuffix(".jpg") }
        try #require(names.count == 1 && names[0].hasPrefix("Reel Photo "), "\(names)")
        #expect(result["gallery"] as? [String] == names, "\(result)")
        let probe = try FFprobe.probe(studio.library.appendingPathComponent(names[0]))
        #expect(probe.streams.first?.codecName == "mjpeg" && probe.streams.first?.width == 1280)
        #expect(FileManager.default.fileExists(atPath: studio.library.appendingPathComponent(".thumbnails/\(names[0]).jpg").path))
        #expect((result["caption"] as? String)?.contains("saved to the library") == true)
        // And delete it again from the gallery.
        let deleted = try StudioBrowser.run("delete", [studio.base, names[0]])
        #expect(deleted["asked"] as? String == names[0])
        #expect(deleted["summary"] as? String == "0 photos and 0 videos", "\(deleted)")
        #expect(!FileManager.default.fileExists(atPath: studio.library.appendingPathComponent(names[0]).path))
        #expect(deleted["appearedLive"] as? Bool == true, "a new photo shows in the open gallery: \(deleted)")
    }

    @Test func threeHoldsThenSaveGiveOneMergedFileThatPlays() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess()
        // The size a Raspberry Pi would record at; it keeps the shared test machine's load down.
        #expect(try RawHTTP.post("/api/preset", body: #"{"id": "640x480"}"#, port: studio.port).status == 200)
        let result = try StudioBrowser.run("record", [studio.base, "0.8", "1.2", "1.0"])
        let held = try #require(result["held"] as? [Double])
        let status = try #require(result["status"] as? [String: Any])
        #expect(status["segments"] as? Int == 3, "\(status)")
        let played = try #require(result["played"] as? [String: Any], "the review dialog's video: \(result)")
        #expect(played["width"] as? Int == 640 && played["height"] as? Int == 480)
        let videos = try FileManager.default.contentsOfDirectory(atPath: studio.library.path).filter { $0.hasSuffix(".mp4") }
        #expect(videos.count == 1 && videos[0].hasPrefix("Reel Video "), "one merged file: \(videos)")
        let file = studio.library.appendingPathComponent(try #require(videos.first))
        let duration = try #require(try FFprobe.probe(file).duration)
        let total = held.reduce(0, +)
        print("studio short video: held \(held.map { String(format: "%.3f", $0) }) = \(String(format: "%.3f", total)) s, file \(duration) s")
        #expect(abs(duration - total) < 0.1, "held \(total) s, the file lasts \(duration) s")
        #expect(abs((played["duration"] as? Double ?? 0) - duration) < 0.05)
        // The segments are gone once merged.
        let segments = studio.library.appendingPathComponent(".segments")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: segments.path)) ?? []).filter { $0.hasSuffix(".mp4") }.isEmpty)
    }

    @Test func tappingThePreviewMovesTheCamerasFocusPoint() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess()
        let before = try JSONSerialization.jsonObject(with: try RawHTTP.get("/api/state", port: studio.port).body) as? [String: Any]
        let start = try #require(before?["focus"] as? [String: Any])
        #expect(start["x"] as? Double == 0.5 && start["y"] as? Double == 0.5)
        let result = try StudioBrowser.run("focus", [studio.base, "0.25", "0.75"])
        let state = try #require(result["state"] as? [String: Any])
        let focus = try #require(state["focus"] as? [String: Any])
        let x = try #require(focus["x"] as? Double), y = try #require(focus["y"] as? Double)
        #expect(abs(x - 0.25) < 0.03 && abs(y - 0.75) < 0.03, "the camera focuses at \(x), \(y)")
        #expect(abs((focus["exposureX"] as? Double ?? 0) - 0.25) < 0.03, "and exposes there: \(focus)")
        let cursor = try #require(result["cursor"] as? [String: Any])
        #expect(cursor["shown"] as? Bool == true, "the focus cursor animates: \(cursor)")
        #expect(result["answered"] as? String != nil)
        // The virtual camera can do everything the panel offers, stabilization included.
        let off = try #require(result["off"] as? [[String: Any]])
        #expect(off.isEmpty, "\(off)")
    }

    @Test func composingTwoLibraryClipsExportsAndPlays() throws {
        guard BrowserPlayer.available else { return }
        let library = try Self.makeLibrary()
        let studio = try StudioProcess(library: library)
        let result = try StudioBrowser.run("compose", [studio.base, "Clip A.mp4", "Clip B.mp4"])
        #expect(result["order"] as? [String] == ["Clip A.mp4", "Clip B.mp4"])
        let played = try #require(result["played"] as? [String: Any], "\(result)")
        #expect(played["width"] as? Int == 640 && played["height"] as? Int == 360, "\(played)")
        // Two 2 s clips overlapping by the 0.5 s dissolve.
        #expect(abs((played["duration"] as? Double ?? 0) - 3.5) < 0.1, "\(played)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: library.path).filter { $0.hasPrefix("Reel Composition") }
        #expect(outputs.count == 1, "\(outputs)")
        let file = library.appendingPathComponent(try #require(outputs.first))
        let probe = try FFprobe.probe(file)
        #expect(abs((probe.duration ?? 0) - 3.5) < 0.1)
        #expect(probe.streams.contains { $0.codecType == "audio" })
        #expect((result["progress"] as? [String])?.isEmpty == false)
    }

    @Test func screenshotsOfEveryPage() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(library: try Self.makeLibrary())
        let folder = StudioBrowser.artifacts
        let result = try StudioBrowser.run("screens", [studio.base, folder.path])
        let shots = try #require(result["screenshots"] as? [String])
        #expect(shots.count == 12)
        for shot in shots {
            let data = try Data(contentsOf: URL(fileURLWithPath: shot))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 20_000, "\(shot)")
        }
        print("studio screenshots: \(folder.path)")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }
}

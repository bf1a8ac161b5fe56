import CMicroHTTPD
import CMicroHTTPDShims
import Foundation
import ReelTestSupport
import Testing

/// The studio's HTTP API against the real binary: the library, the live events, the
/// commands' answers to bad input, and the command line's.
@Suite struct StudioServerTests {
    @Test func shimsMatchTheHeadersValues() {
        #expect(reel_mhd_size_unknown() == UInt64.max)
        #expect(reel_mhd_end_of_stream() == -1)
        #expect(reel_mhd_end_with_error() == -2)
    }

    @Test func libraryListsDownloadsRangesAndDeletes() throws {
        let library = try StudioPageTests.makeLibrary()
        let studio = try StudioProcess(library: library)
        let port = studio.port
        let list = try JSONSerialization.jsonObject(with: try RawHTTP.get("/api/library", port: port).body) as? [[String: Any]]
        let items = try #require(list)
        #expect(Set(items.compactMap { $0["name"] as? String }) == ["Clip A.mp4", "Clip B.mp4", "Photo.jpg"])
        let clip = try #require(items.first { $0["name"] as? String == "Clip A.mp4" })
        #expect(clip["kind"] as? String == "video" && abs((clip["duration"] as? Double ?? 0) - 2) < 0.05)
        #expect(clip["width"] as? Int == 640 && clip["url"] as? String == "/library/Clip%20A.mp4")

        let original = try Data(contentsOf: library.appendingPathComponent("Clip A.mp4"))
        let whole = try RawHTTP.get("/library/Clip%20A.mp4", port: port)
        #expect(whole.status == 200 && whole.body == original && whole.headers["content-type"] == "video/mp4")
        let part = try RawHTTP.get("/library/Clip%20A.mp4", port: port, headers: ["Range: bytes=100-199"])
        #expect(part.status == 206 && part.body == original[100..<200])
        #expect(part.headers["content-range"] == "bytes 100-199/\(original.count)")
        let tail = try RawHTTP.get("/library/Clip%20A.mp4", port: port, headers: ["Range: bytes=-10"])
        #expect(tail.status == 206 && tail.body == original.suffix(10))
        #expect(try RawHTTP.get("/library/Clip%20A.mp4", port: port, headers: ["Range: bytes=99999999-"]).status == 416)
        let download = try RawHTTP.get("/library/Photo.jpg?download=1", port: port)
        #expect(download.headers["content-disposition"] == "attachment; filename=\"Photo.jpg\"")
        #expect(download.body.starts(with: [0xFF, 0xD8]))

        let thumbnail = try RawHTTP.get("/library/thumbnails/Clip%20B.mp4", port: port)
        #expect(thumbnail.status == 200 && thumbnail.body.starts(with: [0xFF, 0xD8]))
        let thumbnailFile = library.appendingPathComponent(".thumbnails/Clip B.mp4.jpg")
        #expect(FileManager.default.fileExists(atPath: thumbnailFile.path))
        let probe = try FFprobe.probe(thumbnailFile)
        #expect(probe.streams.first?.width == 320 && probe.streams.first?.height == 180)

        let deleted = try RawHTTP.send(["DELETE /api/library/Clip%20B.mp4 HTTP/1.1", "Host: 127.0.0.1:\(port)",
                                        "Origin: http://127.0.0.1:\(port)", "Connection: close"].joined(separator: "\r\n") + "\r\n\r\n",
                                       port: port)
        #expect(deleted.status == 200)
        #expect(!FileManager.default.fileExists(atPath: library.appendingPathComponent("Clip B.mp4").path))
        #expect(!FileManager.default.fileExists(atPath: thumbnailFile.path))
        #expect(try RawHTTP.get("/library/Clip%20B.mp4", port: port).status == 404)
        let again = try RawHTTP.send(["DELETE /api/library/Clip%20B.mp4 HTTP/1.1", "Host: 127.0.0.1:\(port)",
                                      "Connection: close"].joined(separator: "\r\n") + "\r\n\r\n", port: port)
        #expect(again.status == 404)
        #expect(String(decoding: again.body, as: UTF8.self).contains("the library has no such item"))
    }

    @Test func withoutLibraryPhotosAndVideosGoToTheXDGFolders() throws {
        let home = try Paths.temporaryDirectory("reel-studio-home")
        let config = home.appendingPathComponent(".config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data(#"XDG_PICTURES_DIR="$HOME/Bilder""#.utf8).write(to: config.appendingPathComponent("user-dirs.dirs"))
        let studio = try StudioProcess(arguments: ["--mic", "none"], useXDG: true,
                                       environment: ["HOME": home.path, "XDG_CONFIG_HOME": "", "XDG_PICTURES_DIR": "",
                                                     "XDG_VIDEOS_DIR": ""])
        let photos = home.appendingPathComponent("Bilder/Reel"), videos = home.appendingPathComponent("Videos/Reel")
        #expect(studio.standardOutput.contains("library: photos in \(photos.path), videos in \(videos.path)"),
                "\(studio.standardOutput)")
        #expect(try RawHTTP.post("/api/photo", body: "{}", port: studio.port).status == 200)
        #expect(try RawHTTP.post("/api/segments/start", body: "{}", port: studio.port).status == 200)
        usleep(400_000)
        #expect(try RawHTTP.post("/api/segments/pause", body: "{}", port: studio.port).status == 200)
        #expect(try RawHTTP.post("/api/segments/save", body: "{}", port: studio.port).status == 200)
        let photoNames = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { !$0.hasPrefix(".") }
        let videoNames = try FileManager.default.contentsOfDirectory(atPath: videos.path).filter { !$0.hasPrefix(".") }
        #expect(photoNames.count == 1 && photoNames[0].hasSuffix(".jpg"), "\(photoNames)")
        #expect(videoNames.count == 1 && videoNames[0].hasSuffix(".mp4"), "\(videoNames)")
        let listed = String(decoding: try RawHTTP.get("/api/library", port: studio.port).body, as: UTF8.self)
        #expect(listed.contains(#""kind":"photo""#) && listed.contains(#""kind":"video""#))
    }

    @Test func eventsCarryTheStatus() throws {
        let studio = try StudioProcess()
        let socket = try RawHTTP.send(["GET /api/events HTTP/1.1", "Host: 127.0.0.1:\(studio.port)"].joined(separator: "\r\n")
                                      + "\r\n\r\n", port: studio.port, timeout: 1.5)
        #expect(socket.status == 200 && socket.headers["content-type"] == "text/event-stream")
        let text = String(decoding: socket.body, as: UTF8.self)
        #expect(text.contains("event: status"), "\(text.prefix(300))")
        #expect(text.contains(#""frameRate":30"#) && text.contains(#""running":true"#))
    }

    @Test func commandsAnswerBadInputInWords() throws {
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let port = studio.port
        let cases: [(String, String, Int, String)] = [
            ("/api/filter", #"{"id": "NoSuchLook"}"#, 400, "NoSuchLook: no such filter"),
            ("/api/filter", "not json", 400, "the body is not JSON"),
            ("/api/filter", #"{"name": "PhotoEffectMono"}"#, 400, "the body has no 'id'"),
            ("/api/compose", #"{"clips": [1, 2]}"#, 400, "the body's 'clips[0]' has the wrong type"),
            ("/api/camera", #"{"id": "v4l2:/dev/video9"}"#, 400, "no such camera"),
            ("/api/preset", #"{"id": "8k"}"#, 400, "cannot do this preset"),
            ("/api/compose", #"{"clips": []}"#, 400, "choose at least one clip"),
            ("/api/compose", #"{"clips": ["../x.mp4"]}"#, 400, "no such video"),
            ("/api/compose", #"{"clips": ["nothing.mp4"], "transition": "spin:9"}"#, 400, "no such video"),
        ]
        for (path, body, status, words) in cases {
            let response = try RawHTTP.post(path, body: body, port: port)
            #expect(response.status == status, "\(path) \(body)")
            #expect(String(decoding: response.body, as: UTF8.self).contains(words), "\(path) \(body): \(String(decoding: response.body, as: UTF8.self))")
        }
        #expect(try RawHTTP.get("/api/filter", port: port).status == 405)
        #expect(try RawHTTP.get("/api/nothing", port: port).status == 404)
        let state = String(decoding: try RawHTTP.get("/api/state", port: port).body, as: UTF8.self)
        #expect(state.contains(#""microphone":"none""#))
    }

    @Test func ctrlCStopsCleanlyWithViewersAndARecordingUnderWay() throws {
        let studio = try StudioProcess()
        let port = studio.port
        let viewers = try (0..<2).map { _ in try RawSocket(port: port) }
        try viewers[0].write("GET /api/preview.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        try viewers[1].write("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try RawHTTP.post("/api/segments/start", body: "{}", port: port).status == 200)
        usleep(500_000)
        let started = Date()
        let status = studio.stop()
        #expect(status == 0, "\(studio.standardError)")
        let stopping = Date().timeIntervalSince(started)
        expectInRealTime { #expect(stopping < 5) }
        #expect(studio.standardError.contains("Reel Studio stopped"))
        withExtendedLifetime(viewers) {}
    }

    @Test func theCommandLineRefusesBadOptionsInOneLine() throws {
        let library = try Paths.temporaryDirectory("reel-studio-refusals")
        let cases: [([String], Int32, String)] = [
            (["studio", "--port", "70000"], 1, "--port"),
            (["studio", "--port", "0", "--camera", "v4l2:/dev/video9"], 2, "no such device"),
            (["studio", "--port", "0", "--mic", "virtual:camera"], 2, "is not a microphone"),
            (["studio", "--port", "0", "--host", "203.0.113.9"], 2, "203.0.113.9"),
        ]
        for (arguments, status, words) in cases {
            let result = try ProcessRunner.reel(arguments + ["--library", library.path], timeout: 20)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(words), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        // A wrong device leaves no library folders behind, even in the default place.
        let home = try Paths.temporaryDirectory("reel-studio-home")
        let wrong = try ProcessRunner.run(Paths.reelBinary.path, ["studio", "--port", "0", "--camera", "v4l2:/dev/video9"],
                                          timeout: 20, environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"])
        #expect(wrong.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
        for (arguments, status, words) in [(["studio", "--port", "0", "--library", "/proc/reel-nope"], Int32(2), "/proc/reel-nope")] {
            let result = try ProcessRunner.reel(arguments, timeout: 20)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(words), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        // A port already taken.
        let first = try StudioProcess()
        let second = try ProcessRunner.reel(["studio", "--port", String(first.port), "--library", first.library.path], timeout: 20)
        #expect(second.status == 2 && second.standardError.contains("127.0.0.1:\(first.port)"), "\(second.standardError)")
        #expect(try RawHTTP.get("/api/status", port: first.port).status == 200)
    }
}

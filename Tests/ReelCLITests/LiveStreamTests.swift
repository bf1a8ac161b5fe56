import Foundation
import ReelAsset
import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// `reel record --rtmp URL`: a real nginx with Debian's RTMP module on loopback receives the
/// stream (and records what it receives), a player reads it back from the server, and when the
/// server is killed and started again the recorder reconnects within 5 s while its local file
/// stays whole.
@Suite(.serialized) struct LiveStreamTests {
    static let nginx = "/usr/sbin/nginx"
    static let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: nginx) && FileManager.default.fileExists(atPath: module)
    }

    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-rtmp")
    }

    /// A server on `port` recording each publication into `records` as `test-UNIXTIME.flv`.
    private func startServer(port: Int, records: URL) throws -> Process {
        let config = directory.appendingPathComponent("nginx.conf")
        let text = """
            load_module \(Self.module);
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log info;
            events { worker_connections 64; }
            rtmp {
                server {
                    listen 127.0.0.1:\(port);
                    application live {
                        live on;
                        record all;
                        record_path \(records.path);
                        record_unique on;
                    }
                }
            }
            """
        try Data(text.utf8).write(to: config)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.nginx)
        process.arguments = ["-p", directory.path, "-c", config.path, "-e", directory.appendingPathComponent("error.log").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Listening once a connection is taken.
        for _ in 0..<50 {
            if try ProcessRunner.run("/usr/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"], timeout: 5).status == 0 {
                return process
            }
            usleep(100_000)
        }
        process.terminate()
        throw TestFailure(
            "nginx did not listen on \(port): \((try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")"
        )
    }

    @Test(.enabled(if: LiveStreamTests.available, "needs nginx-light and libnginx-mod-rtmp (make deps)"))
    func streamSurvivesServerRestartAndLocalFileStaysWhole() throws {
        let port = Int.random(in: 21_000..<39_000)
        let records = directory.appendingPathComponent("records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        var server = try startServer(port: port, records: records)
        defer { Self.stop(server) }
        let local = directory.appendingPathComponent("local.mp4")
        let url = "rtmp://127.0.0.1:\(port)/live/test"
        let started = Date()
        let recording = DispatchGroup()
        nonisolated(unsafe) var result: ProcessResult?
        DispatchQueue.global().async(group: recording) {
            result = try? ProcessRunner.reel(
                [
                    "record", "-o", local.path, "--max-duration", "10", "--preset", "640x480",
                    "--rtmp", url,
                ], timeout: 90)
        }
        // Played back from the server while it streams.
        usleep(2_000_000)
        let played = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_name,width",
                "-of", "csv=p=0", url,
            ], timeout: 20)
        #expect(
            played.standardOutput.contains("h264,640") && played.standardOutput.contains("aac"),
            "read back from the server: \(played.standardOutput) \(played.standardError)")
        // The server dies mid-stream and comes back.
        let killAt = max(0, 4.5 - Date().timeIntervalSince(started))
        usleep(UInt32(killAt * 1_000_000))
        Self.stop(server)
        usleep(1_500_000)
        server = try startServer(port: port, records: records)
        let restarted = Date().timeIntervalSince1970
        recording.wait()
        let recorded = try #require(result)
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(
            recorded.standardError.contains("lost \(url)") && recorded.standardError.contains("reconnected to \(url)"),
            "\(recorded.standardError)")
        #expect(recorded.standardError.contains("over 2 connections"), "\(recorded.standardError)")

        // The server recorded two publications; the second began within 5 s of its restart.
        let files = try FileManager.default.contentsOfDirectory(atPath: records.path).filter { $0.hasSuffix(".flv") }.sorted()
        try #require(files.count == 2, "\(files)")
        let second = try #require(Double(files[1].dropFirst("test-".count).dropLast(".flv".count)))
        #expect(second - restarted.rounded(.down) <= 5, "reconnected \(second - restarted) s after the restart")
        for file in files {
            let probe = try FFprobe.probe(records.appendingPathComponent(file))
            #expect(probe.streams(ofType: "video").first?.codecName == "h264" && probe.streams(ofType: "audio").count == 1)
            #expect((probe.duration ?? 0) > 1, "\(file) lasts \(probe.duration ?? 0) s")
        }
        // The local recording is whole: 10 s, and every frame the recorder says it took is in
        // the file (under a heavy machine load the capture drops frames of its own, which the
        // recorder counts apart: 46 of 360 once at a load of 20 with a docs build running).
        let probe = try FFprobe.probe(local)
        #expect(abs((probe.duration ?? 0) - 10) < 0.1)
        let line = try #require(recorded.standardError.split(separator: "\n").first { $0.hasPrefix("wrote \(local.path)") })
        let words = line.split(separator: " ")
        let frames = try #require(words.firstIndex(of: "frames,").flatMap { Int(words[$0 - 1]) })
        #expect(try FFprobe.countFrames(local) == frames, "\(line)")
        print("rtmp: \(line)")
    }

    static let srtReceiver = "/usr/bin/srt-live-transmit"

    /// `srt-live-transmit` listening on `port`, writing what it receives into `file`.
    private func startReceiver(port: Int, into file: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.srtReceiver)
        process.arguments = ["-q", "srt://:\(port)?mode=listener", "file://con"]
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(300_000)
        return process
    }

    /// Kills `process` (the server or receiver the stream goes to) if it still runs, and waits
    /// until it has gone.
    private static func stop(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: LiveStreamTests.srtReceiver), "needs srt-tools (make deps)"))
    func srtStreamReachesSrtLiveTransmitAndReconnects() throws {
        let port = Int.random(in: 21_000..<39_000)
        let first = directory.appendingPathComponent("first.ts"), second = directory.appendingPathComponent("second.ts")
        var receiver = try startReceiver(port: port, into: first)
        defer { Self.stop(receiver) }
        let local = directory.appendingPathComponent("local-srt.mp4")
        let recording = DispatchGroup()
        nonisolated(unsafe) var result: ProcessResult?
        DispatchQueue.global().async(group: recording) {
            result = try? ProcessRunner.reel(
                [
                    "record", "-o", local.path, "--max-duration", "12", "--preset", "640x480",
                    "--srt", "srt://127.0.0.1:\(port)",
                ], timeout: 90)
        }
        usleep(4_000_000)
        #expect(size(first) > 0, "the receiver got the stream")
        Self.stop(receiver)
        usleep(1_500_000)
        receiver = try startReceiver(port: port, into: second)
        let restarted = Date()
        var reached: TimeInterval?
        while reached == nil, Date().timeIntervalSince(restarted) < 8 {
            if size(second) > 0 { reached = Date().timeIntervalSince(restarted) }
            usleep(50_000)
        }
        recording.wait()
        let recorded = try #require(result)
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(recorded.standardError.contains("over 2 connections"), "\(recorded.standardError)")
        // SRT notices a vanished peer after its 5 s idle timeout (not settable through FFmpeg
        // 5.1), so a receiver back after 1.5 s is reached about 3.5 s after its restart.
        let delay = try #require(reached, "the restarted receiver got nothing: \(recorded.standardError)")
        #expect(delay <= 5, "reconnected \(delay) s after the restart")
        for file in [first, second] {
            let probe = try FFprobe.probe(file)
            #expect(probe.streams(ofType: "video").first?.codecName == "h264" && probe.streams(ofType: "audio").count == 1)
        }
        let line = try #require(recorded.standardError.split(separator: "\n").first { $0.hasPrefix("wrote \(local.path)") })
        let words = line.split(separator: " ")
        let frames = try #require(words.firstIndex(of: "frames,").flatMap { Int(words[$0 - 1]) })
        #expect(try FFprobe.countFrames(local) == frames, "\(line)")
        #expect(abs((try FFprobe.probe(local).duration ?? 0) - 12) < 0.1, "\(line)")
        print("srt: reconnected \(delay) s after the receiver's restart; \(line)")
    }

    @Test func liveHLSPlaylistGrowsWhileRecordingAndEnds() throws {
        let folder = directory.appendingPathComponent("live-hls")
        let playlist = folder.appendingPathComponent("playlist.m3u8")
        let local = directory.appendingPathComponent("local-hls.mp4")
        let recording = DispatchGroup()
        nonisolated(unsafe) var result: ProcessResult?
        DispatchQueue.global().async(group: recording) {
            result = try? ProcessRunner.reel(
                [
                    "record", "-o", local.path, "--max-duration", "10", "--preset", "640x480",
                    "--hls", folder.path,
                ], timeout: 90)
        }
        // While recording: an EVENT playlist without an end, growing.
        var seen: [Int] = []
        var parts = 0
        while recording.wait(timeout: .now() + 0.2) == .timedOut {
            guard let text = try? String(contentsOf: playlist, encoding: .utf8) else { continue }
            #expect(text.contains("#EXT-X-PLAYLIST-TYPE:EVENT"))
            // Low-Latency HLS parts of the segment being filled (TimedSegmentsTests checks their rules).
            parts = max(parts, text.components(separatedBy: "#EXT-X-PART:").count - 1)
            if !text.contains("#EXT-X-ENDLIST") {
                let count = text.components(separatedBy: "#EXTINF:").count - 1
                if seen.last != count { seen.append(count) }
            }
        }
        let recorded = try #require(result)
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(seen.count >= 2 && seen == seen.sorted(), "segment counts seen while recording: \(seen)")
        #expect(parts >= 2, "at most \(parts) parts listed while recording")
        let text = try String(contentsOf: playlist, encoding: .utf8)
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        // Every segment starts on a keyframe and the segments hold every frame the log says
        // (`segment-00001.m4s`; its parts are `segment-00001.1.m4s`…).
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".m4s") && $0.split(separator: ".").count == 2 }.sorted()
        #expect(names.count == text.components(separatedBy: "#EXTINF:").count - 1)
        let initial = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
        var whole = initial
        for name in names {
            let segment = try Data(contentsOf: folder.appendingPathComponent(name))
            whole.append(segment)
            let part = directory.appendingPathComponent("live-\(name).mp4")
            try (initial + segment).write(to: part)
            let first = try ProcessRunner.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "packet=flags", "-of", "csv=p=0", part.path,
                ])
            #expect(first.standardOutput.hasPrefix("K"), "\(name) starts on a keyframe")
        }
        let joined = directory.appendingPathComponent("live-whole.mp4")
        try whole.write(to: joined)
        let line = try #require(recorded.standardError.split(separator: "\n").first { $0.contains("frames to \(playlist.path)") })
        let words = line.split(separator: " ")
        let frames = try #require(words.firstIndex(of: "frames").flatMap { Int(words[$0 - 1]) })
        #expect(try FFprobe.countFrames(joined) == frames, "\(line)")
        #expect(try FFprobe.probe(joined).streams(ofType: "audio").count == 1)
        // The playlist and the file start with the same picture of the camera (its counter)
        // and last as long, to a frame. (The playlist started about 4 frames later: its
        // writer dropped what came while it opened.)
        let (localFirst, hlsFirst) = (try firstCounter(local), try firstCounter(joined))
        let (localSpan, hlsSpan) = (try videoSpan(local), try videoSpan(joined))
        #expect(localFirst == hlsFirst, "the file starts with picture \(localFirst), the playlist with \(hlsFirst)")
        #expect(abs(localSpan - hlsSpan) <= 1.0 / 30 + 1e-3, "the file lasts \(localSpan) s, the playlist \(hlsSpan) s")
        print("live hls: \(seen) \(line); first pictures \(localFirst) (file) and \(hlsFirst) (playlist), "
              + "\(localSpan) s and \(hlsSpan) s, \(try FFprobe.countFrames(local)) and \(frames) frames")
    }

    /// The camera's counter on a file's first picture.
    private func firstCounter(_ url: URL) throws -> Int {
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        try reader.add(output)
        try reader.startReading()
        let picture = try #require(try output.copyNextSampleBuffer()?.pixelBuffer)
        return VirtualCamera.readCounter(picture)
    }

    /// From a file's first picture's time to its last one's end, by ffprobe's packets (which
    /// read no durations from fragments: a frame of the camera's 30 fps then).
    private func videoSpan(_ url: URL) throws -> Double {
        let result = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", url.path])
        let packets = result.standardOutput.split(separator: "\n").compactMap { line -> (Double, Double)? in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let time = fields.first.flatMap({ Double($0) }) else { return nil }
            return (time, fields.dropFirst().first.flatMap { Double($0) } ?? 1.0 / 30)
        }
        let first = try #require(packets.map(\.0).min()), last = try #require(packets.max { $0.0 < $1.0 })
        return last.0 + last.1 - first
    }

    @Test func badRTMPAddressIsOneLine() throws {
        let cases = [
            ("--rtmp", "http://127.0.0.1/live/x"), ("--rtmp", "rtmp://"), ("--rtmp", "rtmp://127.0.0.1/onlyapp"),
            ("--srt", "srt://127.0.0.1"), ("--srt", "udp://127.0.0.1:9000"), ("--srt", "srt://127.0.0.1:99999"),
        ]
        let full = directory.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: full.appendingPathComponent("mine.txt"))
        let refused = try ProcessRunner.reel([
            "record", "-o", directory.appendingPathComponent("x.mp4").path, "--max-duration", "1", "--hls", full.path,
        ])
        #expect(
            refused.status != 0 && refused.standardError.split(separator: "\n").count == 1
                && refused.standardError.contains("not empty"), "\(refused.standardError)")
        try FileManager.default.removeItem(at: full)
        for (option, address) in cases {
            let result = try ProcessRunner.reel([
                "record", "-o", directory.appendingPathComponent("x.mp4").path, "--max-duration", "1", option, address,
            ])
            #expect(
                result.status == 1 && result.standardError.split(separator: "\n").count == 1
                    && result.standardError.contains("\(option) takes"), "\(address): \(result.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}

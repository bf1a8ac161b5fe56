import Foundation
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
        defer {
            if server.isRunning {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
        }
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
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
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
        // the file (under a heavy machine load the virtual camera's own drops are counted apart).
        let probe = try FFprobe.probe(local)
        #expect(abs((probe.duration ?? 0) - 10) < 0.1)
        let line = try #require(recorded.standardError.split(separator: "\n").first { $0.hasPrefix("wrote \(local.path)") })
        let words = line.split(separator: " ")
        let frames = try #require(words.firstIndex(of: "frames,").flatMap { Int(words[$0 - 1]) })
        #expect(try FFprobe.countFrames(local) == frames, "\(line)")
        #expect(frames >= 270, "\(line)")
    }

    @Test func badRTMPAddressIsOneLine() throws {
        for address in ["http://127.0.0.1/live/x", "rtmp://", "rtmp://127.0.0.1/onlyapp"] {
            let result = try ProcessRunner.reel([
                "record", "-o", directory.appendingPathComponent("x.mp4").path,
                "--max-duration", "1", "--rtmp", address,
            ])
            #expect(
                result.status == 1 && result.standardError.split(separator: "\n").count == 1
                    && result.standardError.contains("--rtmp takes"), "\(address): \(result.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}

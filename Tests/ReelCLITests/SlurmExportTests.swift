import Foundation
import ReelTestSupport
import Testing

/// `--slurm` (issue 20) on a real single-node cluster started for each test (``SlurmCluster``):
/// a submission that ends in the right file, a task that fails twice and then succeeds, a
/// task that always fails (one clear line from `reel jobs`, no output), and the node marked
/// down while chunks render (its tasks requeued, the file still right).
///
/// The failing tasks are real failures: the cluster runs `--reel`, a wrapper that starts
/// `reel render-chunk` for chunk 1 with a file-size limit of 512 bytes (`ulimit -f 1`, SIGXFSZ
/// ignored), so writing the chunk fails with EFBIG and reel reports it as it would a full disk.
///
/// The renders are `--no-smart`: smart chunks cut only where the smart render's copies and
/// rendered runs begin, which for these one-GOP clips leaves two chunks, and these tests need
/// the chunk count they ask for (``SmartChunkTests`` covers smart chunks).
@Suite(.serialized) struct SlurmExportTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-slurm-export")
    }

    /// Three 3 s testsrc2 clips with tones, and a spec joining them with dissolves.
    private func spec() throws -> URL {
        for index in 0..<3 {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=3",
                                      "-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * index):sample_rate=48000:duration=3",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                      directory.appendingPathComponent("clip\(index).mp4").path])
        }
        let json = """
            { "preset": "highest", "frameRate": 25,
              "clips": [ { "file": "clip0.mp4", "transition": { "type": "dissolve", "duration": 1 } },
                         { "file": "clip1.mp4", "transition": { "type": "dissolve", "duration": 1 } },
                         { "file": "clip2.mp4" } ] }
            """
        let url = directory.appendingPathComponent("spec.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// A `reel` for the cluster that makes chunk 1's first `failures` tries fail (all, when nil).
    private func failingReel(failures: Int?) throws -> URL {
        let counter = directory.appendingPathComponent("tries")
        let limit = failures.map { "[ \"$n\" -le \($0) ]" } ?? "true"
        let script = """
            #!/bin/sh
            if [ "$1" = render-chunk ] && [ "$3" = 1 ]; then
              n=$(( $(cat '\(counter.path)' 2>/dev/null || echo 0) + 1 ))
              echo "$n" > '\(counter.path)'
              if \(limit); then trap '' XFSZ; ulimit -f 1; fi
            fi
            exec '\(Paths.reelBinary.path)' "$@"

            """
        let url = directory.appendingPathComponent("reel-wrapper.sh")
        try Data(script.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }

    private func run(_ cluster: SlurmCluster, _ arguments: [String], timeout: TimeInterval = 300) throws -> ProcessResult {
        try ProcessRunner.run(Paths.reelBinary.path, arguments, timeout: timeout, environment: cluster.environment)
    }

    @Test(.enabled(if: SlurmCluster.available, "\(SlurmCluster.missing)"))
    func submissionFinishesWithTheRightFile() throws {
        let cluster = try SlurmCluster()
        defer { cluster.stop() }
        print(String(format: "slurm: cluster idle %.2f s after starting", cluster.startSeconds))
        let spec = try spec()
        let single = directory.appendingPathComponent("single.mp4")
        #expect(try ProcessRunner.reel(["compose", spec.path, "-o", single.path], timeout: 300).status == 0)
        let out = directory.appendingPathComponent("slurm.mp4")
        let folder = directory.appendingPathComponent("job")
        let started = Date()
        let result = try run(cluster, ["compose", spec.path, "-o", out.path, "--no-smart", "--slurm", "--chunks", "3", "--job-dir", folder.path])
        print(String(format: "slurm: compose --slurm (3 chunks) %.2f s", Date().timeIntervalSince(started)))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.countFrames(out) == 175)
        #expect(try FFprobe.countFrames(out) == FFprobe.countFrames(single))
        #expect(abs((try FFprobe.probe(out).duration ?? 0) - 7) < 0.001)
        // Every frame within 40 dB of the single render's, and the index in front.
        let worst = try FramePSNR.values(single, out, in: directory).min() ?? 0
        print(String(format: "slurm: worst frame %.2f dB against the single render", worst))
        #expect(worst >= 40)
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: out)).map(\.type)
        #expect((boxes.firstIndex(of: "moov") ?? .max) < (boxes.firstIndex(of: "mdat") ?? -1), "\(boxes)")
        let status = try run(cluster, ["jobs", folder.path])
        #expect(status.status == 0 && status.standardOutput.contains("done"), "\(status.standardOutput)\(status.standardError)")
        // Every chunk ran as a task of the array, on the node.
        for index in 0..<3 {
            let line = try String(contentsOf: folder.appendingPathComponent(String(format: "state/chunk-%04d", index)), encoding: .utf8)
            #expect(line.hasPrefix("done") && line.contains(cluster.nodeName), "\(line)")
        }
        // One worker a CPU (the node has 2), each part claimed once, and a worker joined: the
        // join job, if it started at all before it was cancelled, found the file there.
        let slurm = folder.appendingPathComponent("slurm")
        let logs = try FileManager.default.contentsOfDirectory(atPath: slurm.path).filter { $0.hasPrefix("worker-") }.sorted()
        #expect(logs == ["worker-0.out", "worker-1.out"], "\(logs)")
        let claims = try FileManager.default.contentsOfDirectory(atPath: slurm.appendingPathComponent("claims").path).sorted()
        #expect(claims == ["chunk-0000", "chunk-0001", "chunk-0002", "join", "sound"], "\(claims)")
        if let joinLog = try? String(contentsOf: slurm.appendingPathComponent("join.out"), encoding: .utf8) {
            #expect(joinLog.contains("already joined"), "\(joinLog)")
        }
    }

    @Test(.enabled(if: SlurmCluster.available, "\(SlurmCluster.missing)"))
    func aTaskThatFailsTwiceThenSucceedsEndsRight() throws {
        let cluster = try SlurmCluster()
        defer { cluster.stop() }
        let spec = try spec()
        let out = directory.appendingPathComponent("retried.mp4")
        let folder = directory.appendingPathComponent("job")
        let reel = try failingReel(failures: 2)
        let result = try run(cluster, ["compose", spec.path, "-o", out.path, "--no-smart", "--slurm", "--chunks", "3", "--job-dir", folder.path,
                                       "--reel", reel.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.countFrames(out) == 175)
        let tries = try String(contentsOf: directory.appendingPathComponent("tries"), encoding: .utf8)
        #expect(tries.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
        let line = try String(contentsOf: folder.appendingPathComponent("state/chunk-0001"), encoding: .utf8)
        #expect(line.hasPrefix("done"), "\(line)")
    }

    @Test(.enabled(if: SlurmCluster.available, "\(SlurmCluster.missing)"))
    func aTaskThatAlwaysFailsEndsInOneClearLine() throws {
        let cluster = try SlurmCluster()
        defer { cluster.stop() }
        let spec = try spec()
        let out = directory.appendingPathComponent("never.mp4")
        let folder = directory.appendingPathComponent("job")
        let reel = try failingReel(failures: nil)
        let result = try run(cluster, ["compose", spec.path, "-o", out.path, "--no-smart", "--slurm", "--chunks", "3", "--job-dir", folder.path,
                                       "--reel", reel.path])
        #expect(result.status == 2)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let status = try run(cluster, ["jobs", folder.path])
        print("slurm: reel jobs said: \(status.standardError)")
        #expect(status.status == 2)
        let lines = status.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(status.standardError)")
        #expect(status.standardError.contains("chunk 1 failed (attempt 3)"), "\(status.standardError)")
        #expect(status.standardError.contains("File too large"), "\(status.standardError)")
        #expect(status.standardError.contains("no output was written"), "\(status.standardError)")
        // The join never ran: cancelled by its invalid dependency.
        let join = (try? String(contentsOf: folder.appendingPathComponent("state/join"), encoding: .utf8)) ?? "waiting"
        #expect(!join.hasPrefix("done"))
    }

    @Test(.enabled(if: SlurmCluster.available, "\(SlurmCluster.missing)"))
    func theNodeGoingDownMidJobStillEndsInARightFile() throws {
        let cluster = try SlurmCluster()
        defer { cluster.stop() }
        let spec = try spec()
        let out = directory.appendingPathComponent("requeued.mp4")
        let folder = directory.appendingPathComponent("job")
        // Submitted and waited for in the background; the node goes down once a chunk renders.
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["compose", spec.path, "-o", out.path, "--no-smart", "--slurm", "--chunks", "4", "--job-dir", folder.path]
        process.environment = cluster.environment
        process.standardOutput = FileHandle.nullDevice
        let errors = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        var sawRunning = false
        while Date() < deadline, process.isRunning {
            let states = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("state").path)) ?? []
            sawRunning = states.filter { $0.hasPrefix("chunk-") }.contains { name in
                (try? String(contentsOf: folder.appendingPathComponent("state/\(name)"), encoding: .utf8))?.hasPrefix("running") == true
            }
            if sawRunning { break }
            usleep(20_000)
        }
        #expect(sawRunning, "no chunk was seen rendering")
        let down = try cluster.scontrol(["update", "nodename=\(cluster.nodeName)", "state=down", "reason=test"])
        #expect(down.status == 0, "\(down.standardError)")
        // The node's running tasks are killed and requeued: nothing runs while it is down.
        var queue = try ProcessRunner.run("/usr/bin/squeue", ["-h", "-o", "%i %T %r"], environment: cluster.environment)
        for _ in 0..<100 where queue.standardOutput.contains("RUNNING") || queue.standardOutput.contains("COMPLETING") {
            usleep(100_000)
            queue = try ProcessRunner.run("/usr/bin/squeue", ["-h", "-o", "%i %T %r"], environment: cluster.environment)
        }
        print("slurm: queue with the node down:\n\(queue.standardOutput)")
        #expect(!queue.standardOutput.contains("RUNNING") && queue.standardOutput.contains("PENDING"), "\(queue.standardOutput)")
        let resume = try cluster.scontrol(["update", "nodename=\(cluster.nodeName)", "state=resume"])
        #expect(resume.status == 0, "\(resume.standardError)")
        // reel jobs --wait follows the same job to its end, with progress.
        let waited = try run(cluster, ["jobs", folder.path, "--wait", "--json"])
        #expect(waited.status == 0, "\(waited.standardError)")
        let lines = waited.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.contains(#""progress":1.0000"#) }, "\(waited.standardOutput)")
        #expect(lines.last?.contains("done") == true, "\(waited.standardOutput)")
        let end = Date().addingTimeInterval(300)
        while process.isRunning, Date() < end { usleep(100_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        #expect(try FFprobe.countFrames(out) == 175)
        #expect(abs((try FFprobe.probe(out).duration ?? 0) - 7) < 0.001)
    }
}

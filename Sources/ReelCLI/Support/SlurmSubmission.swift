import Foundation
import ReelCore

/// `--slurm`: a planned job submitted to Slurm with `sbatch`, as three submissions:
///
/// - the workers, one job array (`--array=0-W`, one task a CPU of the cluster, at most one a
///   part): each worker (`reel chunk-worker`) claims the parts in turn, the sound first, then
///   the chunks longest first, runs each with three tries inside the task (a task requeued by
///   hand after failing would leave an `afterok` join stuck forever; exit 1, a usage error, is
///   never retried), and the last worker to finish joins;
/// - the join job, after the array (`--dependency=afterok:…`, `--kill-on-invalid-dep=yes`, so
///   that a failed worker cancels it instead of leaving it pending): the safety net, which
///   joins only when no worker has (`reel join --if-needed`);
/// - the failure job, after any of them fails (`afternotok`), which writes the one line
///   `reel jobs` shows.
///
/// Workers rather than a task a chunk: Slurm took 0.02-0.87 s to hand a freed CPU to the next
/// array task and 0.77 s to start the join job (slurmctld's log, the 10-minute composition of
/// scripts/chunk-bench.sh), about 3.5 s of the 5 s Slurm added to `--jobs 2`'s time.
///
/// Scripts, Slurm's logs, the claims and the job IDs go in `JOB/slurm/`; `JOB/` must be on a
/// filesystem every node sees (docs/scaling.md).
enum SlurmSubmission {
    /// Tries each part gets before its worker fails.
    static let attempts = 3

    /// Submits `job`'s parts and records their IDs in `JOB/slurm/ids` (the array, the join,
    /// the failure job).
    /// - Throws: ``ReelError`` with sbatch's own message when a submission is refused or
    ///   sbatch is missing.
    static func submit(_ job: ChunkJob, folder: URL, console: Console) async throws(ReelError) {
        let slurm = folder.appendingPathComponent("slurm")
        do {
            try FileManager.default.createDirectory(at: slurm, withIntermediateDirectories: true)
        } catch {
            throw ReelError(.io, "cannot make its slurm folder: \(ChunkJob.reason(error))", subject: folder.path)
        }
        let reel = shellQuoted(job.reel), jobFolder = shellQuoted(folder.path)
        let worker = try plainScript("worker.sh", "exec \(reel) chunk-worker \(jobFolder) \"$SLURM_ARRAY_TASK_ID\"", in: slurm)
        let join = try retryingScript("join.sh", "\(reel) join \(jobFolder) --if-needed", in: slurm, for: folder)
        let failed = try plainScript("failed.sh", "exec \(reel) job-failed \(jobFolder)", in: slurm)
        let log = slurm.path
        let common = ["--parsable", "--chdir=\(folder.path)", "--ntasks=1", "--cpus-per-task=1"]
        let parts = job.chunks.count + (job.sound == nil ? 0 : 1)
        let workers = max(1, min(parts, clusterCPUs() ?? parts))
        let array = try sbatch(common + ["--job-name=reel-chunks", "--requeue", "--array=0-\(workers - 1)",
                                         "--output=\(log)/worker-%a.out", worker])
        let joined = try sbatch(common + ["--job-name=reel-join", "--requeue", "--output=\(log)/join.out",
                                          "--dependency=afterok:\(array)", "--kill-on-invalid-dep=yes", join])
        let watched = [array, joined]
        let failure = try sbatch(common + ["--job-name=reel-failed", "--output=\(log)/failed.out",
                                           "--dependency=" + watched.map { "afternotok:\($0)" }.joined(separator: "?"),
                                           "--kill-on-invalid-dep=yes", failed])
        let ids = (watched + [failure]).joined(separator: " ")
        do {
            try Data((ids + "\n").utf8).write(to: slurm.appendingPathComponent("ids"))
        } catch {
            throw ReelError(.io, "cannot record the job IDs: \(ChunkJob.reason(error))", subject: slurm.path)
        }
        console.printError("reel: submitted to Slurm: \(workers) workers \(array) (\(job.chunks.count) chunks\(job.sound == nil ? "" : " and the sound")), "
            + "join \(joined), on failure \(failure)")
    }

    /// The CPUs of the cluster's nodes (`sinfo`'s total), or nil when sinfo cannot say.
    static func clusterCPUs() -> Int? {
        // %C: allocated/idle/other/total CPUs, one line a partition.
        guard let output = try? run("sinfo", ["-h", "-o", "%C"]) else { return nil }
        let totals = output.split(separator: "\n").compactMap { $0.split(separator: "/").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
        return totals.isEmpty ? nil : totals.max()
    }

    /// Writes `JOB/slurm/NAME`, a script of one command.
    static func plainScript(_ name: String, _ command: String, in slurm: URL) throws(ReelError) -> String {
        let url = slurm.appendingPathComponent(name)
        do {
            try Data("#!/bin/sh\n\(command)\n".utf8).write(to: url)
            chmod(url.path, 0o755)
        } catch {
            throw ReelError(.io, "cannot write \(name): \(ChunkJob.reason(error))", subject: slurm.path)
        }
        return url.path
    }

    /// Writes `JOB/slurm/NAME`: `command --attempt N`, retried up to ``attempts`` times, exit 1 never.
    static func retryingScript(_ name: String, _ command: String, in slurm: URL, for folder: URL) throws(ReelError) -> String {
        let url = slurm.appendingPathComponent(name)
        let text = """
            #!/bin/sh
            # Written by reel for \(folder.path); run by sbatch. Retries inside the task:
            # exit 1 (a usage error) is never retried.
            attempt=1
            while :; do
              \(command) --attempt "$attempt"
              status=$?
              [ "$status" -eq 0 ] && exit 0
              [ "$status" -eq 1 ] && exit 1
              [ "$attempt" -ge \(attempts) ] && exit "$status"
              attempt=$((attempt + 1))
              sleep 1
            done

            """
        do {
            try Data(text.utf8).write(to: url)
            chmod(url.path, 0o755)
        } catch {
            throw ReelError(.io, "cannot write \(name): \(ChunkJob.reason(error))", subject: slurm.path)
        }
        return url.path
    }

    /// `reel batch --slurm`: the manifest's lines as one job array, waited for. Returns a line
    /// for each item whose output is missing at the end (the last line of its task's log).
    static func batch(manifest: URL, items: [BatchItem], folder: URL, console: Console) async throws(ReelError) -> [String] {
        let slurm = folder
        do {
            try FileManager.default.createDirectory(at: slurm, withIntermediateDirectories: true)
        } catch {
            throw ReelError(.io, "cannot be made: \(ChunkJob.reason(error))", subject: folder.path)
        }
        let script = try retryingScript("batch.sh", "\(shellQuoted(ChunkJob.ownExecutable)) batch-item \(shellQuoted(manifest.path)) \"$SLURM_ARRAY_TASK_ID\"",
                                        in: slurm, for: folder)
        let array = try sbatch(["--parsable", "--chdir=\(folder.path)", "--ntasks=1", "--cpus-per-task=1", "--job-name=reel-batch",
                                "--requeue", "--array=0-\(items.count - 1)", "--output=\(slurm.path)/item-%a.out", script])
        console.printError("reel: submitted to Slurm: batch \(array) (\(items.count) tasks)")
        return try await BlockingWork.run(onCancel: {}, { () throws(ReelError) in
            while !(try queued([array])).isEmpty { usleep(300_000) }
            var failures: [String] = []
            for (index, item) in items.enumerated() where !FileManager.default.fileExists(atPath: item.output) {
                let log = (try? String(contentsOf: slurm.appendingPathComponent("item-\(index).out"), encoding: .utf8)) ?? ""
                let line = log.split(separator: "\n").last.map(String.init) ?? "the task left no log"
                failures.append("\(item.output) failed: \(line)")
            }
            return failures
        })
    }

    /// Waits until the join has written the output (or the failure job has written its
    /// line), calling `progress` with the frames of the chunks done so far. The state files
    /// are read every 50 ms (the join is seen at most that late); the queue is asked every
    /// second.
    /// - Throws: ``ReelError`` with the failure's line, or when every submitted job has left
    ///   the queue without a result.
    static func wait(_ job: ChunkJob, folder: URL, progress: @escaping @Sendable (Int) -> Void) async throws(ReelError) {
        try await BlockingWork.run(onCancel: {}, { () throws(ReelError) in
            let state = ChunkJobState(job: folder)
            var idleChecks = 0
            var lastAsked = Date.distantPast
            while true {
                let status = JobStatus(job, folder: folder)
                progress(status.framesDone)
                if let failure = status.failure {
                    throw ReelError(.io, failure, subject: folder.path)
                }
                if status.joined {
                    cancelLeftovers(folder)
                    return
                }
                if Date().timeIntervalSince(lastAsked) >= 1 {
                    lastAsked = Date()
                    // Every job gone from the queue and no result: nothing will come.
                    if let ids = submittedIDs(folder), !ids.isEmpty, (try? queued(ids))?.isEmpty == true {
                        idleChecks += 1
                        if idleChecks >= 3, state.failure == nil, !JobStatus(job, folder: folder).joined {
                            throw ReelError(.io, "the Slurm jobs \(ids.joined(separator: ", ")) left the queue without a result (see \(folder.path)/slurm/*.out)",
                                            subject: folder.path)
                        }
                    } else {
                        idleChecks = 0
                    }
                }
                usleep(50_000)
            }
        })
    }

    /// The IDs `submit` recorded, or nil before it has.
    static func submittedIDs(_ folder: URL) -> [String]? {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("slurm/ids").path),
              let text = String(data: data, encoding: .utf8) else { return nil }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    /// Once a worker has joined, the join job (pending on the array) and the failure job
    /// (pending on failures that will not come) are cancelled, the failure job first (a
    /// cancelled join counts as failed for its `afternotok`; were it to start all the same,
    /// `reel job-failed` writes nothing once the output is joined), and so are workers still
    /// waiting for a CPU (on a cluster busier than its CPU count says): they would find
    /// nothing to do, or no job folder once the scratch is removed.
    static func cancelLeftovers(_ folder: URL) {
        guard let ids = submittedIDs(folder), ids.count >= 3 else { return }
        // Pending only: a join job or failure job already running ends by itself (the join
        // finds the output there, the failure job writes nothing), and so does a running worker.
        _ = try? run("scancel", ["--state=PENDING", ids[2], ids[1], ids[0]])
    }

    /// The IDs of `ids` still in the queue (pending or running).
    static func queued(_ ids: [String]) throws(ReelError) -> [String] {
        let output = try run("squeue", ["-h", "-o", "%A", "-j", ids.joined(separator: ",")], allowFailure: true)
        return output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func sbatch(_ arguments: [String]) throws(ReelError) -> String {
        let output = try run("sbatch", arguments)
        // --parsable prints `ID` or `ID;CLUSTER`.
        guard let id = output.split(separator: "\n").first?.split(separator: ";").first.map(String.init), !id.isEmpty,
              id.allSatisfy(\.isNumber) else {
            throw ReelError(.io, "sbatch printed no job ID: \(output)", subject: "sbatch")
        }
        return id
    }

    /// Runs a Slurm client and returns its stdout.
    /// - Throws: ``ReelError`` with its stderr's last line when it fails, or when it is not installed.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws(ReelError) -> String {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        guard let executable = paths.map({ "\($0)/\(tool)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ReelError(.fileNotFound, "is not installed (Debian: apt-get install slurm-client)", subject: tool)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ReelError(.io, "cannot start: \(error.localizedDescription)", subject: tool)
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0, !allowFailure {
            let line = String(decoding: errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "exit \(process.terminationStatus)"
            throw ReelError(.io, line, subject: tool)
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

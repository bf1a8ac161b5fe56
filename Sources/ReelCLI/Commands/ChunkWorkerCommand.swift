import Foundation
import ReelCore

/// `reel chunk-worker JOB/ WORKER`: one task of a Slurm job's array (hidden). It takes the
/// job's parts (the sound first, then the chunks longest first) one after another, each
/// claimed so that no other worker renders it, runs each as `reel render-sound|render-chunk`
/// (three tries, exit 1 never retried, as a task script retries), and, when it finds every
/// part rendered after its last one, joins them itself (`reel join`).
///
/// One worker a CPU of the cluster instead of one task a chunk: a task that ends hands its
/// CPU over to the next through Slurm's scheduler, which took 0.02-0.87 s a time here (2.7 s
/// over six hand-overs on the 10-minute composition), and the join job started 0.77 s after
/// the last chunk ended; a worker goes from one part to the next, and from the last to the
/// join, in a process start.
///
/// Claims are files in `JOB/slurm/claims/`, created exclusively and holding the worker's
/// number. A worker requeued after its node failed starts again with the same number, and
/// takes back the parts it had claimed and not finished. The join job of the submission
/// stays as the safety net (it joins only when no worker has).
struct ChunkWorkerCommand: Command {
    let spec = CommandSpec(
        name: "chunk-worker",
        abstract: "Render a planned job's parts one after another, claimed, then join when all are done.",
        usage: "JOB/ WORKER",
        positionals: 2...2,
        options: [])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let (job, folder) = try ChunkWork.job(arguments)
        guard let worker = Int(arguments.positionals[1]), worker >= 0 else {
            throw UsageError("WORKER is a number from 0, not '\(arguments.positionals[1])'", command: spec.name)
        }
        let claims = ChunkClaims(folder: folder, worker: worker)
        var parts: [(name: String, arguments: [String])] = []
        if job.sound != nil { parts.append(("sound", ["render-sound", folder.path])) }
        for chunk in job.chunks {
            parts.append((ChunkJobState.chunkName(chunk.index), ["render-chunk", folder.path, String(chunk.index)]))
        }
        let state = ChunkJobState(job: folder)
        for part in parts {
            if claims.givenUp { return 0 }
            if case .done = state.read(part.name), Self.rendered(part.name, job: job, folder: folder) { continue }
            guard claims.claim(part.name) else { continue }
            let status = Self.tries(job.reel, part.arguments, console: console)
            if status != 0 {
                claims.giveUp()
                return status
            }
        }
        // Every part rendered (the last worker to finish sees it): the join, here, once.
        let all = parts.allSatisfy { part in
            if case .done = state.read(part.name) { return Self.rendered(part.name, job: job, folder: folder) }
            return false
        }
        guard all, claims.claim("join") else { return 0 }
        let status = Self.tries(job.reel, ["join", folder.path, "--if-needed"], console: console)
        if status != 0 { claims.giveUp() }
        return status
    }

    /// Whether a done part's file is there.
    private static func rendered(_ name: String, job: ChunkJob, folder: URL) -> Bool {
        if name == "sound" {
            return job.sound.map { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) } ?? true
        }
        guard let index = job.chunks.firstIndex(where: { ChunkJobState.chunkName($0.index) == name }) else { return false }
        return FileManager.default.fileExists(atPath: job.chunkFile(index, in: folder).path)
    }

    /// Runs `reel ARGUMENTS --attempt N` up to ``SlurmSubmission/attempts`` times, 1 s apart;
    /// exit 1 (a usage error) is never retried. Returns the last exit status.
    private static func tries(_ reel: String, _ arguments: [String], console: Console) -> Int32 {
        var status: Int32 = 0
        for attempt in 1...SlurmSubmission.attempts {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: reel)
            process.arguments = arguments + ["--attempt", String(attempt)]
            process.standardInput = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                console.printError("reel: cannot start \(reel): \(error.localizedDescription)")
                return 2
            }
            process.waitUntilExit()
            status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
            if status == 0 || status == 1 { return status }
            if attempt < SlurmSubmission.attempts { sleep(1) }
        }
        return status
    }
}

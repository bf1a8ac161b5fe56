import Foundation
import ReelCore

/// Where a chunked export stands, from `JOB/state/` and the files in `JOB/`.
struct JobStatus {
    var done = 0, running = 0, failed = 0, waiting = 0
    var framesDone = 0
    var sound: ChunkJobState.Part = .waiting
    var join: ChunkJobState.Part = .waiting
    /// The first part that failed, as one line.
    var firstFailure: String?
    /// The failure job's line.
    var failureLine: String?
    var joined = false
    let total: Int

    init(_ job: ChunkJob, folder: URL) {
        total = job.chunks.count
        let state = ChunkJobState(job: folder)
        for chunk in job.chunks {
            let rendered = FileManager.default.fileExists(atPath: job.chunkFile(chunk.index, in: folder).path)
            switch state.read(ChunkJobState.chunkName(chunk.index)) {
            case .done where rendered:
                done += 1
                framesDone += chunk.frames
            case .running:
                running += 1
            case .failed(let attempt, let message):
                failed += 1
                if firstFailure == nil { firstFailure = "chunk \(chunk.index) failed (attempt \(attempt)): \(message)" }
            default:
                waiting += 1
            }
        }
        sound = job.sound == nil ? .done(seconds: 0, host: "") : state.read("sound")
        join = state.read("join")
        if firstFailure == nil, case .failed(let attempt, let message) = sound {
            firstFailure = "the sound failed (attempt \(attempt)): \(message)"
        }
        if firstFailure == nil, case .failed(let attempt, let message) = join {
            firstFailure = "the join failed (attempt \(attempt)): \(message)"
        }
        failureLine = state.failure
        if case .done = join { joined = FileManager.default.fileExists(atPath: job.output) }
    }

    /// The job's end, when it has failed: the failure job's line.
    var failure: String? { failureLine }

    func describe(_ part: ChunkJobState.Part) -> String {
        switch part {
        case .waiting: "waiting"
        case .running(let attempt, let host): attempt > 1 ? "running on \(host) (attempt \(attempt))" : "running on \(host)"
        case .done(let seconds, _): String(format: "done in %.1f s", seconds)
        case .failed(let attempt, _): "failed (attempt \(attempt))"
        }
    }

    /// One line: chunks done, running, failed; the sound; the join.
    var summary: String {
        "chunks \(done)/\(total) done, \(running) running, \(failed) failed; sound \(describe(sound)); join \(describe(join))"
    }
}

/// `reel jobs JOB/ [--wait]`: how far a chunked export is.
struct JobsCommand: Command {
    let spec = CommandSpec(
        name: "jobs",
        abstract: "Show how far a chunked export is (chunks done, running, failed); --wait draws a progress bar.",
        usage: "JOB/ [--wait] [--json]",
        positionals: 1...1,
        options: [
            .flag("wait", help: "Wait for the join, with a progress bar; exit 0 when the file is written, 2 when the job failed."),
            .flag("json", help: "With --wait: progress as JSON lines on stdout."),
        ],
        discussion: "Exit status: 0 done (or still going, without --wait), 2 failed.")

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let (job, folder) = try ChunkWork.job(arguments)
        if arguments.flag("wait") {
            let total = job.chunks.reduce(0) { $0 + $1.frames }
            let progress = ProgressReporter(console: console, json: arguments.flag("json"), total: Double(max(total, 1)), label: "jobs")
            let box = ProgressBox(progress)
            try await SlurmSubmission.wait(job, folder: folder) { box.update(Double($0)) }
            progress.finish()
        }
        let status = JobStatus(job, folder: folder)
        if let failure = status.failure {
            throw ReelError(.io, failure, subject: folder.path)
        }
        if status.joined {
            console.print("\(folder.path): done: \(job.output) (\(status.total) chunks joined)")
        } else {
            console.print("\(folder.path): \(status.summary)")
        }
        return 0
    }
}

/// `reel job-failed JOB/`: what the failure job runs (hidden): writes the first failure
/// as the job's status line.
struct JobFailedCommand: Command {
    let spec = CommandSpec(name: "job-failed", abstract: "Record that a chunked export failed.", usage: "JOB/", positionals: 1...1,
                           options: [])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let (job, folder) = try ChunkWork.job(arguments)
        let status = JobStatus(job, folder: folder)
        if status.joined { return 0 }
        let line = "failed: " + (status.firstFailure ?? "a part of the job failed without a word (see \(folder.path)/slurm/*.out)")
            + "; no output was written"
        ChunkJobState(job: folder).writeLine("failed", line)
        console.print(line)
        return 0
    }
}

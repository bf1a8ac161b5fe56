import Foundation
import ReelComposition
import ReelCore

/// `--jobs N`: renders a planned job's parts in N `reel` processes on this machine (the
/// sound first, then the chunks longest first, a new one as each ends), then joins them in
/// this process. The first part that fails stops the others; its error is the one line
/// the command prints.
final class LocalChunkRunner: @unchecked Sendable {
    private struct Task {
        let name: String
        let arguments: [String]
        let frames: Int
    }

    private let job: ChunkJob
    private let folder: URL
    private let width: Int
    private let lock = NSLock()
    private var cancelled = false

    init(job: ChunkJob, folder: URL, jobs: Int) {
        self.job = job
        self.folder = folder
        width = max(1, jobs)
    }

    /// Renders every part, then joins. `progress` gets the frames rendered so far.
    func run(progress: @escaping @Sendable (Int) -> Void) async throws(ReelError) {
        try await BlockingWork.run(
            onCancel: { [self] in lock.withLock { cancelled = true } },
            { [self] () throws(ReelError) in
                try renderParts(progress: progress)
                try ChunkWork.joinNow(job, folder: folder)
            })
    }

    private func renderParts(progress: @Sendable (Int) -> Void) throws(ReelError) {
        var tasks: [Task] = []
        if job.sound != nil { tasks.append(Task(name: "sound", arguments: ["render-sound", folder.path], frames: 0)) }
        for chunk in job.chunks {
            tasks.append(Task(name: "chunk \(chunk.index)", arguments: ["render-chunk", folder.path, String(chunk.index)], frames: chunk.frames))
        }
        let executable = URL(fileURLWithPath: ChunkJob.ownExecutable)
        var running: [(Task, Process, URL)] = []
        var next = 0
        var framesDone = 0
        func stopAll() {
            for (_, process, _) in running where process.isRunning { process.terminate() }
            for (_, process, _) in running {
                process.waitUntilExit()
                ChildProcesses.finished(process)
            }
        }
        while next < tasks.count || !running.isEmpty {
            if lock.withLock({ cancelled }) {
                stopAll()
                throw ReelError(.cancelled, "the export was cancelled", subject: job.output)
            }
            while running.count < width, next < tasks.count {
                let task = tasks[next]
                next += 1
                let log = folder.appendingPathComponent("state").appendingPathComponent(
                    task.name.replacingOccurrences(of: " ", with: "-") + ".log")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                let process = Process()
                process.executableURL = executable
                process.arguments = task.arguments
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = (try? FileHandle(forWritingTo: log)) ?? FileHandle.nullDevice
                do {
                    try ChildProcesses.run(process)
                } catch {
                    stopAll()
                    throw ReelError(.io, "cannot start \(executable.path): \(error.localizedDescription)", subject: job.output)
                }
                running.append((task, process, log))
            }
            usleep(20_000)
            var still: [(Task, Process, URL)] = []
            for entry in running {
                let (task, process, log) = entry
                if process.isRunning {
                    still.append(entry)
                    continue
                }
                ChildProcesses.finished(process)
                guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                    ChildProcesses.waitIfStopping()
                    stopAll()
                    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                    let line = text.split(separator: "\n").last.map(String.init)
                        ?? "exited with status \(process.terminationStatus)"
                    throw ReelError(.io, "\(task.name) failed: \(line)", subject: job.output)
                }
                framesDone += task.frames
                progress(framesDone)
            }
            running = still
        }
    }
}

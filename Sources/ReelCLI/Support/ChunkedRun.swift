import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel compose|export|merge … --jobs N | --slurm`: the export planned into chunks, rendered
/// in parallel (local processes or Slurm tasks) and joined, instead of one render.
enum ChunkedRun {
    /// Runs the chunked export when `--jobs` or `--slurm` is given, and returns false otherwise
    /// (the caller then exports as usual).
    /// - Throws: ``UsageError`` for a bad option; ``ReelError`` naming the part that failed.
    static func runIfAsked(_ arguments: ParsedArguments, command: String, source: ChunkJob.Source, session: () throws -> ExportSession,
                           output: URL, console: Console) async throws -> Bool {
        let jobs = try arguments.int("jobs", in: 1...64)
        let slurm = arguments.flag("slurm")
        guard jobs != nil || slurm else {
            if ["chunks", "chunk-seconds", "job-dir", "reel"].contains(where: { arguments.value($0) != nil }) {
                throw UsageError("--chunks, --chunk-seconds, --job-dir and --reel go with --jobs N or --slurm", command: command)
            }
            return false
        }
        if jobs != nil, slurm { throw UsageError("give --jobs N or --slurm, not both", command: command) }
        let request = try ChunkOptions.request(arguments, command: command) ?? .count(slurm ? 8 : 2 * (jobs ?? 1))
        let output = output.standardizedFileURL
        var isFolder: ObjCBool = false
        let outputFolder = output.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: outputFolder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReelError(.fileNotFound, "the folder \(outputFolder) does not exist", subject: output.path)
        }
        let given = arguments.value("job-dir").map { URL(fileURLWithPath: $0).standardizedFileURL }
        let folder = given ?? output.deletingLastPathComponent().appendingPathComponent(
            ".\(output.deletingPathExtension().lastPathComponent).reel-job-\(UUID().uuidString.prefix(8))")
        var finished = false
        // A job folder Reel made is scratch: removed when done, after a local failure, and when a
        // signal ends the command (its workers stopped first).
        if given == nil, !slurm { InProgressFiles.add(folder) }
        defer {
            if given == nil, finished || !slurm { try? FileManager.default.removeItem(at: folder) }
            InProgressFiles.remove(folder)
        }
        let whole = try session()
        whole.smartRender = !arguments.flag("no-smart")
        if arguments.flag("explain") {
            if whole.smartRender {
                for line in try SmartRenderPlan.make(for: whole).lines { console.print(line) }
            } else {
                console.print("smart render: off (--no-smart): every frame is rendered")
            }
        }
        let job = try ChunkJob.prepare(source: source, session: whole, request: request, folder: folder, output: output,
                                       reel: arguments.value("reel").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                                           ?? ChunkJob.ownExecutable)
        let total = job.chunks.reduce(0) { $0 + $1.frames }
        let progress = ProgressReporter(console: console, json: arguments.flag("json"), total: Double(max(total, 1)), label: command)
        let box = ProgressBox(progress)
        if let jobs {
            try await LocalChunkRunner(job: job, folder: folder, jobs: jobs).run { box.update(Double($0)) }
        } else {
            try await SlurmSubmission.submit(job, folder: folder, console: console)
            try await SlurmSubmission.wait(job, folder: folder) { box.update(Double($0)) }
        }
        progress.finish()
        finished = true
        return true
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// The work of a chunked export, one part per process: what `--jobs` starts locally and
/// the Slurm tasks run. Each records its state in `JOB/state/` (``ChunkJobState``) and
/// writes its file under a temporary name, renamed when complete, so a retried or
/// requeued part starts over cleanly.
enum ChunkWork {
    /// Loads the job in the first positional.
    static func job(_ arguments: ParsedArguments) throws(ReelError) -> (ChunkJob, URL) {
        let folder = URL(fileURLWithPath: arguments.positionals[0]).standardizedFileURL
        return (try ChunkJob.load(folder), folder)
    }

    /// Runs `work`, recording it as `name` in the job's state: running, then done with its
    /// wall time, or failed with the error's line.
    static func recorded(_ name: String, folder: URL, attempt: Int, _ work: () async throws -> Void) async throws {
        let state = ChunkJobState(job: folder)
        state.write(name, .running(attempt: attempt, host: ChunkJobState.host))
        let started = Date()
        do {
            try await work()
            state.write(name, .done(seconds: Date().timeIntervalSince(started), host: ChunkJobState.host))
        } catch {
            state.write(name, .failed(attempt: attempt, message: "\(error)"))
            throw error
        }
    }
}

/// `reel render-chunk JOB/ INDEX`: renders one chunk of a planned job (hidden).
struct RenderChunkCommand: Command {
    let spec = CommandSpec(
        name: "render-chunk",
        abstract: "Render one chunk of a planned job (reel plan).",
        usage: "JOB/ INDEX [--attempt N]",
        positionals: 2...2,
        options: [.value("attempt", "N", help: "Which try this is, for reel jobs (1 by default).")])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let attempt = try arguments.int("attempt", in: 1...1000) ?? 1
        let (job, folder) = try ChunkWork.job(arguments)
        guard let index = Int(arguments.positionals[1]), job.chunks.indices.contains(index) else {
            throw UsageError("INDEX is a chunk from 0 to \(job.chunks.count - 1), not '\(arguments.positionals[1])'", command: spec.name)
        }
        try await ChunkWork.recorded(ChunkJobState.chunkName(index), folder: folder, attempt: attempt) {
            let session = try job.session()
            let plan = job.plan
            let url = job.chunkFile(index, in: folder)
            try await BlockingWork.run(onCancel: {}, { () throws(ReelError) in
                try ChunkedExport.renderChunk(plan.chunks[index], of: session, plan: plan, to: url)
            })
        }
        return 0
    }
}

/// `reel render-sound JOB/`: renders the sound of the whole timeline once (hidden).
struct RenderSoundCommand: Command {
    let spec = CommandSpec(
        name: "render-sound",
        abstract: "Render the sound of a planned job's whole timeline.",
        usage: "JOB/ [--attempt N]",
        positionals: 1...1,
        options: [.value("attempt", "N", help: "Which try this is, for reel jobs (1 by default).")])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let attempt = try arguments.int("attempt", in: 1...1000) ?? 1
        let (job, folder) = try ChunkWork.job(arguments)
        guard let sound = job.sound else {
            console.print("\(folder.path): the composition is silent; no sound to render")
            return 0
        }
        try await ChunkWork.recorded("sound", folder: folder, attempt: attempt) {
            let session = try job.session()
            try await BlockingWork.run(onCancel: {}, { () throws(ReelError) in
                try ChunkedExport.renderSound(of: session, to: folder.appendingPathComponent(sound))
            })
        }
        return 0
    }
}

/// `reel join JOB/`: joins the rendered chunks and the sound into the output (hidden).
struct JoinCommand: Command {
    let spec = CommandSpec(
        name: "join",
        abstract: "Join a planned job's rendered chunks and sound by stream copy.",
        usage: "JOB/ [--attempt N] [--if-needed]",
        positionals: 1...1,
        options: [.value("attempt", "N", help: "Which try this is, for reel jobs (1 by default)."),
                  .flag("if-needed", help: "Do nothing when the join is recorded done and the output is there (Slurm's join job, after a worker joined).")])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let attempt = try arguments.int("attempt", in: 1...1000) ?? 1
        let (job, folder) = try ChunkWork.job(arguments)
        if arguments.flag("if-needed"), case .done = ChunkJobState(job: folder).read("join"),
           FileManager.default.fileExists(atPath: job.output) {
            console.print("\(job.output): already joined")
            return 0
        }
        try await ChunkWork.recorded("join", folder: folder, attempt: attempt) {
            try ChunkWork.joinNow(job, folder: folder)
        }
        console.print("\(job.output): \(job.chunks.count) chunks joined, \(Format.seconds(job.duration.mediaTime))")
        return 0
    }
}

extension ChunkWork {
    /// Joins `job`'s parts into its output.
    /// - Throws: ``ReelError`` naming the first chunk or the sound that is not rendered.
    static func joinNow(_ job: ChunkJob, folder: URL) throws(ReelError) {
        let files = job.chunks.indices.map { job.chunkFile($0, in: folder) }
        for (index, file) in files.enumerated() where !FileManager.default.fileExists(atPath: file.path) {
            throw ReelError(.fileNotFound, "chunk \(index) is not rendered (reel render-chunk \(folder.path) \(index))", subject: file.path)
        }
        let sound = job.sound.map { folder.appendingPathComponent($0) }
        if let sound, !FileManager.default.fileExists(atPath: sound.path) {
            throw ReelError(.fileNotFound, "the sound is not rendered (reel render-sound \(folder.path))", subject: sound.path)
        }
        let output = URL(fileURLWithPath: job.output)
        let type = FileType(pathExtension: output.pathExtension) ?? .mp4
        try ChunkedExport.join(job.plan, chunkFiles: files, sound: sound, to: output, fileType: type)
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel plan SPEC.json|FILE --chunks N -o JOB/`: the cut list and job description of a
/// chunked export, for `reel render-chunk`, `render-sound` and `join` to carry out (by hand,
/// through `--jobs`, or on a Slurm cluster).
struct PlanCommand: Command {
    let spec = CommandSpec(
        name: "plan",
        abstract: "Cut a composition into chunks for a parallel export (writes JOB/job.json).",
        usage: "SPEC.json|FILE (--chunks N | --chunk-seconds S) -o JOB/ [--preset NAME] [--to OUT.mp4] [--reel PATH]",
        positionals: 1...1,
        options: [
            .value("output", short: "o", "JOB", help: "The job folder (made if missing; its parent must exist)."),
            .value("chunks", "N", help: "How many chunks (1-10000)."),
            .value("chunk-seconds", "S", help: "How long each chunk, about (0.1 s or more)."),
            .value("preset", "NAME", help: "The export preset (default: the spec's; highest for a file)."),
            .value("to", "OUT", help: "The file the join writes (.mp4, .mov, .m4v; default JOB/output.mp4)."),
            .value("reel", "PATH", help: "The reel the cluster's nodes run (default: this one)."),
            .flag("no-smart", help: "Render every frame of every chunk (default: copy the GOPs the edit leaves untouched, when the sources allow)."),
        ],
        discussion: """
        Chunks start on the output's GOP grid (2 s, shorter for short timelines), never inside a
        transition or an overlay's animation, and are listed longest first. Each is rendered
        picture only, with closed GOPs; the sound is rendered once for the whole timeline; the
        join copies both without re-encoding. When the sources allow a smart render, each chunk
        is its part of it (untouched GOPs copied) and the cuts fall where its GOPs and rendered
        runs begin. See docs/scaling.md and docs/smart-render.md.

        Example:
          reel plan wedding.json --chunks 8 -o /shared/jobs/wedding/ --to /shared/out/wedding.mp4
          reel render-chunk /shared/jobs/wedding/ 0     (… each chunk, then)
          reel render-sound /shared/jobs/wedding/
          reel join /shared/jobs/wedding/
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let request = try ChunkOptions.request(arguments, command: spec.name, required: true) ?? .count(1)
        guard let folderPath = arguments.value("output") else { throw UsageError("'plan' needs -o JOB/", command: spec.name) }
        let folder = URL(fileURLWithPath: folderPath).standardizedFileURL
        let input = URL(fileURLWithPath: arguments.positionals[0]).standardizedFileURL
        let source = input.pathExtension.lowercased() == "json"
            ? ChunkJob.Source(kind: "compose", spec: input.path)
            : ChunkJob.Source(kind: "export", files: [input.path])
        let output: URL
        if let to = arguments.value("to") {
            output = URL(fileURLWithPath: to).standardizedFileURL
            guard let type = FileType(pathExtension: output.pathExtension), [.mp4, .mov, .m4v].contains(type) else {
                throw UsageError("--to must end in .mp4, .mov or .m4v, not '\(to)'", command: spec.name)
            }
        } else {
            output = folder.appendingPathComponent("output.mp4")
        }
        // The joined file may replace nothing the job reads: the file, or the spec and all it names.
        let inputs = source.kind == "compose" ? try CompositionSpec(contentsOf: input).inputs(specURL: input) : [("the input", input.path)]
        try OutputGuard.refuse(output: output, replacing: inputs)
        let session = try ChunkJob.session(source, preset: arguments.value("preset"))
        session.smartRender = !arguments.flag("no-smart")
        let reel = arguments.value("reel").map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? ChunkJob.ownExecutable
        let job = try ChunkJob.prepare(source: source, session: session, request: request, folder: folder, output: output, reel: reel)
        console.print(ChunkOptions.describe(job, folder: folder))
        return 0
    }
}

/// What the chunked commands share: the `--chunks`/`--chunk-seconds`/`--jobs` options and
/// the plan's description.
enum ChunkOptions {
    static let options: [OptionSpec] = [
        .value("jobs", "N", help: "Render in N local processes: chunks, the sound once, then a join by stream copy (1-64)."),
        .value("chunks", "N", help: "With --jobs or --slurm: how many chunks (default: 2 per job, 8 on Slurm)."),
        .value("chunk-seconds", "S", help: "With --jobs or --slurm: chunks of about S seconds instead."),
        .flag("slurm", help: "Submit the chunks to Slurm (sbatch) and wait; scratch under --job-dir."),
        .value("job-dir", "DIR", help: "The job folder (default: beside the output; on Slurm it must be shared by every node)."),
        .value("reel", "PATH", help: "With --slurm: the reel the nodes run (default: this one)."),
    ]

    /// `--chunks N` or `--chunk-seconds S`, or nil when neither is given.
    static func request(_ arguments: ParsedArguments, command: String, required: Bool = false) throws(UsageError) -> ChunkPlan.Request? {
        if arguments.value("chunks") != nil, arguments.value("chunk-seconds") != nil {
            throw UsageError("give --chunks or --chunk-seconds, not both", command: command)
        }
        if let count = try arguments.int("chunks", in: 1...ChunkPlan.maximumChunks) { return .count(count) }
        if let seconds = try arguments.double("chunk-seconds", in: 0.1...1e6) { return .seconds(seconds) }
        if required { throw UsageError("'\(command)' needs --chunks N or --chunk-seconds S", command: command) }
        return nil
    }

    /// The plan, for people: one line for the job, one per chunk.
    static func describe(_ job: ChunkJob, folder: URL) -> String {
        let cuts = job.smart == true ? "smart (cut where copied GOPs and rendered runs begin)" : "GOP \(job.framesPerGOP) frames"
        var lines = [String(format: "%@: %d chunks, %d frames, %@, %.3f s, sound %@", folder.path, job.chunks.count,
                            job.chunks.reduce(0) { $0 + $1.frames }, cuts, job.duration.seconds,
                            job.sound == nil ? "none" : "rendered once")]
        for chunk in job.chunks {
            lines.append(String(format: "  %@  %9.3f - %9.3f s  %6d frames", chunk.file, chunk.start.seconds, chunk.end.seconds, chunk.frames))
        }
        if !job.keptWhole.isEmpty {
            lines.append("  kept whole: " + job.keptWhole.map { String(format: "%.3f-%.3f", $0.first ?? 0, $0.last ?? 0) }.joined(separator: ", "))
        }
        lines.append("  joins into \(job.output)")
        return lines.joined(separator: "\n")
    }
}

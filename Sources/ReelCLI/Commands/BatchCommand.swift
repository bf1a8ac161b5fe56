import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// One line of a batch manifest: `INPUT<TAB>OUTPUT[<TAB>PRESET]`.
struct BatchItem: Sendable {
    var input: String
    var output: String
    var preset: String?

    /// What `reel` runs for it: `compose` for a spec, `export` for a file.
    var arguments: [String] {
        let spec = input.lowercased().hasSuffix(".json")
        var arguments = [spec ? "compose" : "export", input, "-o", output]
        if let preset { arguments += ["--preset", preset] } else if !spec { arguments += ["--preset", "highest"] }
        return arguments
    }

    /// Reads `url`: one item a line, tab-separated; blank lines and lines starting with `#`
    /// skipped; paths relative to the manifest's folder.
    /// - Throws: ``ReelError`` naming `MANIFEST:LINE` and the cause.
    static func read(_ url: URL) throws(ReelError) -> [BatchItem] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReelError(.fileNotFound, "cannot be read (no such file?)", subject: url.path)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ReelError(.invalidData, "is not UTF-8 text", subject: url.path) }
        let folder = url.deletingLastPathComponent()
        func resolved(_ path: String) -> String { path.hasPrefix("/") ? path : folder.appendingPathComponent(path).standardizedFileURL.path }
        var items: [BatchItem] = []
        var outputs: [String: Int] = [:]
        var lines: [Int] = []
        // "\r\n" is one Character in Swift, so a CRLF manifest is split on either ending.
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let place = "\(url.path):\(number + 1)"
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 2 || fields.count == 3, !fields[0].isEmpty, !fields[1].isEmpty else {
                throw ReelError(.invalidData, "wants INPUT<TAB>OUTPUT[<TAB>PRESET], not '\(ReelError.quoted(line))'", subject: place)
            }
            let item = BatchItem(input: resolved(fields[0]), output: resolved(fields[1]),
                                 preset: fields.count == 3 && !fields[2].isEmpty ? fields[2] : nil)
            guard FileManager.default.fileExists(atPath: item.input) else {
                throw ReelError(.fileNotFound, "the input \(item.input) does not exist", subject: place)
            }
            guard let type = FileType(pathExtension: URL(fileURLWithPath: item.output).pathExtension), [.mp4, .mov, .m4v].contains(type) else {
                throw ReelError(.invalidArgument, "the output must end in .mp4, .mov or .m4v, not '\(fields[1])'", subject: place)
            }
            if let preset = item.preset, !ExportPreset.allCases.contains(where: { $0.rawValue == preset }) {
                throw ReelError(.invalidArgument, "the preset is one of \(ExportPreset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(preset)'",
                                subject: place)
            }
            // Every line is checked before any renders: the output's name and folder too.
            let output = URL(fileURLWithPath: item.output)
            guard item.output.utf8.count < Int(PATH_MAX), output.pathComponents.allSatisfy({ $0.utf8.count <= Int(NAME_MAX) }) else {
                throw ReelError(.invalidArgument, "the output's name is longer than a file name or path may be", subject: place)
            }
            var isFolder: ObjCBool = false
            let outputFolder = output.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: outputFolder.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw ReelError(.fileNotFound, "the output's folder \(outputFolder.path) does not exist", subject: place)
            }
            // Two lines writing one file, also through a symbolic link to the folder.
            let target = outputFolder.resolvingSymlinksInPath().appendingPathComponent(output.lastPathComponent).path
            if let earlier = outputs[target] {
                throw ReelError(.invalidArgument, "writes \(item.output), as line \(earlier) does", subject: place)
            }
            outputs[target] = number + 1
            items.append(item)
            lines.append(number + 1)
        }
        guard !items.isEmpty else { throw ReelError(.invalidData, "lists nothing to render", subject: url.path) }
        // No line may write over the manifest or what any line reads, its own input or another's.
        let reads = [("the manifest", url.path)] + zip(items, lines).map { item, line in ("the input of line \(line)", item.input) }
        for (item, line) in zip(items, lines) {
            if let label = OutputGuard.clash(output: URL(fileURLWithPath: item.output), with: reads) {
                throw ReelError(.invalidArgument, "the output \(item.output) would overwrite \(label)", subject: "\(url.path):\(line)")
            }
        }
        return items
    }
}

/// `reel batch MANIFEST.tsv [--jobs N | --slurm]`: many renders, one a line.
struct BatchCommand: Command {
    let spec = CommandSpec(
        name: "batch",
        abstract: "Render a manifest of specs or files (INPUT<TAB>OUTPUT[<TAB>PRESET] a line) locally or as a Slurm job array.",
        usage: "MANIFEST.tsv [--jobs N | --slurm [--job-dir DIR]]",
        positionals: 1...1,
        options: [
            .value("jobs", "N", help: "Render N lines at a time in local reel processes (1-64, default 1)."),
            .flag("slurm", help: "Submit the lines as one Slurm job array (each task retried inside its script) and wait."),
            .value("job-dir", "DIR", help: "With --slurm: the folder for the scripts and state (default beside the manifest)."),
        ],
        discussion: """
        A .json input is composed (reel compose), any other file exported (reel export, highest
        by default). Every line is checked before anything renders; a failed line does not stop
        the others, and each failure is one line on stderr (exit 2).

        Example:
          printf 'a.json\\ta.mp4\\nclip.mov\\tclip-720.mp4\\t1280x720\\n' > uploads.tsv
          reel batch uploads.tsv --jobs 2
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let jobs = try arguments.int("jobs", in: 1...64)
        let slurm = arguments.flag("slurm")
        if jobs != nil, slurm { throw UsageError("give --jobs N or --slurm, not both", command: spec.name) }
        if arguments.value("job-dir") != nil, !slurm { throw UsageError("--job-dir goes with --slurm", command: spec.name) }
        let manifest = URL(fileURLWithPath: arguments.positionals[0]).standardizedFileURL
        let items = try BatchItem.read(manifest)
        var failures: [String]
        if slurm {
            let folder = arguments.value("job-dir").map { URL(fileURLWithPath: $0).standardizedFileURL }
                ?? manifest.deletingLastPathComponent().appendingPathComponent(".\(manifest.deletingPathExtension().lastPathComponent).reel-batch")
            failures = try await SlurmSubmission.batch(manifest: manifest, items: items, folder: folder, console: console)
        } else {
            failures = try await BlockingWork.run(onCancel: {}, { () throws(ReelError) in
                try Self.runLocally(items, width: jobs ?? 1)
            })
        }
        for failure in failures { console.printError("reel batch: \(failure)") }
        console.print("batch: \(items.count - failures.count) of \(items.count) written")
        return failures.isEmpty ? 0 : 2
    }

    /// Runs the items `width` at a time and returns a line for each that failed.
    static func runLocally(_ items: [BatchItem], width: Int) throws(ReelError) -> [String] {
        let executable = URL(fileURLWithPath: ChunkJob.ownExecutable)
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("reel-batch-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        } catch {
            throw ReelError(.io, "cannot make a folder for the logs: \(ChunkJob.reason(error))", subject: logs.path)
        }
        InProgressFiles.add(logs)
        defer {
            try? FileManager.default.removeItem(at: logs)
            InProgressFiles.remove(logs)
        }
        var failures: [(Int, String)] = []
        var running: [(Int, Process, URL)] = []
        var next = 0
        while next < items.count || !running.isEmpty {
            while running.count < width, next < items.count {
                let log = logs.appendingPathComponent("\(next).log")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                let process = Process()
                process.executableURL = executable
                process.arguments = items[next].arguments
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = (try? FileHandle(forWritingTo: log)) ?? FileHandle.nullDevice
                do {
                    try ChildProcesses.run(process)
                } catch {
                    throw ReelError(.io, "cannot start \(executable.path): \(error.localizedDescription)", subject: "batch")
                }
                running.append((next, process, log))
                next += 1
            }
            usleep(20_000)
            running.removeAll { index, process, log in
                guard !process.isRunning else { return false }
                ChildProcesses.finished(process)
                if process.terminationReason != .exit || process.terminationStatus != 0 {
                    ChildProcesses.waitIfStopping()
                    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                    let line = text.split(separator: "\n").last.map(String.init) ?? "exit \(process.terminationStatus)"
                    failures.append((index, "\(items[index].output) failed: \(line)"))
                }
                return true
            }
        }
        return failures.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

/// `reel batch-item MANIFEST INDEX`: what a batch's Slurm task runs (hidden): the line's render.
struct BatchItemCommand: Command {
    let spec = CommandSpec(name: "batch-item", abstract: "Render one line of a batch manifest.", usage: "MANIFEST INDEX [--attempt N]",
                           positionals: 2...2, options: [.value("attempt", "N", help: "Which try this is.")])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let items = try BatchItem.read(URL(fileURLWithPath: arguments.positionals[0]))
        guard let index = Int(arguments.positionals[1]), items.indices.contains(index) else {
            throw UsageError("INDEX is a line from 0 to \(items.count - 1), not '\(arguments.positionals[1])'", command: spec.name)
        }
        return await ReelCLI.main(items[index].arguments, console: console)
    }
}

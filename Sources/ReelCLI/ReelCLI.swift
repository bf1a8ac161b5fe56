import ReelAsset
import ReelCore

/// The `reel` command line: finds the subcommand, parses its arguments, runs it and
/// turns every failure into one line on stderr and an exit status.
///
/// Exit status: 0 on success, 1 for a usage error, 2 when the work failed.
public enum ReelCLI {
    public static let version = "0.1.0"

    static let commands: [any Command] = [
        ProbeCommand(), ThumbnailCommand(), ContactSheetCommand(), TranscodeCommand(), FiltersCommand(), FilterCommand(), StabilizeCommand(),
        MergeCommand(), ComposeCommand(), SubtitlesCommand(), TimelineCommand(), ExportCommand(), SpeedCommand(), DemoCommand(),
        DevicesCommand(), RecordCommand(), PhotoCommand(), ShootCommand(), StudioCommand(), RecoverCommand(), PlayCommand(),
        PlanCommand(), JobsCommand(), RenderChunkCommand(), RenderSoundCommand(), JoinCommand(), ChunkWorkerCommand(), JobFailedCommand(), BatchCommand(), BatchItemCommand(),
    ]

    /// The parts of a chunked export's work that `--jobs` and Slurm tasks run: not listed in the overview.
    static let hiddenCommands: Set<String> = ["render-chunk", "render-sound", "join", "chunk-worker", "job-failed", "batch-item"]

    /// Runs `reel` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) async -> Int32 {
        await main(arguments, console: .system)
    }

    static func main(_ arguments: [String], console: Console) async -> Int32 {
        guard let first = arguments.first else {
            console.printError(overview)
            return 1
        }
        switch first {
        case "--help", "-h", "help":
            if arguments.count > 1, let command = commands.first(where: { $0.spec.name == arguments[1] }) {
                console.print(command.spec.help)
            } else {
                console.print(overview)
            }
            return 0
        case "--version", "-V":
            console.print("reel \(version) (\(MediaLibraries.versions))")
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            console.printError("reel: \(UsageError(first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"))")
            return 1
        }
        do {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.flag("help") {
                console.print(command.spec.help)
                return 0
            }
            return try await command.run(parsed, console: console)
        } catch let error as UsageError {
            console.printError("reel \(first): \(error)")
            return 1
        } catch let error as ReelError {
            console.printError("reel \(first): \(error)")
            return 2
        } catch {
            console.printError("reel \(first): \(error)")
            return 2
        }
    }

    static var overview: String {
        let width = commands.filter { !hiddenCommands.contains($0.spec.name) }.map(\.spec.name.count).max() ?? 0
        let list = commands.filter { !hiddenCommands.contains($0.spec.name) }.map { "  \($0.spec.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.spec.abstract)" }
        return (["reel: AVFoundation's camera, recording and editing powers for Linux.", "",
                 "Usage: reel COMMAND [OPTIONS] [ARGUMENTS]", "", "Commands:"] + list
                + ["", "Options:", "  -h, --help     Show help (also 'reel COMMAND --help').",
                   "  -V, --version  Show the version of reel and of FFmpeg."]).joined(separator: "\n")
    }
}

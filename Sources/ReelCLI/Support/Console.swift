import Foundation

/// Where a command's output goes: the process's stdout and stderr, or buffers in tests.
struct Console: Sendable {
    var writeOutput: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    /// Whether stderr is a terminal, so progress bars may redraw in place.
    var errorIsTerminal: Bool

    static let system = Console(
        writeOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeError: { FileHandle.standardError.write(Data($0.utf8)) },
        errorIsTerminal: isatty(STDERR_FILENO) != 0)

    /// A line on stdout.
    func print(_ line: String) { writeOutput(line + "\n") }
    /// A line on stderr.
    func printError(_ line: String) { writeError(line + "\n") }
}

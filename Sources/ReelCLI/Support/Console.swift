import Foundation

/// Where a command's output goes: the process's stdout and stderr, or buffers in tests.
struct Console: Sendable {
    var writeOutput: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    /// Whether stderr is a terminal, so progress bars may redraw in place.
    var errorIsTerminal: Bool

    static let system = Console(
        writeOutput: { writeAll($0, to: STDOUT_FILENO) },
        writeError: { writeAll($0, to: STDERR_FILENO) },
        errorIsTerminal: isatty(STDERR_FILENO) != 0)

    /// Writes all of `text`, retrying short writes and EINTR. A closed pipe (`reel probe | head`)
    /// ends the output quietly: SIGPIPE is ignored, and EPIPE is not an error worth a crash.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// A line on stdout.
    func print(_ line: String) { writeOutput(line + "\n") }
    /// A line on stderr.
    func printError(_ line: String) { writeError(line + "\n") }
}

/// A command line that does not fit the command: the CLI prints it with a pointer
/// to `--help` and exits 1.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    var command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    var description: String {
        let help = command.map { "reel \($0) --help" } ?? "reel --help"
        return "\(message) (see '\(help)')"
    }
}

/// A `reel` subcommand: its spec and what it does with parsed arguments.
protocol Command: Sendable {
    var spec: CommandSpec { get }
    /// Runs the command and returns the exit status. Throwing a ``ReelError`` prints it
    /// as one line and exits 2; a ``UsageError`` prints it and exits 1.
    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32
}

/// What a subcommand accepts and how its help reads.
struct CommandSpec: Sendable {
    var name: String
    /// One line for the command list.
    var abstract: String
    /// The argument part of the usage line: `FILE... [--json]`.
    var usage: String
    /// Positional arguments: the fewest and the most (nil for no limit).
    var positionals: ClosedRange<Int>
    var positionalsUnbounded = false
    var options: [OptionSpec]
    /// More lines for `--help`: examples, notes.
    var discussion: String = ""

    static let helpOption = OptionSpec.flag("help", short: "h", help: "Show this help.")

    /// Every option including `--help`.
    var allOptions: [OptionSpec] { options + [Self.helpOption] }

    /// The text `reel NAME --help` prints.
    var help: String {
        var lines = ["\(abstract)", "", "Usage: reel \(name) \(usage)", "", "Options:"]
        let width = allOptions.map(\.synopsis.count).max() ?? 0
        for option in allOptions {
            lines.append("  \(option.synopsis.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(option.help)")
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        return lines.joined(separator: "\n")
    }
}

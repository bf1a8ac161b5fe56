/// One option a command accepts: `--long`, perhaps `-s`, and whether it takes a value.
struct OptionSpec: Sendable {
    /// The long name without dashes: `json` for `--json`.
    var long: String
    /// The one-letter form, if any: `o` for `-o`.
    var short: Character?
    /// The placeholder shown in help for an option that takes a value (`FILE`), or nil for a flag.
    var valueName: String?
    var help: String
    /// Whether the option may be given more than once (its values accumulate).
    var repeatable = false

    static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    static func value(_ long: String, short: Character? = nil, _ valueName: String, help: String,
                      repeatable: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, help: help, repeatable: repeatable)
    }

    var takesValue: Bool { valueName != nil }

    /// `-o, --output FILE` as the help lists it.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? "    "
        text += "--\(long)"
        if let valueName { text += " \(valueName)" }
        return text
    }
}

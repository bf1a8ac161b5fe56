/// Splits a subcommand's arguments into options and positionals by its ``CommandSpec``.
///
/// Accepted forms: `--name value`, `--name=value`, `-n value`, `-nvalue`, clustered
/// short flags (`-hv`), and `--` to end options. A lone `-` is a positional (stdin/stdout).
enum ArgumentParser {
    static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments(command: spec.name)
        let options = spec.allOptions
        var index = 0
        var onlyPositionals = false

        func record(_ option: OptionSpec, value: String?) throws(UsageError) {
            if let value {
                if !option.repeatable, result.values[option.long] != nil {
                    throw UsageError("--\(option.long) is given more than once", command: spec.name)
                }
                result.values[option.long, default: []].append(value)
            } else {
                result.flags.insert(option.long)
            }
        }

        func takeValue(for option: OptionSpec, spelled: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else {
                throw UsageError("\(spelled) needs a value (\(option.valueName ?? "VALUE"))", command: spec.name)
            }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
            } else if argument == "--" {
                onlyPositionals = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let option = options.first(where: { $0.long == name }) else {
                    throw UsageError("unknown option '--\(name)' for '\(spec.name)'", command: spec.name)
                }
                if option.takesValue {
                    let value = if let inline { inline } else { try takeValue(for: option, spelled: "--\(name)") }
                    try record(option, value: value)
                } else {
                    if inline != nil {
                        throw UsageError("--\(name) is a flag and takes no value", command: spec.name)
                    }
                    try record(option, value: nil)
                }
            } else {
                var letters = Array(argument.dropFirst())
                while !letters.isEmpty {
                    let letter = letters.removeFirst()
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw UsageError("unknown option '-\(letter)' for '\(spec.name)'", command: spec.name)
                    }
                    if option.takesValue {
                        let rest = String(letters)
                        letters = []
                        let value = if rest.isEmpty { try takeValue(for: option, spelled: "-\(letter)") } else { rest }
                        try record(option, value: value)
                    } else {
                        try record(option, value: nil)
                    }
                }
            }
            index += 1
        }

        if result.flag("help") { return result }
        let count = result.positionals.count
        if count < spec.positionals.lowerBound {
            throw UsageError("'\(spec.name)' needs \(spec.usage.split(separator: " ").first.map(String.init) ?? "an argument")",
                             command: spec.name)
        }
        if !spec.positionalsUnbounded, count > spec.positionals.upperBound {
            let extra = result.positionals[spec.positionals.upperBound]
            throw UsageError("unexpected argument '\(extra)' for '\(spec.name)'", command: spec.name)
        }
        return result
    }
}

/// The result of parsing: positionals in order, option values by long name.
struct ParsedArguments: Sendable, Equatable {
    var command: String
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func flag(_ long: String) -> Bool { flags.contains(long) }

    /// The last value given for `--long`, if any.
    func value(_ long: String) -> String? { values[long]?.last }

    /// Every value given for a repeatable option.
    func allValues(_ long: String) -> [String] { values[long] ?? [] }

    /// `--long` as an integer in `range`.
    func int(_ long: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(long) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(long) wants a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'",
                             command: command)
        }
        return number
    }

    /// `--long` as a finite number in `range`.
    func double(_ long: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = value(long) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError("--\(long) wants a number in \(range.lowerBound)...\(range.upperBound), not '\(text)'",
                             command: command)
        }
        return number
    }

    /// `--long` as `WIDTHxHEIGHT` with both sides in 1...16384.
    func size(_ long: String) throws(UsageError) -> (width: Int, height: Int)? {
        guard let text = value(long) else { return nil }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...16384).contains(width), (1...16384).contains(height) else {
            throw UsageError("--\(long) wants WIDTHxHEIGHT such as 1280x720, not '\(text)'", command: command)
        }
        return (width, height)
    }
}

import ReelCore

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
            throw UsageError("--\(long) wants a whole number in \(range.lowerBound)...\(range.upperBound), not '\(ReelError.quoted(text))'",
                             command: command)
        }
        return number
    }

    /// `--long` as a finite number in `range`: decimal (`0.25`, `2e-1`) or a fraction (`1/16`),
    /// never hexadecimal (`0x10`), `inf` or `nan`. `rangeText` is how the help writes the range.
    func double(_ long: String, in range: ClosedRange<Double>, rangeText: String? = nil) throws(UsageError) -> Double? {
        guard let text = value(long) else { return nil }
        guard let number = Self.number(text), number.isFinite, range.contains(number) else {
            let shown = rangeText ?? "\(Self.format(range.lowerBound))...\(Self.format(range.upperBound))"
            throw UsageError("--\(long) wants a number in \(shown), not '\(ReelError.quoted(text))'", command: command)
        }
        return number
    }

    /// A decimal number or a fraction of two (`1/16`); nil for anything else.
    static func number(_ text: String) -> Double? {
        func decimal(_ part: Substring) -> Double? {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
            return Double(part)
        }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let top = decimal(parts[0]), let bottom = decimal(parts[1]), bottom != 0 else { return nil }
            return top / bottom
        }
        return decimal(Substring(text))
    }

    private static func format(_ value: Double) -> String {
        if value >= 1e-9, value < 1, (1 / value).rounded() == 1 / value { return "1/\(Int(1 / value))" }
        return value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    }

    /// `--long` as `WIDTHxHEIGHT` with both sides in 1...16384.
    func size(_ long: String) throws(UsageError) -> (width: Int, height: Int)? {
        guard let text = value(long) else { return nil }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...16384).contains(width), (1...16384).contains(height) else {
            throw UsageError("--\(long) wants WIDTHxHEIGHT such as 1280x720, not '\(ReelError.quoted(text))'", command: command)
        }
        return (width, height)
    }
}

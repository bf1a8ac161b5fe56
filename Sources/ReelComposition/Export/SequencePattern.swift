public import Foundation
public import ReelCore

/// The name of a numbered picture sequence, `frame-%04d.png`: the text before and after its
/// one counter, `%d` or `%0Nd` (at least N digits, N from 1 to 9), in a folder. Names are
/// made here rather than by `printf`, so that a name can hold no other conversion.
public struct SequencePattern: Sendable, Hashable {
    /// Where the pictures go.
    public let folder: URL
    let prefix: String
    let suffix: String
    let digits: Int

    /// The pattern of `url`'s last component.
    /// - Throws: ``ReelError`` `.invalidArgument` naming `url` unless its name has exactly one
    ///   `%d` or `%0Nd` and no other `%`.
    public init(_ url: URL) throws(ReelError) {
        let name = url.lastPathComponent
        let parts = name.components(separatedBy: "%")
        let refusal = ReelError(.invalidArgument, "a picture sequence is named with one %d or %0Nd counter, such as frame-%04d.png",
                                subject: url.path)
        guard parts.count == 2, let counter = parts[1].firstIndex(of: "d") else { throw refusal }
        let width = parts[1][..<counter]
        guard width.isEmpty || (width.count == 2 && width.first == "0" && ("1"..."9").contains(String(width.dropFirst()))) else {
            throw refusal
        }
        folder = url.deletingLastPathComponent()
        prefix = parts[0]
        suffix = String(parts[1][parts[1].index(after: counter)...])
        digits = width.isEmpty ? 1 : Int(width.dropFirst()) ?? 1
    }

    /// The name of picture `number`.
    public func name(_ number: Int) -> String {
        let text = String(number)
        return prefix + String(repeating: "0", count: max(0, digits - text.count)) + text + suffix
    }

    /// Whether `name` is one this pattern makes (some number at least as wide as the counter).
    public func matches(_ name: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return false }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        return middle.count >= digits && middle.allSatisfy(\.isASCII) && middle.allSatisfy(\.isNumber)
    }
}

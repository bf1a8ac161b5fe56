import Foundation
import ReelCore

/// One pass over spec JSON, before it is decoded, for what `JSONSerialization` and
/// `JSONDecoder` pass over or report without a place: a key given twice in one object
/// (the decoders keep one of the two without a word) and a number beyond a Double's range
/// (which they report as "not valid JSON", naming no field). Linear in the text; text that
/// is not JSON at all is left for `JSONSerialization` to describe.
struct SpecJSONScanner {
    private let bytes: [UInt8]
    private var index = 0

    /// - Throws: ``ReelError`` `.invalidData` with the spec path (`clips[2].range`) in the message.
    static func check(_ data: Data) throws(ReelError) {
        var scanner = SpecJSONScanner(bytes: [UInt8](data))
        do throws(Stop) {
            try scanner.value(path: "", depth: 0)
        } catch {
            if case .refused(let error) = error { throw error }
        }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private enum Stop: Error {
        /// Not JSON (or nested past what the decoders take): `JSONSerialization` says how.
        case malformed
        case refused(ReelError)
    }

    private static func place(_ path: String) -> String { path.isEmpty ? "the top level" : path }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value(path: String, depth: Int) throws(Stop) {
        skipSpace()
        guard index < bytes.count, depth < 256 else { throw .malformed }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var keys = Set<[UInt8]>()
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipSpace()
                let key = try string()
                guard keys.insert(key).inserted else {
                    let name = ReelError.quoted(String(decoding: key, as: UTF8.self), limit: 40)
                    throw .refused(ReelError(.invalidData, "\(Self.place(path)): the key '\(name)' appears twice (JSON readers would keep only one)"))
                }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw .malformed }
                index += 1
                let name = String(decoding: key, as: UTF8.self)
                try value(path: path.isEmpty ? name : "\(path).\(name)", depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw .malformed }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return
                }
                throw .malformed
            }
        case UInt8(ascii: "["):
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            var element = 0
            while true {
                try value(path: "\(path)[\(element)]", depth: depth + 1)
                element += 1
                skipSpace()
                guard index < bytes.count else { throw .malformed }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return
                }
                throw .malformed
            }
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            while index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")
                    || bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                index += 1
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let number = Double(text) else { throw .malformed }
            guard number.isFinite else {
                throw .refused(ReelError(.invalidData, "\(Self.place(path)): \(ReelError.quoted(text, limit: 40)) is beyond the largest number a spec can hold (about 1.8e308)"))
            }
        default:
            // true, false, null: JSONSerialization checks the spelling.
            while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) { index += 1 }
        }
    }

    /// The raw bytes of a string (escapes kept as written), after its opening quote.
    private mutating func string() throws(Stop) -> [UInt8] {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .malformed }
        index += 1
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                let text = Array(bytes[start..<index])
                index += 1
                return text
            default: index += 1
            }
        }
        throw .malformed
    }
}

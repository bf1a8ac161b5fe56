public import Foundation
public import ReelCore

extension CompositionSpec {
    /// The largest spec file read (16 MiB): a spec names its media, it does not hold them.
    static let largestFile: UInt64 = 16 * 1_048_576

    /// Reads and checks a spec file.
    /// - Parameter url: The spec file (JSON): a regular file of at most 16 MiB.
    /// - Throws: ``ReelError`` `.invalidData` naming the spec path of the problem
    ///   (`clips[1].range.end: …`), for bad JSON, a wrong type, a missing or unknown key;
    ///   `.invalidArgument` for a device, pipe or socket.
    public init(contentsOf url: URL) throws(ReelError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw ReelError(.fileNotFound, "no such file", subject: url.path)
        }
        guard !isFolder.boolValue else { throw ReelError(.isDirectory, "is a directory, not a spec", subject: url.path) }
        // A device, pipe or socket is refused before it is read: /dev/zero never ends, a pipe
        // with no writer never answers, and /dev/null reads as an empty spec.
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw ReelError(.invalidArgument, "is a device, pipe or socket, not a spec file", subject: url.path)
        }
        if let size = (attributes?[.size] as? NSNumber)?.uint64Value, size > Self.largestFile {
            throw ReelError(
                .invalidData, "is \(size / 1_048_576) MiB; a spec is JSON of at most \(Self.largestFile / 1_048_576) MiB",
                subject: url.path)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReelError(.fileNotFound, "cannot read the spec: \(error.localizedDescription)", subject: url.path)
        }
        try self.init(data: data, name: url.path)
    }

    /// Parses spec JSON; `name` is the file the errors mention.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - name: What errors call the input (the file's path).
    /// - Throws: ``ReelError`` `.invalidData` naming the spec path of the problem.
    public init(data: Data, name: String = "spec") throws(ReelError) {
        do throws(ReelError) {
            try SpecJSONScanner.check(data)
        } catch {
            throw error.about(name)
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            let reason = (error as NSError).userInfo["NSDebugDescription"].map { "\($0)" } ?? "unreadable"
            throw ReelError(.invalidData, "is not JSON (\(ReelError.quoted(reason)))", subject: name)
        }
        try Self.checkKeys(object, path: "", pattern: "", name: name)
        do throws(ReelError) {
            try Self.checkValues(object, path: "", pattern: "")
        } catch {
            throw ReelError(error.code, "\(error.subject ?? "the top level"): \(error.message)", subject: name)
        }
        do {
            self = try JSONDecoder().decode(CompositionSpec.self, from: data)
        } catch let error as DecodingError {
            throw ReelError(.invalidData, Self.describe(error), subject: name)
        } catch {
            throw ReelError(.invalidData, ReelError.quoted("\(error)"), subject: name)
        }
    }

    private static func checkKeys(_ object: Any, path: String, pattern: String, name: String) throws(ReelError) {
        if let dictionary = object as? [String: Any] {
            guard let base = knownKeys[pattern] ?? layerKnownKeys[pattern] ?? textKnownKeys[pattern] ?? subtitleKnownKeys[pattern]
            else { return }
            let known = base.union(layerKnownKeys[pattern] ?? []).union(textKnownKeys[pattern] ?? [])
                .union(subtitleKnownKeys[pattern] ?? [])
            for key in dictionary.keys.sorted() where !known.contains(key) {
                let place = path.isEmpty ? "the top level" : path
                throw ReelError(.invalidData, "unknown key '\(ReelError.quoted(key, limit: 40))' in \(place) (known: \(known.sorted().joined(separator: ", ")))",
                                subject: name)
            }
            for (key, value) in dictionary {
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                let childPattern = pattern.isEmpty ? key : "\(pattern).\(key)"
                try checkKeys(value, path: childPath, pattern: childPattern, name: name)
            }
        } else if let array = object as? [Any] {
            for (index, value) in array.enumerated() {
                try checkKeys(value, path: "\(path)[\(index)]", pattern: "\(pattern)[]", name: name)
            }
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return text.isEmpty ? "the top level" : text
    }

    /// A JSON kind in words, never a Swift type name.
    static func describe(_ type: Any.Type) -> String {
        let name = "\(type)"
        if type == String.self { return "a string" }
        if type == Bool.self { return "true or false" }
        if type == Int.self { return "a whole number" }
        if type == Double.self { return "a number" }
        if name.hasPrefix("Dictionary") { return "an object ({...})" }
        if name.hasPrefix("Array") { return "a list ([...])" }
        return "another kind of value"
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "\(parent == "the top level" ? key.stringValue : "\(parent).\(key.stringValue)"): is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): wants \(describe(type))"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)): is null"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(ReelError.quoted(context.debugDescription))"
        @unknown default:
            return "\(error)"
        }
    }
}

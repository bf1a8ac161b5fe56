public import Foundation
public import ReelCore

/// A 3D colour lookup table from an Adobe `.cube` file: `size`³ RGB entries, red
/// changing fastest, with the domain the file declares.
public struct CubeLUT: Sendable, Equatable {
    public let title: String?
    public let size: Int
    public let domainMin: [Double]
    public let domainMax: [Double]
    /// `size`³ × 3 values, red fastest, as the file lists them.
    public let values: [Float]

    /// Reads a `.cube` file.
    /// - Parameter url: The `.cube` file.
    /// - Throws: ``ReelError`` `.invalidData` naming the file and line: a bad `LUT_3D_SIZE`,
    ///   a row that is not three numbers, too few or too many rows; or the read error.
    public init(contentsOf url: URL) throws(ReelError) {
        let path = url.path
        guard !path.isEmpty, url.lastPathComponent != "" else {
            throw ReelError(.fileNotFound, "no .cube file named (the path is empty)", subject: "file=")
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            throw ReelError(code == EACCES ? .permissionDenied : .fileNotFound,
                            code == EACCES ? "permission denied" : "no such .cube file", subject: path)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ReelError(.isDirectory, "is a directory, not a .cube file", subject: path)
        default: throw ReelError(.invalidArgument, "is not a regular file (a pipe, device or socket), not a .cube file", subject: path)
        }
        guard status.st_size > 0 else { throw ReelError(.emptyFile, "is empty (0 bytes), not a .cube file", subject: path) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReelError(.io, "cannot read the .cube file: \((error as NSError).localizedFailureReason ?? "read failed")", subject: path)
        }
        guard let text = String(data: data, encoding: .utf8), !data.contains(0) else {
            throw ReelError(.invalidData, "is not a .cube file: binary data, not UTF-8 text", subject: path)
        }
        do throws(ReelError) {
            try self.init(text: text)
        } catch {
            throw error.about(url.path)
        }
    }

    /// Parses `.cube` text. Errors name the line (`line 7: …`).
    /// - Parameter text: The file's contents.
    /// - Throws: ``ReelError`` `.invalidData` naming the line that is wrong.
    public init(text: String) throws(ReelError) {
        var title: String?
        var size: Int?
        var minimum = [0.0, 0.0, 0.0], maximum = [1.0, 1.0, 1.0]
        var values: [Float] = []
        var lastLine = 0
        for (offset, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = offset + 1
            lastLine = number
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = words.first else { continue }
            func fail(_ message: String) -> ReelError { ReelError(.invalidData, "line \(number): \(message)") }
            switch keyword {
            case "TITLE":
                title = line.dropFirst(5).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            case "LUT_3D_SIZE":
                guard words.count == 2, let n = Int(words[1]), (2...256).contains(n) else {
                    throw fail("LUT_3D_SIZE wants one whole number from 2 to 256, not '\(ReelError.quoted(words.dropFirst().joined(separator: " ")))'")
                }
                guard values.isEmpty else { throw fail("LUT_3D_SIZE must come before the table") }
                size = n
            case "LUT_1D_SIZE":
                throw fail("1D LUTs are not supported; Reel reads 3D .cube files")
            case "DOMAIN_MIN", "DOMAIN_MAX":
                let numbers = words.dropFirst().compactMap { Double($0) }
                guard words.count == 4, numbers.count == 3, numbers.allSatisfy(\.isFinite) else {
                    throw fail("\(keyword) wants three finite numbers")
                }
                if keyword == "DOMAIN_MIN" { minimum = numbers } else { maximum = numbers }
            default:
                guard keyword.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true else {
                    throw fail("unknown keyword '\(ReelError.quoted(keyword))'")
                }
                let numbers = words.compactMap { Float($0) }
                guard words.count == 3, numbers.count == 3, numbers.allSatisfy(\.isFinite) else {
                    throw fail("a table row is three numbers, not '\(ReelError.quoted(line))'")
                }
                guard let size else { throw fail("the table starts before LUT_3D_SIZE") }
                guard values.count < size * size * size * 3 else {
                    throw fail("more rows than LUT_3D_SIZE \(size) allows (\(size * size * size))")
                }
                values += numbers
            }
        }
        guard let size else { throw ReelError(.invalidData, "line \(lastLine): no LUT_3D_SIZE line") }
        let expected = size * size * size
        guard values.count == expected * 3 else {
            throw ReelError(.invalidData, "line \(lastLine): \(values.count / 3) rows, but LUT_3D_SIZE \(size) needs \(expected)")
        }
        guard zip(minimum, maximum).allSatisfy({ $0 < $1 }) else {
            throw ReelError(.invalidData, "DOMAIN_MIN must be below DOMAIN_MAX")
        }
        self.title = title
        self.size = size
        domainMin = minimum
        domainMax = maximum
        self.values = values
    }

    /// The identity table of `size` points per axis, as `.cube` text.
    /// - Parameter size: Points per axis (2 or more).
    /// - Returns: A table that leaves every colour as it is: a starting point to edit, and a
    ///   check that loading and applying a table changes nothing by itself.
    public static func identityText(size: Int) -> String {
        var lines = ["TITLE \"identity\"", "LUT_3D_SIZE \(size)"]
        for b in 0..<size { for g in 0..<size { for r in 0..<size {
            let scale = Double(size - 1)
            lines.append("\(Double(r) / scale) \(Double(g) / scale) \(Double(b) / scale)")
        } } }
        return lines.joined(separator: "\n") + "\n"
    }
}

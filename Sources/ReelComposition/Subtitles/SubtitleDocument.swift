public import Foundation
public import ReelCore

/// A subtitle file read and checked: SubRip (`.srt`) or Advanced SubStation Alpha
/// (`.ass`, `.ssa`). Each cue keeps its times in milliseconds on the composition's
/// timeline, its text, and the line of the file it came from, so that every complaint
/// names the file and the line.
public struct SubtitleDocument: Sendable {
    /// The file's kind.
    public enum Format: String, Sendable {
        case srt, ass
    }

    /// One subtitle: shown from `start` up to (not at) `end`.
    public struct Cue: Sendable, Hashable {
        /// Milliseconds on the composition's timeline.
        public var start: Int64
        public var end: Int64
        /// The words, lines separated by line feeds, with SubRip's `<i>`, `<b>` and `<u>`
        /// tags kept (ASS override blocks are removed).
        public var text: String
        /// The file's line where the cue's timing is.
        public var line: Int

        /// - Parameters:
        ///   - start: Milliseconds on the timeline.
        ///   - end: Milliseconds on the timeline, after `start`.
        ///   - text: The words.
        ///   - line: Its line in the file (for messages).
        public init(start: Int64, end: Int64, text: String, line: Int = 0) {
            self.start = start
            self.end = end
            self.text = text
            self.line = line
        }

        /// The cue's times as a range of the timeline.
        public var timeRange: MediaTimeRange {
            MediaTimeRange(start: MediaTime(value: start, timescale: 1000), end: MediaTime(value: end, timescale: 1000))
        }

        /// The text without markup: tags and override blocks removed.
        public var plainText: String {
            var result = ""
            var inTag = false
            for character in text {
                if character == "<" { inTag = true } else if character == ">", inTag { inTag = false } else if !inTag { result.append(character) }
            }
            return result
        }
    }

    public var url: URL
    public var format: Format
    public var cues: [Cue]
    /// The file's bytes as read (an ASS file is burned in as it is).
    public var contents: String

    /// The largest subtitle file read (16 MiB).
    static let largestFile = 16 * 1_048_576

    /// Reads and checks a subtitle file: each cue's times must read, end after they start,
    /// be 0 or more, and not overlap the cue before (cues are in time order).
    /// - Parameter url: An `.srt`, `.ass` or `.ssa` file, UTF-8 (a byte-order mark is skipped).
    /// - Throws: ``ReelError`` with the subject `FILE:LINE` and the cause in one line.
    public init(contentsOf url: URL) throws(ReelError) {
        self.url = url
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw ReelError(.fileNotFound, "no such subtitle file", subject: url.path)
        }
        guard !isFolder.boolValue else { throw ReelError(.isDirectory, "is a directory, not a subtitle file", subject: url.path) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw ReelError(.invalidArgument, "is a device, pipe or socket, not a subtitle file", subject: url.path)
        }
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > Self.largestFile {
            throw ReelError(.invalidData, "is \(size / 1_048_576) MiB; a subtitle file is text of at most 16 MiB", subject: url.path)
        }
        guard let data = try? Data(contentsOf: url) else {
            throw ReelError(.permissionDenied, "cannot be read", subject: url.path)
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw ReelError(.invalidData, "is not UTF-8 text", subject: url.path)
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        contents = text
        switch url.pathExtension.lowercased() {
        case "srt": format = .srt
        case "ass", "ssa": format = .ass
        default:
            throw ReelError(.unsupported, "is not a subtitle file Reel reads (.srt, .ass or .ssa)", subject: url.path)
        }
        cues = format == .srt ? try Self.parseSRT(text, name: url.path) : try Self.parseASS(text, name: url.path)
        try Self.checkOrder(cues, name: url.path, format: format)
    }

    /// A document from cues made in code (for a WebVTT or a soft track).
    /// - Parameters:
    ///   - cues: In time order.
    ///   - url: What it is called.
    public init(cues: [Cue], url: URL) {
        self.url = url
        format = .srt
        self.cues = cues
        contents = SubtitleWriter.srt(cues)
    }

    /// The lines of a text, numbered from 1, with their line ends removed (CR LF or LF).
    static func numberedLines(_ text: String) -> [(Int, Substring)] {
        // CR LF is one Character in Swift, so line ends are made LF before splitting.
        let unified = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return unified.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in (index + 1, line) }
    }

    /// The longest cue text read, in characters: libass lays a cue out on every picture it
    /// shows on, and a megabyte cue would stall the render.
    static let longestCue = 10_000

    /// `HH:MM:SS,mmm` (SubRip; a dot is taken too) in milliseconds, or nil.
    static func srtTime(_ text: Substring) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("-") { return -1 }
        let parts = trimmed.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "," || $0 == "." })
        guard parts.count == 4, let hours = Int64(parts[0]), let minutes = Int64(parts[1]), let seconds = Int64(parts[2]),
              parts[3].count == 3, let millis = Int64(parts[3]), parts.allSatisfy({ (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }),
              hours >= 0, hours < 1000, (0..<60).contains(minutes), (0..<60).contains(seconds) else { return nil }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
    }

    /// `H:MM:SS.cc` (ASS, hundredths) in milliseconds, or nil.
    static func assTime(_ text: Substring) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("-") { return -1 }
        let parts = trimmed.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "." })
        guard parts.count == 4, let hours = Int64(parts[0]), let minutes = Int64(parts[1]), let seconds = Int64(parts[2]),
              parts[3].count == 2, let hundredths = Int64(parts[3]), parts.allSatisfy({ (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }),
              hours >= 0, hours < 1000, (0..<60).contains(minutes), (0..<60).contains(seconds) else { return nil }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + hundredths * 10
    }

    static func parseSRT(_ text: String, name: String) throws(ReelError) -> [Cue] {
        var cues: [Cue] = []
        let lines = numberedLines(text)
        var index = 0
        func fail(_ line: Int, _ message: String) -> ReelError {
            ReelError(.invalidData, message, subject: "\(name):\(line)")
        }
        while index < lines.count {
            // Blank lines between cues.
            while index < lines.count, lines[index].1.trimmingCharacters(in: .whitespaces).isEmpty { index += 1 }
            guard index < lines.count else { break }
            var (number, line) = lines[index]
            // The cue's number (optional in practice), then its timing line.
            if !line.contains("-->") {
                guard Int(line.trimmingCharacters(in: .whitespaces)) != nil else {
                    throw fail(number, "wants a cue number or a timing line (00:00:01,000 --> 00:00:02,500), not '\(ReelError.quoted(String(line), limit: 60))'")
                }
                index += 1
                guard index < lines.count else { throw fail(number, "a cue number with no timing line after it") }
                (number, line) = lines[index]
            }
            let sides = line.components(separatedBy: "-->")
            guard sides.count == 2 else {
                throw fail(number, "wants a timing line (00:00:01,000 --> 00:00:02,500), not '\(ReelError.quoted(String(line), limit: 60))'")
            }
            // Position settings may follow the end time (X1:… Y1:…); the time is the first word.
            let endWord = sides[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? ""
            guard let start = srtTime(Substring(sides[0])), let end = srtTime(endWord) else {
                throw fail(number, "cannot read the times in '\(ReelError.quoted(String(line), limit: 60))' (HH:MM:SS,mmm --> HH:MM:SS,mmm)")
            }
            guard start >= 0, end >= 0 else { throw fail(number, "a time is negative: '\(ReelError.quoted(String(line), limit: 60))'") }
            guard end > start else {
                throw fail(number, "the cue ends (\(format(end))) at or before it starts (\(format(start)))")
            }
            index += 1
            var body: [Substring] = []
            while index < lines.count, !lines[index].1.trimmingCharacters(in: .whitespaces).isEmpty {
                body.append(lines[index].1)
                index += 1
            }
            let words = body.joined(separator: "\n")
            guard words.count <= longestCue else {
                throw fail(number, "the cue's text is \(words.count) characters; at most \(longestCue)")
            }
            cues.append(Cue(start: start, end: end, text: words, line: number))
        }
        return cues
    }

    static func parseASS(_ text: String, name: String) throws(ReelError) -> [Cue] {
        var cues: [Cue] = []
        var section = ""
        var fields: [String] = []
        var sawScriptInfo = false
        for (number, raw) in numberedLines(text) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                section = line.lowercased()
                if section == "[script info]" { sawScriptInfo = true }
                continue
            }
            guard section == "[events]" else { continue }
            if line.lowercased().hasPrefix("format:") {
                fields = line.dropFirst(7).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                continue
            }
            guard line.lowercased().hasPrefix("dialogue:") else { continue }
            guard let startField = fields.firstIndex(of: "start"), let endField = fields.firstIndex(of: "end"),
                  let textField = fields.firstIndex(of: "text"), textField == fields.count - 1 else {
                throw ReelError(.invalidData, "a Dialogue line before a Format line naming Start, End and Text (last)",
                                subject: "\(name):\(number)")
            }
            let values = line.dropFirst(9).split(separator: ",", maxSplits: fields.count - 1, omittingEmptySubsequences: false)
            guard values.count == fields.count else {
                throw ReelError(.invalidData, "has \(values.count) fields, the Format line \(fields.count)", subject: "\(name):\(number)")
            }
            guard let start = assTime(values[startField]), let end = assTime(values[endField]) else {
                throw ReelError(.invalidData, "cannot read the times '\(ReelError.quoted(String(values[startField]), limit: 20))' and '\(ReelError.quoted(String(values[endField]), limit: 20))' (H:MM:SS.cc)",
                                subject: "\(name):\(number)")
            }
            guard start >= 0, end >= 0 else { throw ReelError(.invalidData, "a time is negative", subject: "\(name):\(number)") }
            guard end > start else {
                throw ReelError(.invalidData, "the cue ends (\(format(end))) at or before it starts (\(format(start)))",
                                subject: "\(name):\(number)")
            }
            // Override blocks ({\i1}) removed; \N and \n are line breaks, \h a space.
            var words = ""
            var inBlock = false
            for character in values[textField] {
                if character == "{" { inBlock = true } else if character == "}", inBlock { inBlock = false } else if !inBlock { words.append(character) }
            }
            words = words.replacingOccurrences(of: "\\N", with: "\n").replacingOccurrences(of: "\\n", with: "\n")
                .replacingOccurrences(of: "\\h", with: " ")
            guard words.count <= longestCue else {
                throw ReelError(.invalidData, "the cue's text is \(words.count) characters; at most \(longestCue)", subject: "\(name):\(number)")
            }
            cues.append(Cue(start: start, end: end, text: words, line: number))
        }
        guard sawScriptInfo else {
            throw ReelError(.invalidData, "has no [Script Info] section: not an ASS file", subject: "\(name):1")
        }
        return cues.sorted { ($0.start, $0.line) < ($1.start, $1.line) }
    }

    /// SubRip cues must come in time order without overlapping (one on screen at a time, as
    /// a soft track and WebVTT carry them); ASS events may overlap (libass stacks them).
    static func checkOrder(_ cues: [Cue], name: String, format: Format) throws(ReelError) {
        guard format == .srt else { return }
        for (previous, cue) in zip(cues, cues.dropFirst()) where cue.start < previous.end {
            throw ReelError(.invalidData, "the cue starts at \(Self.format(cue.start)), before the cue at line \(previous.line) ends (\(Self.format(previous.end)))",
                            subject: "\(name):\(cue.line)")
        }
    }

    /// Milliseconds as SubRip writes them: `00:00:01,500`.
    static func format(_ milliseconds: Int64) -> String {
        let ms = max(milliseconds, 0)
        return String(format: "%02lld:%02lld:%02lld,%03lld", ms / 3_600_000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000)
    }
}

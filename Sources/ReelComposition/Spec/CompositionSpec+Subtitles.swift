public import Foundation
public import ReelCore

extension CompositionSpec {
    /// `subtitles`: a SubRip or ASS file whose times are the composition's, burned into the
    /// pictures or written as a soft track.
    public struct Subtitles: Codable, Sendable {
        /// An `.srt`, `.ass` or `.ssa` file, relative to the spec.
        public var file: String
        /// True burns the text into the pictures (libass); false (the default) writes a
        /// `mov_text` track into an MP4 or MOV and a WebVTT file beside it.
        public var burn: Bool?
        /// How burned SubRip text looks.
        public var style: SubtitleStyle?
        /// The soft track's language, ISO 639-2 (`eng`, `fra`; default `und`).
        public var language: String?
    }

    /// `subtitles.style`: sizes in render pixels, colours `#RRGGBB`.
    public struct SubtitleStyle: Codable, Sendable {
        public var font: String?
        public var fontSize: Double?
        public var color: String?
        public var outlineColor: String?
        public var outline: Double?
        public var box: Bool?
        public var marginV: Double?
    }

    /// The keys of `subtitles`, in addition to ``knownKeys`` (read with ``textKnownKeys``).
    static let subtitleKnownKeys: [String: Set<String>] = [
        "": ["subtitles"],
        "subtitles": ["file", "burn", "style", "language"],
        "subtitles.style": ["font", "fontSize", "color", "outlineColor", "outline", "box", "marginV"],
    ]

    static let subtitleNumberRules: [String: NumberRule] = [
        "subtitles.style.fontSize": NumberRule(range: 1...1000, words: "from 1 to 1000 pixels"),
        "subtitles.style.outline": NumberRule(range: 0...100, words: "from 0 to 100 pixels"),
        "subtitles.style.marginV": NumberRule(range: 0...8192, words: "from 0 to 8192 pixels"),
    ]

    /// The subtitle file read and checked, its cues against the composition's length: a
    /// cue that starts at or after the end is refused (its file is on another clock).
    /// - Parameters:
    ///   - folder: What the spec's paths are relative to.
    ///   - duration: The composition's length.
    /// - Returns: The document, or nil without `subtitles`.
    /// - Throws: ``ReelError`` naming `subtitles.file`, or the subtitle file and its line.
    public func subtitleDocument(relativeTo folder: URL, duration: MediaTime) throws(ReelError) -> SubtitleDocument? {
        guard let subtitles else { return nil }
        let url = subtitles.file.hasPrefix("/") ? URL(fileURLWithPath: subtitles.file) : folder.appendingPathComponent(subtitles.file)
        let document: SubtitleDocument
        do {
            document = try SubtitleDocument(contentsOf: url)
        } catch {
            // A file's own complaint names the file and line; a missing file is named by its key.
            throw error.code == .fileNotFound ? ReelError(error.code, error.message, subject: "subtitles.file \(url.path)") : error
        }
        if let language = subtitles.language, !(language.count == 3 && language.allSatisfy({ $0.isASCII && $0.isLowercase })) {
            throw ReelError(.invalidArgument, "wants a three-letter ISO 639-2 code (eng, fra, deu), not '\(ReelError.quoted(language))'",
                            subject: "subtitles.language")
        }
        if let style = subtitles.style {
            for (key, value) in [("color", style.color), ("outlineColor", style.outlineColor)] {
                if let value, TextStyle.Color(hex: value) == nil || value.count > 7 {
                    throw ReelError(.invalidArgument, "wants #RRGGBB, not '\(ReelError.quoted(value))'", subject: "subtitles.style.\(key)")
                }
            }
            for (key, value) in [("fontSize", style.fontSize), ("outline", style.outline), ("marginV", style.marginV)] {
                if let value, let rule = Self.subtitleNumberRules["subtitles.style.\(key)"], !rule.admits(value) {
                    throw rule.refusal(value, at: "subtitles.style.\(key)")
                }
            }
        }
        let end = duration.isNumeric ? duration.convertScale(1000, method: .roundTowardPositiveInfinity).value : Int64.max
        if let late = document.cues.first(where: { $0.start >= end }) {
            throw ReelError(.invalidData, "the cue starts at \(SubtitleDocument.format(late.start)), at or after the composition's end (\(SubtitleDocument.format(end))); subtitle times are the composition's",
                            subject: "\(url.path):\(late.line)")
        }
        return document
    }

    /// How burned SubRip text looks, from `subtitles.style`.
    var subtitleStyle: SubtitleWriter.Style {
        let spec = subtitles?.style
        return SubtitleWriter.Style(font: spec?.font ?? "DejaVu Sans", fontSize: spec?.fontSize ?? 0, color: spec?.color ?? "#ffffff",
                                    outlineColor: spec?.outlineColor ?? "#000000", outline: spec?.outline ?? 0, box: spec?.box ?? false,
                                    marginV: spec?.marginV ?? 0)
    }

    /// The burn-in of `subtitles` when `burn` is true.
    func subtitleBurnIn(relativeTo folder: URL, duration: MediaTime) throws(ReelError) -> SubtitleBurnIn? {
        guard let document = try subtitleDocument(relativeTo: folder, duration: duration), subtitles?.burn == true else { return nil }
        return SubtitleBurnIn(document: document, style: subtitleStyle)
    }
}

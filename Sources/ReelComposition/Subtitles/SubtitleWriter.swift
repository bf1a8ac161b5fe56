import Foundation

/// Subtitle cues written out as SubRip, WebVTT or an ASS script (the form libass and
/// FFmpeg's `mov_text` encoder read).
public enum SubtitleWriter {
    /// How burned-in SubRip text looks (an ASS file is burned in with its own styles).
    public struct Style: Sendable, Hashable {
        /// A fontconfig family name.
        public var font: String
        /// Pixels of the composition's render size.
        public var fontSize: Double
        /// `#RRGGBB` for the text, the outline and (with `box`) the box behind it.
        public var color: String
        public var outlineColor: String
        /// The outline's width in render pixels.
        public var outline: Double
        /// A box behind each cue instead of an outline (ASS's BorderStyle 3), in `outlineColor`.
        public var box: Bool
        /// Pixels from the bottom edge.
        public var marginV: Double

        /// - Parameters:
        ///   - font: A fontconfig family.
        ///   - fontSize: Render pixels.
        ///   - color: `#RRGGBB` of the text.
        ///   - outlineColor: `#RRGGBB` of the outline or box.
        ///   - outline: The outline's width in render pixels.
        ///   - box: A box behind the text rather than an outline.
        ///   - marginV: Render pixels between the text and the bottom edge.
        public init(font: String = "DejaVu Sans", fontSize: Double = 0, color: String = "#ffffff", outlineColor: String = "#000000",
                    outline: Double = 0, box: Bool = false, marginV: Double = 0) {
            self.font = font
            self.fontSize = fontSize
            self.color = color
            self.outlineColor = outlineColor
            self.outline = outline
            self.box = box
            self.marginV = marginV
        }
    }

    /// The cues as a SubRip file.
    /// - Parameter cues: In time order.
    /// - Returns: The file's text.
    public static func srt(_ cues: [SubtitleDocument.Cue]) -> String {
        cues.enumerated().map { index, cue in
            "\(index + 1)\n\(SubtitleDocument.format(cue.start)) --> \(SubtitleDocument.format(cue.end))\n\(cue.text)\n"
        }.joined(separator: "\n")
    }

    /// `HH:MM:SS.mmm`, WebVTT's timestamp.
    static func vttTime(_ milliseconds: Int64) -> String {
        SubtitleDocument.format(milliseconds).replacingOccurrences(of: ",", with: ".")
    }

    /// The cues as a WebVTT file (as browsers read it for a `<track>`): `<i>`, `<b>` and `<u>`
    /// kept, `&`, `<` and `>` of the words escaped, blank lines inside a cue dropped (they end
    /// a cue in WebVTT), and `-->` inside words broken (it would read as a timing).
    /// - Parameter cues: In time order.
    /// - Returns: The file's text.
    public static func webVTT(_ cues: [SubtitleDocument.Cue]) -> String {
        var text = "WEBVTT\n"
        for (index, cue) in cues.enumerated() {
            let body = cue.text.split(separator: "\n").map { vttEscaped(String($0)) }.filter { !$0.isEmpty }.joined(separator: "\n")
            text += "\n\(index + 1)\n\(vttTime(cue.start)) --> \(vttTime(cue.end))\n\(body.isEmpty ? " " : body)\n"
        }
        return text
    }

    /// A line's words with the markup WebVTT shares with SubRip kept and everything else escaped.
    static func vttEscaped(_ line: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let first = rest.first {
            if first == "<", let tag = ["<i>", "</i>", "<b>", "</b>", "<u>", "</u>"].first(where: { rest.lowercased().hasPrefix($0) }) {
                out += tag
                rest = rest.dropFirst(tag.count)
                continue
            }
            switch first {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(first)
            }
            rest = rest.dropFirst()
        }
        return out.replacingOccurrences(of: "--&gt;", with: "-- &gt;")
    }

    /// `&HAABBGGRR` of `#RRGGBB`, ASS's colour.
    static func assColor(_ hex: String) -> String {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit) else { return "&H00FFFFFF" }
        let r = digits.prefix(2), g = digits.dropFirst(2).prefix(2), b = digits.suffix(2)
        return "&H00\(b)\(g)\(r)".uppercased()
    }

    /// `H:MM:SS.cc`, ASS's time (hundredths, rounded down).
    static func assTime(_ milliseconds: Int64) -> String {
        let cs = max(milliseconds, 0) / 10
        return String(format: "%lld:%02lld:%02lld.%02lld", cs / 360_000, cs / 6000 % 60, cs / 100 % 60, cs % 100)
    }

    /// An ASS script of the cues in one style, for a frame of `width`×`height` (its PlayRes, so
    /// sizes are render pixels). SubRip's `<i>`, `<b>`, `<u>` become override tags, line
    /// feeds `\N`, and braces in the words are dropped (they would open an override block).
    /// - Parameters:
    ///   - cues: The cues.
    ///   - style: Font, size, colours, outline and margin.
    ///   - width: The render width.
    ///   - height: The render height.
    /// - Returns: The script's text.
    public static func ass(_ cues: [SubtitleDocument.Cue], style: Style, width: Int, height: Int) -> String {
        let size = style.fontSize > 0 ? style.fontSize : Double(height) / 18
        let outline = style.outline > 0 || style.box ? max(style.outline, style.box ? size / 5 : 0) : size / 16
        let margin = style.marginV > 0 ? style.marginV : Double(height) / 20
        var text = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: \(width)
            PlayResY: \(height)
            WrapStyle: 0
            ScaledBorderAndShadow: yes

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,\(style.font.replacingOccurrences(of: ",", with: " ")),\(String(format: "%.2f", size)),\(assColor(style.color)),\(assColor(style.color)),\(assColor(style.outlineColor)),\(assColor(style.outlineColor)),0,0,0,0,100,100,0,0,\(style.box ? 3 : 1),\(String(format: "%.2f", outline)),0,2,\(Int(margin)),\(Int(margin)),\(Int(margin)),1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

            """
        for cue in cues {
            text += "Dialogue: 0,\(assTime(cue.start)),\(assTime(cue.end)),Default,,0,0,0,,\(assText(cue.text))\n"
        }
        return text
    }

    /// SubRip text as an ASS event's text.
    static func assText(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
        for (tag, override) in [("<i>", "{\\i1}"), ("</i>", "{\\i0}"), ("<b>", "{\\b1}"), ("</b>", "{\\b0}"), ("<u>", "{\\u1}"), ("</u>", "{\\u0}")] {
            out = out.replacingOccurrences(of: tag, with: override, options: .caseInsensitive)
        }
        // Other tags (<font color=…>) are dropped.
        var plain = ""
        var inTag = false
        for character in out {
            if character == "<" { inTag = true } else if character == ">", inTag { inTag = false } else if !inTag { plain.append(character) }
        }
        return plain.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "\\N")
    }
}

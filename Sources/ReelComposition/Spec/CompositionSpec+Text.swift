import Foundation
import ReelCore

extension CompositionSpec {
    /// A text overlay's outline: `width` pixels beyond the glyphs' edges, in `color`.
    public struct TextStroke: Codable, Sendable {
        public var width: Double
        /// `#RRGGBB` or `#RRGGBBAA` (default black).
        public var color: String?
    }

    /// A text overlay's shadow: moved `x` right and `y` down, blurred by `blur` pixels.
    public struct TextShadow: Codable, Sendable {
        public var x: Double?
        public var y: Double?
        public var blur: Double?
        /// `#RRGGBB` or `#RRGGBBAA` (default `#00000099`).
        public var color: String?
    }

    /// A box behind a text overlay's lines.
    public struct TextBox: Codable, Sendable {
        /// `#RRGGBB` or `#RRGGBBAA`.
        public var color: String
        /// Pixels between the lines and the box's edges (default 0).
        public var padding: Double?
        /// The corners' radius in pixels (default 0).
        public var radius: Double?
    }

    /// Words or lines of a text overlay appearing one at a time.
    public struct TextRevealSpec: Codable, Sendable {
        /// `word` or `line`.
        public var by: String
        /// When the first appears, in seconds on the timeline.
        public var begin: Double
        /// Seconds between one's start and the next's.
        public var interval: Double
        /// Seconds each takes to fade in (default 0: at once).
        public var duration: Double?
        public var easing: Easings?
    }

    /// The keys of styled text, in addition to ``knownKeys``.
    static let textKnownKeys: [String: Set<String>] = [
        "overlays[]": ["font", "weight", "stroke", "shadow", "box", "align", "wrap", "lineSpacing", "reveal"],
        "overlays[].stroke": ["width", "color"],
        "overlays[].shadow": ["x", "y", "blur", "color"],
        "overlays[].box": ["color", "padding", "radius"],
        "overlays[].reveal": ["by", "begin", "interval", "duration", "easing"],
        "overlays[].reveal.easing": ["cubicBezier", "spring"],
        "overlays[].reveal.easing.spring": ["mass", "stiffness", "damping", "initialVelocity"],
    ]

    /// The numbers of styled text, in addition to ``numberRules``.
    static let textNumberRules: [String: NumberRule] = [
        "overlays[].weight": NumberRule(range: 100...900, wholeNumber: true, words: "from 100 to 900 (400 regular, 700 bold)"),
        "overlays[].stroke.width": NumberRule(range: 0...200, words: "from 0 to 200 pixels"),
        "overlays[].shadow.x": NumberRule(range: -1000...1000, words: "from -1000 to 1000 pixels"),
        "overlays[].shadow.y": NumberRule(range: -1000...1000, words: "from -1000 to 1000 pixels"),
        "overlays[].shadow.blur": NumberRule(range: 0...200, words: "from 0 to 200 pixels"),
        "overlays[].box.padding": NumberRule(range: 0...2000, words: "from 0 to 2000 pixels"),
        "overlays[].box.radius": NumberRule(range: 0...2000, words: "from 0 to 2000 pixels"),
        "overlays[].lineSpacing": NumberRule(range: 0.5...4, words: "from 0.5 to 4 (times the font's line height)"),
        "overlays[].reveal.begin": secondsRule,
        "overlays[].reveal.interval": NumberRule(range: 0...3600, words: "from 0 to 3600 seconds"),
        "overlays[].reveal.duration": NumberRule(range: 0...3600, words: "from 0 to 3600 seconds"),
        "overlays[].reveal.easing.spring.mass": springMassRule,
        "overlays[].reveal.easing.spring.stiffness": springStiffnessRule,
        "overlays[].reveal.easing.spring.damping": springDampingRule,
        "overlays[].reveal.easing.spring.initialVelocity": springVelocityRule,
    ]

    /// Whether an overlay asks for styled text (any of the keys beyond `text`, `fontSize` and `color`).
    static func isStyled(_ overlay: Overlay) -> Bool {
        overlay.font != nil || overlay.weight != nil || overlay.stroke != nil || overlay.shadow != nil || overlay.box != nil
            || overlay.align != nil || overlay.wrap != nil || overlay.lineSpacing != nil || overlay.reveal != nil
    }

    /// A `#RRGGBB` or `#RRGGBBAA` colour, or the fallback when absent.
    static func textColor(_ text: String?, default fallback: TextStyle.Color, at path: String) throws(ReelError) -> TextStyle.Color {
        guard let text else { return fallback }
        guard let color = TextStyle.Color(hex: text) else {
            throw ReelError(.invalidArgument, "wants #RRGGBB or #RRGGBBAA, not '\(ReelError.quoted(text))'", subject: path)
        }
        return color
    }

    /// The style and reveal of a styled text overlay; nil for plain text (drawn as before).
    static func textStyle(_ overlay: Overlay, at path: String) throws(ReelError) -> (TextStyle, TextReveal?)? {
        guard isStyled(overlay) else { return nil }
        guard overlay.type == "text" else {
            throw ReelError(.invalidArgument, "font, weight, stroke, shadow, box, align, wrap, lineSpacing and reveal are for text overlays",
                            subject: "\(path).type")
        }
        func check(_ value: Double?, _ key: String) throws(ReelError) {
            guard let value, let rule = textNumberRules["overlays[].\(key)"] else { return }
            guard rule.admits(value) else { throw rule.refusal(value, at: "\(path).\(key)") }
        }
        var style = TextStyle(fontSize: Double(overlay.fontSize ?? 32),
                              color: try textColor(overlay.color, default: .white, at: "\(path).color"))
        if let font = overlay.font {
            guard !font.isEmpty, font.count <= 200, !font.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ReelError(.invalidArgument, "wants a font family name (such as DejaVu Serif)", subject: "\(path).font")
            }
            style.fontFamily = font
        }
        if let weight = overlay.weight {
            try check(Double(weight), "weight")
            style.weight = weight
        }
        if let stroke = overlay.stroke {
            try check(stroke.width, "stroke.width")
            style.stroke = TextStyle.Stroke(width: stroke.width, color: try textColor(stroke.color, default: .black, at: "\(path).stroke.color"))
        }
        if let shadow = overlay.shadow {
            try check(shadow.x, "shadow.x")
            try check(shadow.y, "shadow.y")
            try check(shadow.blur, "shadow.blur")
            style.shadow = TextStyle.Shadow(offsetX: shadow.x ?? 2, offsetY: shadow.y ?? 2, blur: shadow.blur ?? 0,
                                            color: try textColor(shadow.color, default: TextStyle.Color(red: 0, green: 0, blue: 0, alpha: 0.6),
                                                                 at: "\(path).shadow.color"))
        }
        if let box = overlay.box {
            try check(box.padding, "box.padding")
            try check(box.radius, "box.radius")
            style.box = TextStyle.Box(color: try textColor(box.color, default: .black, at: "\(path).box.color"),
                                      padding: box.padding ?? 0, cornerRadius: box.radius ?? 0)
        }
        if let align = overlay.align {
            guard let alignment = TextStyle.Alignment(rawValue: align) else {
                throw ReelError(.invalidArgument, "is left, center or right, not '\(ReelError.quoted(align))'", subject: "\(path).align")
            }
            style.alignment = alignment
        }
        if let wrap = overlay.wrap { style.wraps = wrap }
        if let spacing = overlay.lineSpacing {
            try check(spacing, "lineSpacing")
            style.lineSpacing = spacing
        }
        var reveal: TextReveal?
        if let spec = overlay.reveal {
            guard let unit = TextReveal.Unit(rawValue: spec.by) else {
                throw ReelError(.invalidArgument, "is word or line, not '\(ReelError.quoted(spec.by))'", subject: "\(path).reveal.by")
            }
            try check(spec.begin, "reveal.begin")
            try check(spec.interval, "reveal.interval")
            try check(spec.duration, "reveal.duration")
            let timing = try spec.easing?.timingFunctions(segments: 1, at: "\(path).reveal.easing").first ?? .linear
            reveal = TextReveal(unit: unit, beginTime: spec.begin, interval: spec.interval, duration: spec.duration ?? 0,
                                timingFunction: timing)
        }
        return (style, reveal)
    }
}

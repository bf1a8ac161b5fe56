/// How styled text looks: a font family and weight (resolved through fontconfig), a fill
/// colour, an outline (stroke), a shadow, a background box with padding and rounded
/// corners, alignment and wrapping. `CATextLayer`'s `font`, `fontSize`, `foregroundColor`,
/// `alignmentMode` and `isWrapped`, with `CALayer`'s shadow and corner radius, in one value.
public struct TextStyle: Sendable, Hashable {
    /// A colour with straight (not premultiplied) alpha, each component 0 to 1.
    public struct Color: Sendable, Hashable {
        public var red: Double
        public var green: Double
        public var blue: Double
        public var alpha: Double

        /// A colour from its components, 0 to 1 each.
        /// - Parameters:
        ///   - red: Red, 0 to 1.
        ///   - green: Green, 0 to 1.
        ///   - blue: Blue, 0 to 1.
        ///   - alpha: Opacity, 0 to 1 (default 1).
        public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }

        /// A colour from `#RRGGBB` or `#RRGGBBAA` (the `#` optional); nil for anything else.
        /// - Parameter hex: The colour as hexadecimal digits.
        public init?(hex: String) {
            let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
            guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
                  let value = UInt32(digits, radix: 16) else { return nil }
            let full = digits.count == 6 ? value << 8 | 0xFF : value
            red = Double(full >> 24 & 0xFF) / 255
            green = Double(full >> 16 & 0xFF) / 255
            blue = Double(full >> 8 & 0xFF) / 255
            alpha = Double(full & 0xFF) / 255
        }

        public static let white = Color(red: 1, green: 1, blue: 1)
        public static let black = Color(red: 0, green: 0, blue: 0)
    }

    /// An outline drawn around every glyph, outside its edges. The fill covers the inside.
    public struct Stroke: Sendable, Hashable {
        /// The outline's width in pixels beyond the glyph's edge.
        public var width: Double
        public var color: Color

        /// - Parameters:
        ///   - width: Pixels beyond the glyph's edge.
        ///   - color: The outline's colour.
        public init(width: Double, color: Color) {
            self.width = width
            self.color = color
        }
    }

    /// A copy of the text (with its outline) drawn under it, moved and blurred. `CALayer`'s
    /// `shadowOffset`, `shadowRadius` and `shadowColor` (with its opacity in the colour's alpha).
    public struct Shadow: Sendable, Hashable {
        /// Pixels right (x) and down (y).
        public var offsetX: Double
        public var offsetY: Double
        /// The blur's radius in pixels; 0 for a hard shadow.
        public var blur: Double
        public var color: Color

        /// - Parameters:
        ///   - offsetX: Pixels to the right.
        ///   - offsetY: Pixels down.
        ///   - blur: The blur's radius in pixels (0: hard-edged).
        ///   - color: The shadow's colour and opacity.
        public init(offsetX: Double, offsetY: Double, blur: Double = 0, color: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.6)) {
            self.offsetX = offsetX
            self.offsetY = offsetY
            self.blur = blur
            self.color = color
        }
    }

    /// A filled rectangle behind the text, around its lines with `padding` on every side,
    /// its corners rounded to `cornerRadius`.
    public struct Box: Sendable, Hashable {
        public var color: Color
        /// Pixels between the text's lines and the box's edges.
        public var padding: Double
        /// The corners' radius in pixels (0: square).
        public var cornerRadius: Double

        /// - Parameters:
        ///   - color: The box's colour and opacity.
        ///   - padding: Pixels between the text and the box's edges.
        ///   - cornerRadius: The corners' radius in pixels.
        public init(color: Color, padding: Double = 0, cornerRadius: Double = 0) {
            self.color = color
            self.padding = padding
            self.cornerRadius = cornerRadius
        }
    }

    /// Where each line sits across the available width. `CATextLayerAlignmentMode`.
    public enum Alignment: String, Sendable, Hashable, CaseIterable {
        case left, center, right
    }

    /// A fontconfig family name (`DejaVu Sans`, `DejaVu Serif`, `monospace`); fontconfig picks
    /// the nearest installed face, and a face with the text's characters for scripts the
    /// family lacks.
    public var fontFamily: String
    /// The OpenType weight: 100 (thin) to 900 (black); 400 regular, 700 bold.
    public var weight: Int
    /// The font's size in pixels (the em).
    public var fontSize: Double
    public var color: Color
    public var stroke: Stroke?
    public var shadow: Shadow?
    public var box: Box?
    public var alignment: Alignment
    /// Whether lines break between words to stay within the width (less the box's padding).
    /// Line feeds in the text always break.
    public var wraps: Bool
    /// The distance between baselines, as a multiple of the font's own line height.
    public var lineSpacing: Double

    /// A style; everything but the size has a default.
    /// - Parameters:
    ///   - fontFamily: A fontconfig family name.
    ///   - weight: 100 to 900 (400 regular, 700 bold).
    ///   - fontSize: The em in pixels.
    ///   - color: The glyphs' fill.
    ///   - stroke: An outline, or nil.
    ///   - shadow: A shadow, or nil.
    ///   - box: A background box, or nil.
    ///   - alignment: Left, centre or right.
    ///   - wraps: Whether long lines break between words.
    ///   - lineSpacing: Baseline distance as a multiple of the font's line height.
    public init(fontFamily: String = "DejaVu Sans", weight: Int = 400, fontSize: Double, color: Color = .white,
                stroke: Stroke? = nil, shadow: Shadow? = nil, box: Box? = nil, alignment: Alignment = .left,
                wraps: Bool = true, lineSpacing: Double = 1) {
        self.fontFamily = fontFamily
        self.weight = weight
        self.fontSize = fontSize
        self.color = color
        self.stroke = stroke
        self.shadow = shadow
        self.box = box
        self.alignment = alignment
        self.wraps = wraps
        self.lineSpacing = lineSpacing
    }

    /// The same style with every length (size, outline, shadow, padding, radius) times `factor`,
    /// for drawing at another resolution than the one the style was written for.
    /// - Parameter factor: The scale, above 0.
    /// - Returns: The scaled style.
    public func scaled(by factor: Double) -> TextStyle {
        var copy = self
        copy.fontSize *= factor
        copy.stroke?.width *= factor
        if var shadow = copy.shadow {
            shadow.offsetX *= factor
            shadow.offsetY *= factor
            shadow.blur *= factor
            copy.shadow = shadow
        }
        if var box = copy.box {
            box.padding *= factor
            box.cornerRadius *= factor
            copy.box = box
        }
        return copy
    }
}

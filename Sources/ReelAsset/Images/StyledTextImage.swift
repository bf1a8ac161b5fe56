import ReelAV
public import ReelCore

/// Styled text laid out in a picture of a given size: the font family and weight that
/// fontconfig resolves, an outline, a shadow, a rounded box, alignment and wrapping
/// (``ReelCore/TextStyle``). Each word is drawn on its own, so that ``picture(opacities:)`` can
/// show words or lines one at a time.
public struct StyledTextImage: @unchecked Sendable {
    /// One word's place.
    public struct Word: Sendable, Hashable {
        public var text: String
        /// The line it is on, from 0.
        public var line: Int
        /// Its pen box in the picture: from its first glyph's origin across its advance, the
        /// line's ascent and descent down.
        public var bounds: Rect
    }

    private let layout: StyledTextRenderer.Layout

    /// Lays out `text` in a `width`×`height` picture.
    /// - Parameters:
    ///   - text: The words; a line feed always starts a line.
    ///   - style: Font, colours, outline, shadow, box, alignment and wrapping.
    ///   - width: The picture's width in pixels; lines wrap within it, less the box's padding.
    ///   - height: The picture's height in pixels; lines beyond it are cut off.
    /// - Throws: ``ReelError`` when fontconfig finds no font or a size is out of range.
    public init(_ text: String, style: TextStyle, width: Int, height: Int) throws(ReelError) {
        layout = try StyledTextRenderer.layout(text, style: style, width: width, height: height)
    }

    public var width: Int { layout.width }
    public var height: Int { layout.height }
    /// How many lines the text takes after wrapping.
    public var lineCount: Int { layout.lineCount }
    /// The box behind the text, when the style has one.
    public var boxRect: Rect? { layout.boxRect }
    /// The words in reading order.
    public var words: [Word] { layout.pieces.map { Word(text: $0.text, line: $0.line, bounds: $0.bounds) } }
    /// The font file fontconfig chose for the style's family and weight.
    public var fontFile: String { layout.fontFile }
    /// That font's family name.
    public var fontFamily: String { layout.fontFamily }

    /// The text drawn: the box, the shadows, then the outlined words.
    /// - Parameter opacities: Each word's opacity (0 hidden, 1 shown) in reading order;
    ///   words beyond the list are shown.
    /// - Returns: An RGBA picture, straight alpha, transparent where nothing is drawn.
    /// - Throws: ``ReelError`` when the picture cannot be allocated.
    public func picture(opacities: [Double] = []) throws(ReelError) -> PixelBuffer {
        try StyledTextRenderer.draw(layout, opacities: opacities)
    }
}

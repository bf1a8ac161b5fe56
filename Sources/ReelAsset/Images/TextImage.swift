import ReelAV
public import ReelCore

/// Text drawn into a transparent RGBA picture, with FreeType through FFmpeg, to lay
/// over frames and sheets.
public enum TextImage {
    /// A `width`×`height` transparent picture with `text` at (`x`, `y`) in `fontSize` pixels.
    /// - Parameters:
    ///   - text: the words, drawn on one line in DejaVu Sans.
    ///   - width: the picture's width in pixels.
    ///   - height: the picture's height in pixels.
    ///   - fontSize: the font's size in pixels.
    ///   - color: an FFmpeg colour name or `#RRGGBB`.
    ///   - x: the left edge of the text, in pixels from the picture's left.
    ///   - y: the top of the text, in pixels from the picture's top.
    /// - Returns: an RGBA picture, transparent where there is no text.
    /// - Throws: ``ReelError`` for a size outside a pixel buffer's limits, or FFmpeg's
    ///   message when the text cannot be drawn.
    public static func render(_ text: String, width: Int, height: Int, fontSize: Int, color: String = "white",
                              x: Int = 0, y: Int = 0) throws(ReelError) -> PixelBuffer {
        try TextRenderer.render(text, width: width, height: height, fontSize: fontSize, color: color, x: x, y: y)
    }
}

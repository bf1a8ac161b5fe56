import ReelAV
public import ReelCore

/// Text drawn into a transparent RGBA picture, with FreeType through FFmpeg, to lay
/// over frames and sheets.
public enum TextImage {
    /// A `width`×`height` transparent picture with `text` at (`x`, `y`) in `fontSize` pixels.
    /// - Parameter color: an FFmpeg colour name or `#RRGGBB`.
    public static func render(_ text: String, width: Int, height: Int, fontSize: Int, color: String = "white",
                              x: Int = 0, y: Int = 0) throws(ReelError) -> PixelBuffer {
        try TextRenderer.render(text, width: width, height: height, fontSize: fontSize, color: color, x: x, y: y)
    }
}

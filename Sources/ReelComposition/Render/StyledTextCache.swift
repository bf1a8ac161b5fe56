import ReelAsset
import ReelCore

/// The styled text layers of a render, laid out once each, and their last picture, which is
/// drawn again only while a reveal changes a word's opacity.
struct StyledTextCache {
    private struct Entry {
        var image: StyledTextImage
        var opacities: [Double]?
        var picture: PixelBuffer?
    }
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// The picture of a styled text layer at composition second `seconds`, or nil for any
    /// other layer.
    /// - Parameters:
    ///   - layer: The layer.
    ///   - width: Its width in output pixels.
    ///   - height: Its height in output pixels.
    ///   - scale: Output pixels per render pixel, for the style's lengths.
    ///   - seconds: The composition time, for a reveal.
    /// - Returns: An RGBA picture of `width`×`height`, or nil when the layer is not styled text.
    /// - Throws: ``ReelError`` when the text cannot be laid out.
    mutating func picture(of layer: OverlayLayer, width: Int, height: Int, scale: Double,
                          at seconds: Double) throws(ReelError) -> PixelBuffer? {
        guard let style = layer.textStyle, case .text(let text, _, _) = layer.content else { return nil }
        let key = ObjectIdentifier(layer)
        var entry: Entry
        if let known = entries[key] {
            entry = known
        } else {
            entry = Entry(image: try StyledTextImage(text, style: style.scaled(by: scale), width: width, height: height))
        }
        let opacities = layer.textReveal?.opacities(of: entry.image.words, at: seconds) ?? []
        if let picture = entry.picture, entry.opacities == opacities { return picture }
        let picture = try entry.image.picture(opacities: opacities)
        entry.opacities = opacities
        entry.picture = picture
        entries[key] = entry
        return picture
    }
}

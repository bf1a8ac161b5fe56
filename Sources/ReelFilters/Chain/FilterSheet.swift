import Foundation
public import ReelCore
import ReelAsset

/// The reference picture: one frame through every effect, in a labelled grid.
public enum FilterSheet {
    /// The effects the sheet shows, in order, after the original.
    public static let effectNames = FilterCatalog.entries.map(\.name).filter { $0 != "ColorCube" }

    /// A colourful picture Reel makes when no file is given: colour bars, a grey ramp,
    /// skin and sky tones, and a bright disc.
    /// - Parameters:
    ///   - width: The picture's width in pixels.
    ///   - height: The picture's height in pixels.
    /// - Returns: An RGBA picture whose colours show what each filter does.
    /// - Throws: ``ReelError`` for a size a picture cannot have.
    public static func referenceFrame(width: Int = 640, height: Int = 360) throws(ReelError) -> PixelBuffer {
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
        let bars: [(UInt8, UInt8, UInt8)] = [(235, 235, 235), (235, 235, 16), (16, 235, 235), (16, 235, 16),
                                             (235, 16, 235), (235, 16, 16), (16, 16, 235)]
        let barWidth = width / bars.count + 1
        for (index, colour) in bars.enumerated() {
            picture.fillRect(x: index * barWidth, y: 0, width: barWidth, height: height / 2,
                             rgba: (colour.0, colour.1, colour.2, 255))
        }
        for x in 0..<width {
            let level = UInt8(x * 255 / max(width - 1, 1))
            picture.fillRect(x: x, y: height / 2, width: 1, height: height / 6, rgba: (level, level, level, 255))
        }
        let tones: [(UInt8, UInt8, UInt8)] = [(224, 172, 140), (141, 85, 54), (110, 160, 220), (60, 130, 60), (250, 210, 80)]
        let toneWidth = width / tones.count + 1
        for (index, tone) in tones.enumerated() {
            picture.fillRect(x: index * toneWidth, y: height * 2 / 3, width: toneWidth, height: height - height * 2 / 3,
                             rgba: (tone.0, tone.1, tone.2, 255))
        }
        let radius = height / 8, cx = width * 3 / 4, cy = height / 4
        for y in (cy - radius)...(cy + radius) {
            let half = Int((Double(radius * radius - (y - cy) * (y - cy))).squareRoot())
            picture.fillRect(x: cx - half, y: y, width: 2 * half, height: 1, rgba: (255, 250, 240, 255))
        }
        return picture
    }

    /// The sheet: the original, then each effect with its default parameters, `columns` across.
    /// - Parameters:
    ///   - frame: The picture every effect is shown on.
    ///   - tileWidth: Each tile's width in pixels (the height keeps the frame's aspect).
    ///   - columns: Tiles across.
    /// - Returns: One RGBA picture holding every tile.
    /// - Throws: ``ReelError`` when the frame cannot be scaled or a filter cannot take it.
    public static func render(_ frame: PixelBuffer, tileWidth: Int = 320, columns: Int = 4) throws(ReelError) -> PixelBuffer {
        let tileHeight = max(2, frame.height * tileWidth / max(frame.width, 1)) & ~1
        let scaled = try PixelBuffer(width: tileWidth, height: tileHeight, pixelFormat: .rgba)
        try ReelAsset.PixelScaler.scale(frame, into: scaled)
        let names = ["Original"] + effectNames
        let rows = (names.count + columns - 1) / columns
        let padding = 8, label = 26
        let sheet = try PixelBuffer(width: padding + columns * (tileWidth + padding),
                                    height: padding + rows * (tileHeight + label + padding), pixelFormat: .rgba)
        sheet.fillRect(x: 0, y: 0, width: sheet.width, height: sheet.height, rgba: (28, 28, 30, 255))
        for (index, name) in names.enumerated() {
            let tile = name == "Original" ? scaled : try FilterChain([try Filter(name: name)]).apply(scaled)
            let x = padding + (index % columns) * (tileWidth + padding)
            let y = padding + (index / columns) * (tileHeight + label + padding)
            try sheet.draw(tile, x: x, y: y)
            try sheet.draw(try TextImage.render(name, width: tileWidth, height: label, fontSize: 17, color: "#f0f0f0",
                                                x: 2, y: 5), x: x, y: y + tileHeight)
        }
        return sheet
    }
}

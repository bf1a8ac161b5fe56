import CFreeType
import Foundation
package import ReelCore

/// Lays out and draws styled text (``TextStyle``) with FreeType, the faces found by
/// fontconfig: words wrapped into lines within a width, each line aligned, a rounded box
/// behind them, and each word drawn as its own picture (outline, fill, shadow) so that
/// words or lines can appear one by one.
package enum StyledTextRenderer {
    /// One word, drawn: its picture (outline and fill) and its shadow's, each placed in the
    /// text's picture by its top-left corner.
    package struct Piece: @unchecked Sendable {
        package var text: String
        /// The line it is on, from 0.
        package var line: Int
        /// Its place among all the words, from 0.
        package var index: Int
        /// Its pen box in the text's picture: from its first glyph's origin to its last
        /// advance across, the line's ascent and descent down.
        package var bounds: Rect
        package var body: PixelBuffer
        package var bodyOrigin: (x: Int, y: Int)
        package var shadow: PixelBuffer?
        package var shadowOrigin: (x: Int, y: Int)
    }

    /// A laid-out text: its pieces, the box and what fontconfig chose.
    package struct Layout: @unchecked Sendable {
        package var width: Int
        package var height: Int
        package var lineCount: Int
        /// The box's rectangle in the picture, when the style has one.
        package var boxRect: Rect?
        package var box: PixelBuffer?
        package var pieces: [Piece]
        /// The face fontconfig matched for the style's family and weight.
        package var fontFile: String
        package var fontFamily: String
    }

    /// FreeType and fontconfig are used from one thread at a time.
    private static let lock = PosixMutex(())

    /// Lays out `text` in a `width`×`height` picture.
    /// - Parameters:
    ///   - text: The words; a line feed always starts a new line.
    ///   - style: The font, colours, outline, shadow, box, alignment and wrapping.
    ///   - width: The picture's width in pixels (lines wrap within it, less the box's padding).
    ///   - height: The picture's height in pixels.
    /// - Returns: The layout, each word drawn.
    /// - Throws: ``ReelError`` when no font can be found or a size is outside a picture's limits.
    package static func layout(_ text: String, style: TextStyle, width: Int, height: Int) throws(ReelError) -> Layout {
        guard width > 0, height > 0, width <= PixelBuffer.maximumDimension, height <= PixelBuffer.maximumDimension else {
            throw ReelError(.invalidArgument, "a text picture of \(width)x\(height) is outside 1 to \(PixelBuffer.maximumDimension) pixels a side")
        }
        guard style.fontSize.isFinite, style.fontSize >= 1, style.fontSize <= 4000 else {
            throw ReelError(.invalidArgument, "a font size of \(style.fontSize) pixels is outside 1 to 4000")
        }
        return try lock.withLock { (_: inout ()) throws(ReelError) -> Layout in
            let session = try FontSession(style: style, text: text)
            defer { session.close() }
            return try session.layout(text, width: width, height: height)
        }
    }

    /// Draws a layout: the box, then every shadow, then every word, each word at its opacity.
    /// - Parameters:
    ///   - layout: What ``layout(_:style:width:height:)`` made.
    ///   - opacities: Each word's opacity, 0 to 1, by its index; words past the list's end are opaque.
    /// - Returns: An RGBA picture of the layout's size, straight alpha.
    /// - Throws: ``ReelError`` when the picture cannot be allocated.
    package static func draw(_ layout: Layout, opacities: [Double] = []) throws(ReelError) -> PixelBuffer {
        let canvas = try PixelBuffer(width: layout.width, height: layout.height, pixelFormat: .rgba)
        canvas.fillRect(x: 0, y: 0, width: layout.width, height: layout.height, rgba: (0, 0, 0, 0))
        if let box = layout.box, let rect = layout.boxRect {
            blend(box, into: canvas, x: Int(rect.minX), y: Int(rect.minY), opacity: 1)
        }
        func opacity(_ piece: Piece) -> Double { piece.index < opacities.count ? min(max(opacities[piece.index], 0), 1) : 1 }
        for piece in layout.pieces {
            if let shadow = piece.shadow { blend(shadow, into: canvas, x: piece.shadowOrigin.x, y: piece.shadowOrigin.y, opacity: opacity(piece)) }
        }
        for piece in layout.pieces {
            blend(piece.body, into: canvas, x: piece.bodyOrigin.x, y: piece.bodyOrigin.y, opacity: opacity(piece))
        }
        return canvas
    }

    /// Source-over of straight-alpha RGBA `picture` onto straight-alpha RGBA `canvas` at (`x`, `y`).
    static func blend(_ picture: PixelBuffer, into canvas: PixelBuffer, x: Int, y: Int, opacity: Double) {
        guard opacity > 0 else { return }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(canvas.width, x + picture.width), y1 = min(canvas.height, y + picture.height)
        guard x1 > x0, y1 > y0 else { return }
        picture.withPlane(0) { input, inStride in
            canvas.withMutablePlane(0) { output, outStride in
                for row in y0..<y1 {
                    let source = input + (row - y) * inStride
                    let target = output + row * outStride
                    for column in x0..<x1 {
                        let s = source + (column - x) * 4
                        let sa = Double(s.load(fromByteOffset: 3, as: UInt8.self)) / 255 * opacity
                        guard sa > 0 else { continue }
                        let t = target + column * 4
                        let ta = Double(t.load(fromByteOffset: 3, as: UInt8.self)) / 255
                        let outA = sa + ta * (1 - sa)
                        for channel in 0..<3 {
                            let sc = Double(s.load(fromByteOffset: channel, as: UInt8.self))
                            let tc = Double(t.load(fromByteOffset: channel, as: UInt8.self))
                            let value = (sc * sa + tc * ta * (1 - sa)) / outA
                            t.storeBytes(of: UInt8(min(max(value.rounded(), 0), 255)), toByteOffset: channel, as: UInt8.self)
                        }
                        t.storeBytes(of: UInt8(min(max((outA * 255).rounded(), 0), 255)), toByteOffset: 3, as: UInt8.self)
                    }
                }
            }
        }
    }

    /// A picture of `width`×`height` pixels in one colour whose alpha is `mask` (0–255 each) times the colour's.
    static func tinted(_ mask: [UInt8], width: Int, height: Int, color: TextStyle.Color) throws(ReelError) -> PixelBuffer {
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
        let r = byte(color.red), g = byte(color.green), b = byte(color.blue)
        picture.withMutablePlane(0) { output, stride in
            for row in 0..<height {
                let line = output + row * stride
                for column in 0..<width {
                    let p = line + column * 4
                    let a = Double(mask[row * width + column]) * color.alpha
                    p.storeBytes(of: r, as: UInt8.self)
                    p.storeBytes(of: g, toByteOffset: 1, as: UInt8.self)
                    p.storeBytes(of: b, toByteOffset: 2, as: UInt8.self)
                    p.storeBytes(of: UInt8(min(max(a.rounded(), 0), 255)), toByteOffset: 3, as: UInt8.self)
                }
            }
        }
        return picture
    }

    static func byte(_ value: Double) -> UInt8 { UInt8(min(max((value * 255).rounded(), 0), 255)) }

    /// A rounded rectangle filling `width`×`height`, its edges antialiased.
    static func roundedBox(width: Int, height: Int, radius: Double, color: TextStyle.Color) throws(ReelError) -> PixelBuffer {
        let r = min(max(radius, 0), Double(min(width, height)) / 2)
        var mask = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width {
                let px = Double(column) + 0.5, py = Double(row) + 0.5
                // The nearest point of the rectangle shrunk by r; coverage by distance from it.
                let cx = min(max(px, r), Double(width) - r), cy = min(max(py, r), Double(height) - r)
                let distance = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
                let coverage = r > 0 ? min(max(r - distance + 0.5, 0), 1) : 1
                mask[row * width + column] = UInt8((coverage * 255).rounded())
            }
        }
        return try tinted(mask, width: width, height: height, color: color)
    }

    /// Three box blurs of radius about `radius` / 2 each, near a Gaussian; each pass keeps a
    /// running sum, so the cost does not grow with the radius.
    static func blurred(_ mask: [UInt8], width: Int, height: Int, radius: Double) -> [UInt8] {
        let r = Int((radius / 2).rounded(.up))
        guard r > 0, width > 0, height > 0 else { return mask }
        var values = mask.map(Double.init)
        var scratch = values
        let span = Double(2 * r + 1)
        /// One pass along a line of `count` values `stride` apart from `start`, edges repeated.
        func pass(_ input: [Double], _ output: inout [Double], start: Int, count: Int, stride: Int) {
            func at(_ i: Int) -> Double { input[start + min(max(i, 0), count - 1) * stride] }
            var sum = 0.0
            for k in -r...r { sum += at(k) }
            for i in 0..<count {
                output[start + i * stride] = sum / span
                sum += at(i + r + 1) - at(i - r)
            }
        }
        for _ in 0..<3 {
            for row in 0..<height { pass(values, &scratch, start: row * width, count: width, stride: 1) }
            for column in 0..<width { pass(scratch, &values, start: column, count: height, stride: width) }
        }
        return values.map { UInt8(min(max($0.rounded(), 0), 255)) }
    }
}

/// The FreeType library, the faces fontconfig chose and the stroker of one layout.
private final class FontSession {
    let style: TextStyle
    var library: FT_Library?
    var primary: FT_Face?
    var fallbacks: [String: FT_Face] = [:]
    var fallbackForScalar: [UInt32: FT_Face] = [:]
    var stroker: FT_Stroker?
    var fontFile = ""
    var fontFamily = ""

    init(style: TextStyle, text: String) throws(ReelError) {
        self.style = style
        guard FT_Init_FreeType(&library) == 0 else {
            throw ReelError(.unsupported, "FreeType cannot start", operation: "FT_Init_FreeType")
        }
        guard FcInit() != 0 else { throw ReelError(.unsupported, "fontconfig cannot start", operation: "FcInit") }
        // The characters beyond ASCII weigh in the match, so one face covers the whole text
        // wherever one does (the family's own face when it has them all).
        var scalars = Set<UInt32>()
        for scalar in text.unicodeScalars where scalar.value > 0x7E && !scalar.properties.isWhitespace {
            scalars.insert(scalar.value)
            if scalars.count == 256 { break }
        }
        guard let match = Self.match(family: style.fontFamily, weight: style.weight, scalars: scalars) else {
            throw ReelError(.unsupported, "fontconfig finds no font for '\(ReelError.quoted(style.fontFamily))'", operation: "FcFontMatch")
        }
        fontFile = match.file
        fontFamily = match.family
        primary = try open(match.file, index: match.index)
        if let stroke = style.stroke, stroke.width > 0 {
            guard FT_Stroker_New(library, &stroker) == 0 else {
                throw ReelError(.outOfMemory, "cannot make a stroker", operation: "FT_Stroker_New")
            }
            FT_Stroker_Set(stroker, FT_Fixed((stroke.width * 64).rounded()), FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0)
        }
    }

    func close() {
        if let stroker { FT_Stroker_Done(stroker) }
        for face in fallbacks.values { FT_Done_Face(face) }
        if let primary { FT_Done_Face(primary) }
        if let library { FT_Done_FreeType(library) }
    }

    struct Match {
        var file: String
        var index: Int32
        var family: String
    }

    static func match(family: String, weight: Int, scalars: Set<UInt32>) -> Match? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        _ = family.withCString { FcPatternAddString(pattern, FC_FAMILY, UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
        _ = FcPatternAddInteger(pattern, FC_WEIGHT, FcWeightFromOpenType(Int32(min(max(weight, 1), 1000))))
        if !scalars.isEmpty, let set = FcCharSetCreate() {
            for scalar in scalars.sorted() { _ = FcCharSetAddChar(set, scalar) }
            _ = FcPatternAddCharSet(pattern, FC_CHARSET, set)
            FcCharSetDestroy(set)
        }
        _ = FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let found = FcFontMatch(nil, pattern, &result) else { return nil }
        defer { FcPatternDestroy(found) }
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(found, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        var index: Int32 = 0
        _ = FcPatternGetInteger(found, FC_INDEX, 0, &index)
        var name: UnsafeMutablePointer<FcChar8>?
        var familyName = family
        if FcPatternGetString(found, FC_FAMILY, 0, &name) == FcResultMatch, let name {
            familyName = String(cString: UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        }
        return Match(file: String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)), index: index,
                     family: familyName)
    }

    func open(_ file: String, index: Int32) throws(ReelError) -> FT_Face {
        var face: FT_Face?
        guard FT_New_Face(library, file, FT_Long(index), &face) == 0, let face else {
            throw ReelError(.invalidData, "FreeType cannot read the font", subject: file, operation: "FT_New_Face")
        }
        let size = FT_F26Dot6((style.fontSize * 64).rounded())
        guard FT_Set_Char_Size(face, 0, size, 72, 72) == 0 else {
            FT_Done_Face(face)
            throw ReelError(.invalidData, "the font has no size \(style.fontSize)", subject: file, operation: "FT_Set_Char_Size")
        }
        return face
    }

    /// The face and glyph for a character: the primary face's, else a face fontconfig finds for it.
    func glyph(for scalar: Unicode.Scalar) -> (FT_Face, FT_UInt)? {
        guard let primary else { return nil }
        let index = FT_Get_Char_Index(primary, FT_ULong(scalar.value))
        if index != 0 || scalar.value < 0x20 { return (primary, index) }
        if let face = fallbackForScalar[scalar.value] { return (face, FT_Get_Char_Index(face, FT_ULong(scalar.value))) }
        guard let match = Self.match(family: style.fontFamily, weight: style.weight, scalars: [scalar.value]) else {
            return (primary, 0)
        }
        let key = "\(match.file)#\(match.index)"
        let face: FT_Face
        if let open = fallbacks[key] {
            face = open
        } else if let opened = try? open(match.file, index: match.index) {
            fallbacks[key] = opened
            face = opened
        } else {
            return (primary, 0)
        }
        fallbackForScalar[scalar.value] = face
        return (face, FT_Get_Char_Index(face, FT_ULong(scalar.value)))
    }

    /// Load flags: outlines (no embedded bitmaps), unhinted so that sizes scale smoothly.
    static let loadFlags = FT_Int32(FT_LOAD_NO_BITMAP | FT_LOAD_NO_HINTING)

    /// A word's glyphs and their pen offsets in 26.6 pixels, and its advance.
    func shape(_ word: String) -> (glyphs: [(FT_Face, FT_UInt, Int)], advance: Int) {
        var glyphs: [(FT_Face, FT_UInt, Int)] = []
        var pen = 0
        for scalar in word.unicodeScalars {
            guard let (face, index) = glyph(for: scalar), FT_Load_Glyph(face, index, Self.loadFlags) == 0 else { continue }
            glyphs.append((face, index, pen))
            pen += Int(face.pointee.glyph.pointee.advance.x)
        }
        return (glyphs, pen)
    }

    func layout(_ text: String, width: Int, height: Int) throws(ReelError) -> StyledTextRenderer.Layout {
        guard let primary else { throw ReelError(.invalidState, "no font") }
        let metrics = primary.pointee.size.pointee.metrics
        let ascent = Double(metrics.ascender) / 64, descent = -Double(metrics.descender) / 64
        let lineHeight = max(Double(metrics.height) / 64, ascent + descent) * style.lineSpacing
        let padding = style.box?.padding ?? 0
        let available = max(1, Double(width) - 2 * padding)
        let space = Double(shape(" ").advance) / 64
        // Lines of words (each word with its glyphs and width).
        typealias Word = (text: String, glyphs: [(FT_Face, FT_UInt, Int)], width: Double)
        var lines: [[Word]] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line: [Word] = []
            var lineWidth = 0.0
            for token in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let shaped = shape(String(token))
                let word: Word = (String(token), shaped.glyphs, Double(shaped.advance) / 64)
                let grown = line.isEmpty ? word.width : lineWidth + space + word.width
                if style.wraps, !line.isEmpty, grown > available {
                    lines.append(line)
                    line = [word]
                    lineWidth = word.width
                } else {
                    line.append(word)
                    lineWidth = grown
                }
            }
            lines.append(line)
        }
        let lineWidths = lines.map { words in words.reduce(0) { $0 + $1.width } + space * Double(max(words.count - 1, 0)) }
        let widest = lineWidths.max() ?? 0
        var lefts: [Double] = []
        for lineWidth in lineWidths {
            switch style.alignment {
            case .left: lefts.append(padding)
            case .center: lefts.append(padding + (available - lineWidth) / 2)
            case .right: lefts.append(padding + available - lineWidth)
            }
        }
        var result = StyledTextRenderer.Layout(width: width, height: height, lineCount: lines.count, boxRect: nil, box: nil,
                                               pieces: [], fontFile: fontFile, fontFamily: fontFamily)
        if let box = style.box {
            let blockLeft: Double
            switch style.alignment {
            case .left: blockLeft = 0
            case .center: blockLeft = (available - widest) / 2
            case .right: blockLeft = available - widest
            }
            let rect = Rect(x: blockLeft.rounded(), y: 0, width: (widest + 2 * padding).rounded(),
                            height: (Double(lines.count) * lineHeight + 2 * padding).rounded())
            if rect.width >= 1, rect.height >= 1 {
                result.boxRect = rect
                result.box = try StyledTextRenderer.roundedBox(width: Int(rect.width), height: Int(rect.height),
                                                               radius: box.cornerRadius, color: box.color)
            }
        }
        var index = 0
        for (lineIndex, words) in lines.enumerated() {
            let top = padding + Double(lineIndex) * lineHeight
            var x = lefts[lineIndex]
            for word in words {
                let bounds = Rect(x: x, y: top, width: word.width, height: ascent + descent)
                result.pieces.append(try draw(word.text, glyphs: word.glyphs, penX: x, baseline: top + ascent, bounds: bounds,
                                              line: lineIndex, index: index))
                index += 1
                x += word.width + space
            }
        }
        return result
    }

    /// A word's outline and fill (and its shadow) as pictures placed in the text's picture.
    func draw(_ text: String, glyphs: [(FT_Face, FT_UInt, Int)], penX: Double, baseline: Double, bounds: Rect,
              line: Int, index: Int) throws(ReelError) -> StyledTextRenderer.Piece {
        let strokeWidth = style.stroke.map { $0.width } ?? 0
        let margin = Int((strokeWidth + 2).rounded(.up)) + Int((style.fontSize * 0.3).rounded(.up))
        let originX = Int(bounds.minX.rounded(.down)) - margin, originY = Int(bounds.minY.rounded(.down)) - margin
        let width = Int(bounds.width.rounded(.up)) + 2 * margin + 1, height = Int(bounds.height.rounded(.up)) + 2 * margin + 1
        var fill = [UInt8](repeating: 0, count: width * height)
        var outline = [UInt8](repeating: 0, count: width * height)
        // The pen's position inside this picture, in 26.6 pixels.
        let penStartX = Int(((penX - Double(originX)) * 64).rounded()), baselineY = Int(((baseline - Double(originY)) * 64).rounded())
        for (face, glyphIndex, offset) in glyphs {
            guard FT_Load_Glyph(face, glyphIndex, Self.loadFlags) == 0 else { continue }
            var glyph: FT_Glyph?
            guard FT_Get_Glyph(face.pointee.glyph, &glyph) == 0, let loaded = glyph else { continue }
            defer { FT_Done_Glyph(loaded) }
            let x = penStartX + offset
            // Whole pixels placed by the bitmap's origin, the fraction given to FreeType.
            var origin = FT_Vector(x: FT_Pos(x & 63), y: FT_Pos(-(baselineY & 63)))
            let wholeX = x >> 6, wholeY = baselineY >> 6
            if let stroker {
                var copy: FT_Glyph?
                if FT_Glyph_Copy(loaded, &copy) == 0, copy != nil {
                    if FT_Glyph_StrokeBorder(&copy, stroker, 0, 1) == 0,
                       FT_Glyph_To_Bitmap(&copy, FT_RENDER_MODE_NORMAL, &origin, 1) == 0, let copy {
                        Self.accumulate(copy, into: &outline, width: width, height: height, x: wholeX, y: wholeY)
                    }
                    if let copy { FT_Done_Glyph(copy) }
                }
            }
            var copy: FT_Glyph?
            if FT_Glyph_Copy(loaded, &copy) == 0, copy != nil {
                if FT_Glyph_To_Bitmap(&copy, FT_RENDER_MODE_NORMAL, &origin, 1) == 0, let copy {
                    Self.accumulate(copy, into: &fill, width: width, height: height, x: wholeX, y: wholeY)
                }
                if let copy { FT_Done_Glyph(copy) }
            }
        }
        // The body: the outline in its colour, the fill over it.
        let body = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
        let fillColor = style.color, strokeColor = style.stroke?.color ?? style.color
        var coverage = [UInt8](repeating: 0, count: width * height)
        body.withMutablePlane(0) { output, stride in
            for row in 0..<height {
                for column in 0..<width {
                    let i = row * width + column
                    let fa = Double(fill[i]) / 255 * fillColor.alpha
                    let sa = stroker == nil ? 0 : Double(outline[i]) / 255 * strokeColor.alpha
                    let a = fa + sa * (1 - fa)
                    let p = output + row * stride + column * 4
                    coverage[i] = UInt8(min(max((a * 255).rounded(), 0), 255))
                    guard a > 0 else {
                        p.storeBytes(of: UInt32(0), as: UInt32.self)
                        continue
                    }
                    let channels = [(fillColor.red, strokeColor.red), (fillColor.green, strokeColor.green), (fillColor.blue, strokeColor.blue)]
                    for (channel, (f, s)) in channels.enumerated() {
                        let value = (f * fa + s * sa * (1 - fa)) / a
                        p.storeBytes(of: StyledTextRenderer.byte(value), toByteOffset: channel, as: UInt8.self)
                    }
                    p.storeBytes(of: coverage[i], toByteOffset: 3, as: UInt8.self)
                }
            }
        }
        var piece = StyledTextRenderer.Piece(text: text, line: line, index: index, bounds: bounds, body: body,
                                             bodyOrigin: (originX, originY), shadow: nil, shadowOrigin: (0, 0))
        if let shadow = style.shadow, shadow.color.alpha > 0 {
            let spread = Int((shadow.blur * 1.5).rounded(.up)) + 1
            let shadowWidth = width + 2 * spread, shadowHeight = height + 2 * spread
            var mask = [UInt8](repeating: 0, count: shadowWidth * shadowHeight)
            for row in 0..<height {
                for column in 0..<width { mask[(row + spread) * shadowWidth + column + spread] = coverage[row * width + column] }
            }
            mask = StyledTextRenderer.blurred(mask, width: shadowWidth, height: shadowHeight, radius: shadow.blur)
            piece.shadow = try StyledTextRenderer.tinted(mask, width: shadowWidth, height: shadowHeight, color: shadow.color)
            piece.shadowOrigin = (originX - spread + Int(shadow.offsetX.rounded()), originY - spread + Int(shadow.offsetY.rounded()))
        }
        return piece
    }

    /// Adds a rendered bitmap glyph's coverage to a mask (the larger of the two where glyphs overlap).
    static func accumulate(_ glyph: FT_Glyph, into mask: inout [UInt8], width: Int, height: Int, x: Int, y: Int) {
        let bitmapGlyph = UnsafeMutableRawPointer(glyph).assumingMemoryBound(to: FT_BitmapGlyphRec.self).pointee
        let bitmap = bitmapGlyph.bitmap
        guard let buffer = bitmap.buffer, bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) else { return }
        let left = x + Int(bitmapGlyph.left), top = y - Int(bitmapGlyph.top)
        for row in 0..<Int(bitmap.rows) {
            let targetRow = top + row
            guard targetRow >= 0, targetRow < height else { continue }
            for column in 0..<Int(bitmap.width) {
                let targetColumn = left + column
                guard targetColumn >= 0, targetColumn < width else { continue }
                let value = buffer[row * Int(bitmap.pitch) + column]
                let i = targetRow * width + targetColumn
                if value > mask[i] { mask[i] = value }
            }
        }
    }
}

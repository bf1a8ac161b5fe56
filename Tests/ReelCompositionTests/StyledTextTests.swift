import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Styled text (issue 22 item 3): the pixels of an outline, a rounded box, wrapped lines and
/// aligned lines, fontconfig's choice of face, and a word revealed in a composed movie.
@Suite struct StyledTextTests {
    /// The RGBA bytes of a picture, row after row without padding.
    private func pixels(_ picture: PixelBuffer) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: picture.width * picture.height * 4)
        picture.withPlane(0) { base, stride in
            for row in 0..<picture.height {
                for i in 0..<picture.width * 4 { bytes[(row * picture.width) * 4 + i] = base.load(fromByteOffset: row * stride + i, as: UInt8.self) }
            }
        }
        return bytes
    }

    /// The rows with any pixel more than half opaque, grouped into runs (lines of text).
    private func inkBands(_ bytes: [UInt8], width: Int, height: Int) -> [ClosedRange<Int>] {
        var bands: [ClosedRange<Int>] = []
        for row in 0..<height where (0..<width).contains(where: { bytes[(row * width + $0) * 4 + 3] > 128 }) {
            if let last = bands.last, last.upperBound == row - 1 { bands[bands.count - 1] = last.lowerBound...row } else { bands.append(row...row) }
        }
        return bands
    }

    /// A red outline 4 px wide around white glyphs: red appears only outside the glyphs'
    /// edges (where the same text drawn without an outline is not solid) and within the
    /// outline's width of them; inside the glyphs every pixel stays white; and the ring
    /// 2 px outside every edge is red.
    @Test func strokeIsAroundTheEdgesAndNotInside() throws {
        let plainStyle = TextStyle(weight: 700, fontSize: 96)
        var stroked = plainStyle
        stroked.stroke = TextStyle.Stroke(width: 4, color: TextStyle.Color(red: 1, green: 0, blue: 0))
        let (width, height) = (360, 160)
        let plain = pixels(try StyledTextImage("HOW", style: plainStyle, width: width, height: height).picture())
        let outlined = pixels(try StyledTextImage("HOW", style: stroked, width: width, height: height).picture())
        func alpha(_ bytes: [UInt8], _ x: Int, _ y: Int) -> UInt8 { bytes[(y * width + x) * 4 + 3] }
        func isRed(_ x: Int, _ y: Int) -> Bool {
            let i = (y * width + x) * 4
            return outlined[i + 3] > 200 && outlined[i] > 200 && outlined[i + 1] < 60 && outlined[i + 2] < 60
        }
        // Distance from each pixel to the nearest inked pixel of the plain text (chessboard, capped).
        func nearInk(_ x: Int, _ y: Int, within radius: Int) -> Bool {
            for dy in -radius...radius {
                for dx in -radius...radius {
                    let nx = x + dx, ny = y + dy
                    if nx >= 0, ny >= 0, nx < width, ny < height, alpha(plain, nx, ny) > 128 { return true }
                }
            }
            return false
        }
        var red = 0, insideChecked = 0, ring = 0, ringRed = 0
        for y in 0..<height {
            for x in 0..<width {
                if alpha(plain, x, y) == 255 {
                    insideChecked += 1
                    let i = (y * width + x) * 4
                    #expect(outlined[i] == 255 && outlined[i + 1] == 255 && outlined[i + 2] == 255, "inside the glyph at \(x),\(y) is not white")
                    if outlined[i + 1] != 255 { return }
                }
                if isRed(x, y) {
                    red += 1
                    #expect(alpha(plain, x, y) < 255, "red inside the glyph at \(x),\(y)")
                    #expect(nearInk(x, y, within: 5), "red at \(x),\(y) is further than the outline from any glyph")
                }
                // The ring: not inked in the plain text, but inked 2 px away.
                if alpha(plain, x, y) == 0, nearInk(x, y, within: 2), !nearInk(x, y, within: 1) {
                    ring += 1
                    if isRed(x, y) { ringRed += 1 }
                }
            }
        }
        #expect(insideChecked > 1000 && red > 500, "\(insideChecked) solid glyph pixels, \(red) red")
        #expect(ring > 200 && Double(ringRed) / Double(ring) > 0.95, "\(ringRed) of \(ring) ring pixels are red")
    }

    /// A black shadow 6 px right and down: where the text (drawn without a shadow) is solid
    /// 6 px up and left of a pixel the text itself leaves empty, that pixel is opaque black;
    /// blurred by 8 px the same shadow spreads into half-transparent pixels around it.
    @Test func shadowIsTheTextMovedAndBlurred() throws {
        let (width, height) = (300, 140)
        let plainStyle = TextStyle(weight: 700, fontSize: 60)
        var hard = plainStyle
        hard.shadow = TextStyle.Shadow(offsetX: 6, offsetY: 6, blur: 0, color: .black)
        var soft = hard
        soft.shadow?.blur = 8
        let plain = pixels(try StyledTextImage("Shade", style: plainStyle, width: width, height: height).picture())
        let hardShadow = pixels(try StyledTextImage("Shade", style: hard, width: width, height: height).picture())
        let softShadow = pixels(try StyledTextImage("Shade", style: soft, width: width, height: height).picture())
        func alpha(_ bytes: [UInt8], _ x: Int, _ y: Int) -> UInt8 { bytes[(y * width + x) * 4 + 3] }
        var checked = 0
        for y in 6..<height {
            for x in 6..<width where alpha(plain, x - 6, y - 6) == 255 && alpha(plain, x, y) == 0 {
                checked += 1
                let i = (y * width + x) * 4
                #expect(Array(hardShadow[i..<i + 4]) == [0, 0, 0, 255], "at \(x),\(y): \(Array(hardShadow[i..<i + 4]))")
                if hardShadow[i + 3] != 255 { return }
            }
        }
        #expect(checked > 200, "\(checked) shadow pixels checked")
        let partial = { (bytes: [UInt8]) in stride(from: 3, to: bytes.count, by: 4).filter { bytes[$0] > 0 && bytes[$0] < 255 }.count }
        #expect(partial(softShadow) > 2 * partial(hardShadow), "\(partial(softShadow)) half-transparent pixels blurred, \(partial(hardShadow)) hard")
    }

    /// A blue box with 20 px of padding and 16 px corners: its padded rectangle is blue to
    /// the byte (the band of padding above the text, corners aside), its corner pixels are
    /// transparent beyond the radius, and nothing is drawn outside it.
    @Test func boxFillsItsPaddedRectangleWithRoundedCorners() throws {
        let blue = TextStyle.Color(red: 32.0 / 255, green: 64.0 / 255, blue: 1)
        let style = TextStyle(fontSize: 40, box: TextStyle.Box(color: blue, padding: 20, cornerRadius: 16), alignment: .center)
        let (width, height) = (400, 160)
        let image = try StyledTextImage("Box text", style: style, width: width, height: height)
        let bytes = pixels(try image.picture())
        let box = try #require(image.boxRect)
        let word = try #require(image.words.first)
        // The box is the text's width plus the padding each side, centred; the lines' height plus padding.
        let textWidth = (image.words.last?.bounds.maxX ?? 0) - word.bounds.minX
        #expect(abs(box.width - (textWidth + 40)) <= 1, "box \(box.width) for text \(textWidth)")
        #expect(abs(box.midX - Double(width) / 2) <= 1, "box centre \(box.midX)")
        func rgba(_ x: Int, _ y: Int) -> [UInt8] { Array(bytes[(y * width + x) * 4..<(y * width + x) * 4 + 4]) }
        let (x0, y0, x1, y1) = (Int(box.minX), Int(box.minY), Int(box.maxX) - 1, Int(box.maxY) - 1)
        // The padding band above the text, between the corners, is exactly the box's colour.
        for y in y0..<(y0 + 12) {
            for x in (x0 + 16)...(x1 - 16) {
                #expect(rgba(x, y) == [32, 64, 255, 255], "at \(x),\(y): \(rgba(x, y))")
                if rgba(x, y)[3] != 255 { return }
            }
        }
        // And the side bands, below the corners.
        for y in (y0 + 16)...(y1 - 16) {
            for x in [x0, x0 + 5, x1 - 5, x1] { #expect(rgba(x, y) == [32, 64, 255, 255], "at \(x),\(y): \(rgba(x, y))") }
        }
        // Each corner pixel, and the pixels near it beyond the radius, are transparent.
        for (cx, cy) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)] {
            for (dx, dy) in [(0, 0), (1, 1), (2, 2), (3, 0), (0, 3)] {
                let x = cx == x0 ? cx + dx : cx - dx, y = cy == y0 ? cy + dy : cy - dy
                #expect(rgba(x, y)[3] == 0, "corner pixel \(x),\(y) is \(rgba(x, y))")
            }
        }
        // On the arc's inside (5 px in along the diagonal from the corner's centre) it is solid.
        #expect(rgba(x0 + 16 - 7, y0 + 16 - 7)[3] == 255)
        // Nothing outside the box but the text (there is none there).
        for y in 0..<height {
            for x in 0..<width where !(x0...x1).contains(x) || !(y0...y1).contains(y) {
                #expect(rgba(x, y)[3] == 0, "outside the box at \(x),\(y)")
                if rgba(x, y)[3] != 0 { return }
            }
        }
    }

    /// Six four-letter words in DejaVu Sans Mono at 40 px (advance 24.08 px a character) in
    /// 250 px: two words fit a line (216.7 px), three do not (337.2 px), so the text takes
    /// three lines: three bands of ink, each within the width. Aligned right, each line's
    /// ink ends at the right edge; centred, each line's ink is centred.
    @Test func wrappedTextTakesItsLines() throws {
        let text = "abcd efgh ijkl mnop qrst uvwx"
        let (width, height) = (250, 200)
        for alignment in TextStyle.Alignment.allCases {
            let style = TextStyle(fontFamily: "DejaVu Sans Mono", fontSize: 40, alignment: alignment)
            let image = try StyledTextImage(text, style: style, width: width, height: height)
            #expect(image.fontFile.hasSuffix("DejaVuSansMono.ttf"), "\(image.fontFile)")
            #expect(image.lineCount == 3)
            #expect(image.words.map(\.line) == [0, 0, 1, 1, 2, 2])
            let bytes = pixels(try image.picture())
            let bands = inkBands(bytes, width: width, height: height)
            #expect(bands.count == 3, "\(alignment): ink in \(bands)")
            for band in bands {
                let columns = (0..<width).filter { x in band.contains { bytes[($0 * width + x) * 4 + 3] > 128 } }
                guard let left = columns.first, let right = columns.last else { continue }
                switch alignment {
                case .left: #expect(left <= 6, "left-aligned line starts at \(left)")
                case .right: #expect(right >= width - 6, "right-aligned line ends at \(right)")
                case .center: #expect(abs(Double(left + right) / 2 - Double(width) / 2) <= 4, "centred line spans \(left)–\(right)")
                }
            }
        }
        // Without wrapping the same text is one line, running off the picture.
        let single = try StyledTextImage(text, style: TextStyle(fontFamily: "DejaVu Sans Mono", fontSize: 40, wraps: false),
                                         width: width, height: height)
        #expect(single.lineCount == 1)
        #expect(inkBands(pixels(try single.picture()), width: width, height: height).count == 1)
    }

    /// Fontconfig resolves the family and the weight: DejaVu Serif, DejaVu Sans at 700 (its
    /// Bold face, with more ink than the regular face's), and Chinese through a face that has it.
    @Test func familyAndWeightResolveThroughFontconfig() throws {
        let serif = try StyledTextImage("Serif", style: TextStyle(fontFamily: "DejaVu Serif", fontSize: 30), width: 200, height: 60)
        #expect(serif.fontFile.hasSuffix("DejaVuSerif.ttf") && serif.fontFamily == "DejaVu Serif", "\(serif.fontFile)")
        let regular = try StyledTextImage("Weight", style: TextStyle(fontSize: 30), width: 200, height: 60)
        let bold = try StyledTextImage("Weight", style: TextStyle(weight: 700, fontSize: 30), width: 200, height: 60)
        #expect(regular.fontFile.hasSuffix("DejaVuSans.ttf") && bold.fontFile.hasSuffix("DejaVuSans-Bold.ttf"),
                "\(regular.fontFile) \(bold.fontFile)")
        func ink(_ image: StyledTextImage) throws -> Int {
            pixels(try image.picture()).enumerated().filter { $0.offset % 4 == 3 }.reduce(0) { $0 + Int($1.element) }
        }
        let boldInk = try ink(bold), regularInk = try ink(regular)
        #expect(boldInk > regularInk * 11 / 10, "bold \(boldInk), regular \(regularInk)")
        let chinese = try StyledTextImage("你好", style: TextStyle(fontSize: 30), width: 200, height: 60)
        #expect(chinese.fontFile.contains("wqy") || chinese.fontFile.lowercased().contains("cjk"), "\(chinese.fontFile)")
        let chineseInk = try ink(chinese)
        #expect(chineseInk > 0)
    }

    /// Bad styled text keys are refused by their spec path, in one line.
    @Test(arguments: [
        (#""align": "middle""#, "overlays[0].align: is left, center or right"),
        (#""weight": 950"#, "overlays[0].weight: wants a whole number from 100 to 900"),
        (#""stroke": {"width": -1}"#, "overlays[0].stroke.width: wants a number from 0 to 200"),
        (#""box": {"color": "blue"}"#, "overlays[0].box.color: wants #RRGGBB or #RRGGBBAA"),
        (#""reveal": {"by": "letter", "begin": 0, "interval": 0.2}"#, "overlays[0].reveal.by: is word or line"),
        (#""reveal": {"by": "word", "begin": 0, "interval": 0.2, "easing": "bounce"}"#, "overlays[0].reveal.easing"),
        (#""shadow": {"x": 2, "depth": 3}"#, "unknown key 'depth' in overlays[0].shadow"),
    ])
    func badStyledTextIsRefusedByItsPath(key: String, expected: String) throws {
        let directory = try Paths.temporaryDirectory("reel-styled-refusal")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=black:size=64x64:rate=25:duration=1", "-c:v", "libx264",
                                  "-preset", "ultrafast", directory.appendingPathComponent("black.mp4").path])
        let json = #"{"clips": [{"file": "black.mp4"}], "overlays": [{"type": "text", "text": "Hi", "frame": {"x": 0, "y": 0, "width": 64, "height": 64}, \#(key)}]}"#
        do {
            _ = try CompositionSpec(data: Data(json.utf8), name: "t.json").build(relativeTo: directory)
            Issue.record("accepted \(key)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// "ONE TWO" revealed a word a second from 1 s, composed at 25 fps by `reel compose` and
    /// decoded by ffmpeg: each word's box is black in the frame before its reveal (frames 24
    /// and 49) and has white text from its reveal's frame on (25 and 50); the second word
    /// stays hidden while the first shows.
    @Test func aWordIsHiddenBeforeItsRevealAndShownAfter() throws {
        let directory = try Paths.temporaryDirectory("reel-reveal")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=black:size=320x180:rate=25:duration=3",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                  directory.appendingPathComponent("black.mp4").path])
        let spec = directory.appendingPathComponent("reveal.json")
        try #"""
        {"renderSize": {"width": 320, "height": 180}, "frameRate": 25, "clips": [{"file": "black.mp4"}],
         "overlays": [{"type": "text", "text": "ONE TWO", "fontSize": 48, "weight": 700, "color": "#ffffff",
           "frame": {"x": 20, "y": 60, "width": 280, "height": 70},
           "reveal": {"by": "word", "begin": 1, "interval": 1}}]}
        """#.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("reveal.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        // Where the words fall, from the same layout.
        let layout = try StyledTextImage("ONE TWO", style: TextStyle(weight: 700, fontSize: 48), width: 280, height: 70)
        let words = layout.words.map { Rect(x: $0.bounds.minX + 20, y: $0.bounds.minY + 60, width: $0.bounds.width, height: $0.bounds.height) }
        try #require(words.count == 2)
        let raw = directory.appendingPathComponent("reveal.gray")
        try ProcessRunner.ffmpeg(["-i", out.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let frames = [UInt8](try Data(contentsOf: raw))
        let frameSize = 320 * 180
        #expect(frames.count == 75 * frameSize)
        func brightPixels(frame: Int, in rect: Rect) -> Int {
            var count = 0
            for y in Int(rect.minY)..<Int(rect.maxY) {
                for x in Int(rect.minX)..<Int(rect.maxX) where frames[frame * frameSize + y * 320 + x] > 128 { count += 1 }
            }
            return count
        }
        for (frame, shown) in [(0, [false, false]), (24, [false, false]), (25, [true, false]), (49, [true, false]),
                               (50, [true, true]), (74, [true, true])] {
            for (index, rect) in words.enumerated() {
                let bright = brightPixels(frame: frame, in: rect)
                if shown[index] {
                    #expect(bright > 150, "frame \(frame): word \(index) has \(bright) bright pixels, should show")
                } else {
                    #expect(bright == 0, "frame \(frame): word \(index) has \(bright) bright pixels, should be hidden")
                }
            }
        }
    }
}

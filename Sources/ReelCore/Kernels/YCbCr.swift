/// BT.709 conversion between full-range RGB and video-range YCbCr, the one copy of its
/// weights that the filters' kernels and the cube tables share; ``videoRange(red:green:blue:matrix:)``
/// converts one colour by either matrix (``ColorMatrix``).
///
/// Y = 16 + 219 (0.2126 R + 0.7152 G + 0.0722 B), Cb = 128 + 224 (B − Y′) / 1.8556,
/// Cr = 128 + 224 (R − Y′) / 1.5748, with R, G, B from 0 to 1 (Y′ the luma before scaling).
/// The 8-bit kernels use those weights in 16.16 fixed point.
package enum YCbCr {
    /// Luma − 16, Cb − 128 and Cr − 128 from 8-bit R, G, B: rows Y, Cb, Cr; columns R, G, B;
    /// each weight × 65,536 (219/255 and 224/255 folded in).
    package static let forward: [[Int32]] = [
        [lumaFromR, lumaFromG, lumaFromB],
        [cbFromR, cbFromG, chromaFromItself],
        [chromaFromItself, crFromG, crFromB],
    ]

    /// 8-bit R, G, B from luma − 16, Cb − 128 and Cr − 128: rows R, G, B; columns Y, Cb, Cr;
    /// each weight × 65,536 (255/219 and 255/224 folded in).
    package static let inverse: [[Int32]] = [
        [lumaWeight, 0, redFromCr],
        [lumaWeight, greenFromCb, greenFromCr],
        [lumaWeight, blueFromCb, 0],
    ]

    /// 0.2126 × 219/255 × 65,536.
    @usableFromInline package static var lumaFromR: Int32 { 11_966 }
    /// 0.7152 × 219/255 × 65,536.
    @usableFromInline package static var lumaFromG: Int32 { 40_254 }
    /// 0.0722 × 219/255 × 65,536.
    @usableFromInline package static var lumaFromB: Int32 { 4_064 }
    /// −0.2126 / 1.8556 × 224/255 × 65,536.
    @usableFromInline package static var cbFromR: Int32 { -6_596 }
    /// −0.7152 / 1.8556 × 224/255 × 65,536.
    @usableFromInline package static var cbFromG: Int32 { -22_189 }
    /// 0.5 × 224/255 × 65,536: Cb's weight of blue and Cr's of red.
    @usableFromInline package static var chromaFromItself: Int32 { 28_784 }
    /// −0.7152 / 1.5748 × 224/255 × 65,536.
    @usableFromInline package static var crFromG: Int32 { -26_145 }
    /// −0.0722 / 1.5748 × 224/255 × 65,536.
    @usableFromInline package static var crFromB: Int32 { -2_639 }

    /// 255/219 × 65,536: an 8-bit level per luma step.
    @usableFromInline package static var lumaWeight: Int32 { 76_309 }
    /// 1.5748 × 255/224 × 65,536.
    @usableFromInline package static var redFromCr: Int32 { 117_489 }
    /// −0.1873 × 255/224 × 65,536.
    @usableFromInline package static var greenFromCb: Int32 { -13_975 }
    /// −0.4681 × 255/224 × 65,536.
    @usableFromInline package static var greenFromCr: Int32 { -34_925 }
    /// 1.8556 × 255/224 × 65,536.
    @usableFromInline package static var blueFromCb: Int32 { 138_438 }

    /// ``forward``'s weights for `matrix` (the same numbers for BT.709).
    /// - Parameter matrix: The YCbCr matrix.
    /// - Returns: Rows Y, Cb, Cr; columns R, G, B; each weight × 65,536, 219/255 and 224/255 folded in.
    package static func forward(_ matrix: ColorMatrix) -> [[Int32]] {
        let luma = 219.0 / 255 * 65_536, chroma = 224.0 / 255 * 65_536
        let (kr, kg, kb) = (matrix.kr, matrix.kg, matrix.kb)
        func fixed(_ value: Double) -> Int32 { Int32(value.rounded()) }
        return [
            [fixed(kr * luma), fixed(kg * luma), fixed(kb * luma)],
            [fixed(-kr / matrix.cbDivisor * chroma), fixed(-kg / matrix.cbDivisor * chroma), fixed(0.5 * chroma)],
            [fixed(0.5 * chroma), fixed(-kg / matrix.crDivisor * chroma), fixed(-kb / matrix.crDivisor * chroma)],
        ]
    }

    /// ``inverse``'s weights for `matrix` (the same numbers for BT.709).
    /// - Parameter matrix: The YCbCr matrix.
    /// - Returns: Rows R, G, B; columns Y, Cb, Cr; each weight × 65,536, 255/219 and 255/224 folded in.
    package static func inverse(_ matrix: ColorMatrix) -> [[Int32]] {
        let luma = 255.0 / 219 * 65_536, chroma = 255.0 / 224 * 65_536
        let (kr, kg, kb) = (matrix.kr, matrix.kg, matrix.kb)
        func fixed(_ value: Double) -> Int32 { Int32(value.rounded()) }
        return [
            [fixed(luma), 0, fixed(matrix.crDivisor * chroma)],
            [fixed(luma), fixed(-kb / kg * matrix.cbDivisor * chroma), fixed(-kr / kg * matrix.crDivisor * chroma)],
            [fixed(luma), fixed(matrix.cbDivisor * chroma), 0],
        ]
    }

    /// The linear map from video-range YCbCr in `source` to the same colour's in `target`:
    /// rows Y, Cb, Cr; columns Y − 16, Cb − 128 and Cr − 128, the result likewise offset. It
    /// maps differences too (a change of colour in one matrix to the same change in the other),
    /// and the identity when the matrices are the same. Chroma's rows have no luma term, so
    /// 4:2:0 chroma converts on its own; luma needs the chroma beside it.
    /// - Parameters:
    ///   - source: The matrix the samples were made with.
    ///   - target: The matrix they are wanted in.
    /// - Returns: 3 × 3 weights.
    package static func conversion(from source: ColorMatrix, to target: ColorMatrix) -> [[Double]] {
        // Normalised Y′, Pb, Pr of `source` to R′, G′, B′ (columns Y′, Pb, Pr).
        let s = source, t = target
        let toRGB: [[Double]] = [
            [1, 0, s.crDivisor],
            [1, -s.kb / s.kg * s.cbDivisor, -s.kr / s.kg * s.crDivisor],
            [1, s.cbDivisor, 0],
        ]
        let fromRGB: [[Double]] = [
            [t.kr, t.kg, t.kb],
            [-t.kr / t.cbDivisor, -t.kg / t.cbDivisor, 0.5],
            [0.5, -t.kg / t.crDivisor, -t.kb / t.crDivisor],
        ]
        // 8-bit steps per unit: luma 219, chroma 224.
        let scale = [219.0, 224, 224]
        return (0..<3).map { row in
            (0..<3).map { column in
                let unit = (0..<3).reduce(0.0) { $0 + fromRGB[row][$1] * toRGB[$1][column] }
                return unit * scale[row] / scale[column]
            }
        }
    }

    /// Video-range Y, Cb, Cr (each clamped to 0...255) of 8-bit R, G, B, rounded.
    /// - Parameters:
    ///   - r: red, 0...255.
    ///   - g: green, 0...255.
    ///   - b: blue, 0...255.
    /// - Returns: luma 16...235 and chroma 16...240 for in-range input.
    @inlinable @inline(__always)
    package static func fromRGB(_ r: Int32, _ g: Int32, _ b: Int32) -> (Int32, Int32, Int32) {
        let y = (lumaFromR * r + lumaFromG * g + lumaFromB * b + (16 << 16) + 32_768) >> 16
        let cb = (cbFromR * r + cbFromG * g + chromaFromItself * b + (128 << 16) + 32_768) >> 16
        let cr = (chromaFromItself * r + crFromG * g + crFromB * b + (128 << 16) + 32_768) >> 16
        return (min(max(y, 0), 255), min(max(cb, 0), 255), min(max(cr, 0), 255))
    }

    /// 8-bit R, G, B (each clamped to 0...255) of video-range Y, Cb, Cr, rounded.
    /// - Parameters:
    ///   - y: luma, 0...255.
    ///   - cb: blue-difference chroma, 0...255.
    ///   - cr: red-difference chroma, 0...255.
    /// - Returns: red, green and blue bytes.
    @inlinable @inline(__always)
    package static func toRGB(_ y: Int32, _ cb: Int32, _ cr: Int32) -> (UInt8, UInt8, UInt8) {
        let l = lumaWeight * (y - 16)
        let u = cb - 128, v = cr - 128
        let r = (l + redFromCr * v + 32_768) >> 16
        let g = (l + greenFromCb * u + greenFromCr * v + 32_768) >> 16
        let b = (l + blueFromCb * u + 32_768) >> 16
        return (UInt8(min(max(r, 0), 255)), UInt8(min(max(g, 0), 255)), UInt8(min(max(b, 0), 255)))
    }

    /// Video-range Y, Cb, Cr bytes of a colour given from 0 to 1, from the exact weights of
    /// `matrix` (for fills, backgrounds, overlays and styled layers, where the picture's own
    /// matrix decides: BT.601 below 720 lines, ``ColorMatrix``).
    /// - Parameters:
    ///   - red: 0...1 (clamped).
    ///   - green: 0...1 (clamped).
    ///   - blue: 0...1 (clamped).
    ///   - matrix: The matrix of the picture the colour is drawn into.
    /// - Returns: Y, Cb, Cr, rounded and clamped to 0...255.
    @inlinable @inline(__always)
    package static func videoRange(red: Double, green: Double, blue: Double, matrix: ColorMatrix) -> (UInt8, UInt8, UInt8) {
        let r = min(max(red, 0), 1), g = min(max(green, 0), 1), b = min(max(blue, 0), 1)
        let luma = matrix.kr * r + matrix.kg * g + matrix.kb * b
        let y = 16 + 219 * luma, cb = 128 + 224 * (b - luma) / matrix.cbDivisor, cr = 128 + 224 * (r - luma) / matrix.crDivisor
        return (byte(y), byte(cb), byte(cr))
    }

    @usableFromInline @inline(__always)
    static func byte(_ v: Double) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
}

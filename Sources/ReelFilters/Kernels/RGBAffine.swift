/// A look with a linear chroma map on 8-bit RGB(A), eight pixels at a time in Float lanes,
/// alpha kept: RGB to the look's new luma, Cb and Cr (one 3x3 matrix, since both the
/// conversion and the look are linear), each clamped to 0...255 as the tables do, then back
/// to RGB (a second matrix) clamped and rounded.
///
/// When no colour can leave 0...255 on the way, the clamps go and the two matrices are
/// one. When the luma curve is not a line, new luma is `luma[Y]`, `Y` being the pixel's
/// video-range luma rounded as ``RGBConversion`` does. Channels are bytes 0, 1 and 2 of
/// each pixel, so BGRA is RGBA with the matrices permuted.
struct RGBAffine: Sendable {
    /// New luma, Cb, Cr levels from bytes 0, 1, 2: `toLook[3 * component + byte] + lookBias[component]`.
    var toLook: [Float]
    var lookBias: [Float]
    /// Bytes 0, 1, 2 from new luma, Cb, Cr levels: `toRGB[3 * byte + component] + rgbBias[byte]`.
    var toRGB: [Float]
    var rgbBias: [Float]
    /// The curve, and the weights of bytes 0, 1, 2 in luma (whole numbers / 65,536).
    var luma: [UInt8]?
    var lumaWeights: [Float] = [0, 0, 0]
    /// With a curve and a chroma map that ignores the pixel (black-and-white looks), each
    /// luma level has one result: `colours[Y]`, RGB bytes without alpha.
    private(set) var colours: [UInt32]?

    init(toLook: [Float], lookBias: [Float], toRGB: [Float], rgbBias: [Float], luma: [UInt8]? = nil,
         lumaWeights: [Float] = [0, 0, 0]) {
        self.toLook = toLook
        self.lookBias = lookBias
        self.toRGB = toRGB
        self.rgbBias = rgbBias
        self.luma = luma
        self.lumaWeights = lumaWeights
        if let luma, toLook[3...].allSatisfy({ $0 == 0 }) {
            let cb = min(max(lookBias[1], 0), 255), cr = min(max(lookBias[2], 0), 255)
            colours = (0..<256).map { output(Float(luma[$0]), cb, cr) }
        }
    }

    /// Whether some colour's new luma, Cb or Cr falls outside 0...255 (then they are clamped
    /// one by one). The map is affine, so the cube's eight corners decide.
    var clamps: Bool {
        for corner in 0..<8 {
            let c = [corner & 1, corner >> 1 & 1, corner >> 2 & 1].map { Float($0 * 255) }
            for component in (luma == nil ? 0 : 1)..<3 {
                let v = toLook[3 * component] * c[0] + toLook[3 * component + 1] * c[1] + toLook[3 * component + 2] * c[2]
                    + lookBias[component]
                if v < 0 || v > 255 { return true }
            }
        }
        return false
    }

    /// `count` pixels of a row; `scratch` holds `count` Int32 (the row's luma).
    func mapRow(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int, clamps: Bool,
                scratch: UnsafeMutableRawPointer) {
        func splat(_ v: Float) -> SIMD8<Float> { SIMD8<Float>(repeating: v) }
        let vectors = count / 8
        if let luma {
            // Luma of every pixel first, through the curve; then the colour with it.
            let w0 = splat(lumaWeights[0]), w1 = splat(lumaWeights[1]), w2 = splat(lumaWeights[2])
            for k in 0..<vectors {
                let (c0, c1, c2) = Self.channels(input.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<UInt32>.self))
                let y = Self.rounded((w0 * c0 + w1 * c1 + w2 * c2) * (1 / 65_536) + 16) & SIMD8<UInt32>(repeating: 0xFF)
                scratch.storeBytes(of: y, toByteOffset: 32 * k, as: SIMD8<UInt32>.self)
            }
            if colours == nil { luma.withUnsafeBufferPointer { table in
                for x in 0..<(8 * vectors) {
                    let index = Int(scratch.load(fromByteOffset: 4 * x, as: UInt32.self))
                    scratch.storeBytes(of: Int32(table[index]), toByteOffset: 4 * x, as: Int32.self)
                }
            } }
        }
        let curved = luma != nil
        let alpha = SIMD8<UInt32>(repeating: 0xFF00_0000)
        if let colours {
            colours.withUnsafeBufferPointer { table in
                for x in 0..<(8 * vectors) {
                    let y = Int(scratch.load(fromByteOffset: 4 * x, as: UInt32.self))
                    let p = input.load(fromByteOffset: 4 * x, as: UInt32.self)
                    output.storeBytes(of: table[y] | p & 0xFF00_0000, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        } else if clamps {
            let t = toLook.map(splat), tb = lookBias.map(splat), r = toRGB.map(splat), rb = rgbBias.map(splat)
            let (t0, t1, t2, t3, t4, t5, t6, t7, t8) = (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8])
            let (r0, r1, r2, r3, r4, r5, r6, r7, r8) = (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8])
            let (tb0, tb1, tb2, rb0, rb1, rb2) = (tb[0], tb[1], tb[2], rb[0], rb[1], rb[2])
            for k in 0..<vectors {
                let pixels = input.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<UInt32>.self)
                let (c0, c1, c2) = Self.channels(pixels)
                let y = curved ? SIMD8<Float>(scratch.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<Int32>.self))
                    : Self.clamped(t0 * c0 + t1 * c1 + t2 * c2 + tb0)
                let u = Self.clamped(t3 * c0 + t4 * c1 + t5 * c2 + tb1)
                let v = Self.clamped(t6 * c0 + t7 * c1 + t8 * c2 + tb2)
                let o0 = r0 * y + r1 * u + r2 * v + rb0
                let o1 = r3 * y + r4 * u + r5 * v + rb1
                let o2 = r6 * y + r7 * u + r8 * v + rb2
                let packed = Self.byte(o0) | Self.byte(o1) &<< 8 | Self.byte(o2) &<< 16 | pixels & alpha
                output.storeBytes(of: packed, toByteOffset: 32 * k, as: SIMD8<UInt32>.self)
            }
        } else {
            // One matrix: out = toRGB · (toLook · c + lookBias) + rgbBias, luma kept apart when curved.
            var m = [Float](repeating: 0, count: 9), bias = rgbBias
            for out in 0..<3 {
                for component in (curved ? 1 : 0)..<3 {
                    for byte in 0..<3 { m[3 * out + byte] += toRGB[3 * out + component] * toLook[3 * component + byte] }
                    bias[out] += toRGB[3 * out + component] * lookBias[component]
                }
            }
            let s = m.map(splat), b = bias.map(splat)
            let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8])
            let (b0, b1, b2) = (b[0], b[1], b[2])
            let g0 = splat(toRGB[0]), g1 = splat(toRGB[3]), g2 = splat(toRGB[6])
            for k in 0..<vectors {
                let pixels = input.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<UInt32>.self)
                let (c0, c1, c2) = Self.channels(pixels)
                var o0 = m0 * c0 + m1 * c1 + m2 * c2 + b0
                var o1 = m3 * c0 + m4 * c1 + m5 * c2 + b1
                var o2 = m6 * c0 + m7 * c1 + m8 * c2 + b2
                if curved {
                    let y = SIMD8<Float>(scratch.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<Int32>.self))
                    o0 += g0 * y
                    o1 += g1 * y
                    o2 += g2 * y
                }
                let packed = Self.byte(o0) | Self.byte(o1) &<< 8 | Self.byte(o2) &<< 16 | pixels & alpha
                output.storeBytes(of: packed, toByteOffset: 32 * k, as: SIMD8<UInt32>.self)
            }
        }
        for x in (8 * vectors)..<count {
            output.storeBytes(of: pixel(input.load(fromByteOffset: 4 * x, as: UInt32.self)), toByteOffset: 4 * x,
                              as: UInt32.self)
        }
    }

    /// One pixel, with the clamps (the row's last few, past the vectors).
    func pixel(_ p: UInt32) -> UInt32 {
        let c = [Float(p & 0xFF), Float(p >> 8 & 0xFF), Float(p >> 16 & 0xFF)]
        func look(_ component: Int) -> Float {
            let v = toLook[3 * component] * c[0] + toLook[3 * component + 1] * c[1] + toLook[3 * component + 2] * c[2]
                + lookBias[component]
            return min(max(v, 0), 255)
        }
        var y = look(0)
        if let luma {
            let sum = lumaWeights[0] * c[0] + lumaWeights[1] * c[1] + lumaWeights[2] * c[2]
            y = Float(luma[Int(Self.roundedScalar(sum * (1 / 65_536) + 16) & 0xFF)])
        }
        return output(y, look(1), look(2)) | p & 0xFF00_0000
    }

    /// RGB bytes from new luma, Cb and Cr levels.
    private func output(_ y: Float, _ cb: Float, _ cr: Float) -> UInt32 {
        var packed: UInt32 = 0
        for byte in 0..<3 {
            let value = toRGB[3 * byte] * y + toRGB[3 * byte + 1] * cb + toRGB[3 * byte + 2] * cr + rgbBias[byte]
            packed |= Self.roundedScalar(min(max(value, 0), 255)) << (8 * UInt32(byte))
        }
        return packed
    }

    @inline(__always)
    private static func channels(_ pixels: SIMD8<UInt32>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let byte = SIMD8<UInt32>(repeating: 0xFF)
        func float(_ v: SIMD8<UInt32>) -> SIMD8<Float> { SIMD8<Float>(unsafeBitCast(v, to: SIMD8<Int32>.self)) }
        return (float(pixels & byte), float(pixels &>> 8 & byte), float(pixels &>> 16 & byte))
    }

    /// Round to nearest (ties to even) for 0 ≤ v < 2²²: adding 2²³ leaves the whole part in
    /// the mantissa. Stands in for a float-to-integer conversion the compiler does not inline.
    @inline(__always)
    private static func rounded(_ v: SIMD8<Float>) -> SIMD8<UInt32> {
        unsafeBitCast(v + 8_388_608, to: SIMD8<UInt32>.self) &- 0x4B00_0000
    }

    /// 0...255 on the bit patterns, which order as integers for floats of one sign, by sign
    /// masks: the compiler turns these into integer max and min instructions, where a
    /// comparison and select can compile to slow mask shuffling.
    @inline(__always)
    private static func clamped(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(v, to: SIMD8<Int32>.self)
        let floor = bits & ~(bits &>> 31)
        let top = SIMD8<Int32>(repeating: Int32(bitPattern: Float(255).bitPattern))
        let over = floor &- top
        return unsafeBitCast(top &+ (over & (over &>> 31)), to: SIMD8<Float>.self)
    }

    /// The clamped, rounded channel value.
    @inline(__always)
    private static func byte(_ v: SIMD8<Float>) -> SIMD8<UInt32> { rounded(clamped(v)) }

    @inline(__always)
    private static func roundedScalar(_ v: Float) -> UInt32 {
        (v + 8_388_608).bitPattern &- 0x4B00_0000
    }
}

/// A look with a linear chroma map on 8-bit RGB(A), eight pixels at a time in Float lanes,
/// alpha kept: RGB to the look's new luma, Cb and Cr (one 3x3 matrix, since both the
/// conversion and the look are linear), each clamped to 0...255 as the tables do, then back
/// to RGB (a second matrix) clamped and rounded.
///
/// When no colour can leave 0...255 on the way, the clamps go and the two matrices are
/// one. When the luma curve is not a line, new luma is `luma[Y]`, `Y` being the pixel's
/// video-range luma rounded as `YCbCr.fromRGB` (ReelCore) does, or, when the curve bends gently
/// enough, the ``Bends`` fitted to it, computed in the lanes beside the colour. Channels are bytes 0, 1 and 2 of
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
    /// The curve as a line with up to four bends, when one is within a level of the table
    /// everywhere and the colour depends on the pixel (a look with `colours` needs neither).
    private(set) var bends: Bends?

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
        } else if let luma {
            bends = Bends(fitting: luma)
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
        let bent = bends != nil, lanes = (bends ?? .straight).lanes
        let luma0 = splat(lumaWeights[0] / 65_536), luma1 = splat(lumaWeights[1] / 65_536)
        let luma2 = splat(lumaWeights[2] / 65_536), sixteen = splat(16)
        /// Video-range luma of eight pixels, unrounded.
        @inline(__always) func level(_ c0: SIMD8<Float>, _ c1: SIMD8<Float>, _ c2: SIMD8<Float>) -> SIMD8<Float> {
            sixteen.adding(luma0, times: c0).adding(luma1, times: c1).adding(luma2, times: c2)
        }
        if let luma, !bent {
            // Luma of every pixel first, through the curve; then the colour with it.
            for k in 0..<vectors {
                let (c0, c1, c2) = Self.channels(input.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<UInt32>.self))
                let y = Self.rounded(level(c0, c1, c2))
                    & SIMD8<UInt32>(repeating: 0xFF)
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
                let y = !curved ? Self.clamped(tb0.adding(t0, times: c0).adding(t1, times: c1).adding(t2, times: c2))
                    : bent ? lanes.value(Self.whole(level(c0, c1, c2)))
                    : SIMD8<Float>(scratch.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<Int32>.self))
                let u = Self.clamped(tb1.adding(t3, times: c0).adding(t4, times: c1).adding(t5, times: c2))
                let v = Self.clamped(tb2.adding(t6, times: c0).adding(t7, times: c1).adding(t8, times: c2))
                let o0 = rb0.adding(r0, times: y).adding(r1, times: u).adding(r2, times: v)
                let o1 = rb1.adding(r3, times: y).adding(r4, times: u).adding(r5, times: v)
                let o2 = rb2.adding(r6, times: y).adding(r7, times: u).adding(r8, times: v)
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
                var o0 = b0.adding(m0, times: c0).adding(m1, times: c1).adding(m2, times: c2)
                var o1 = b1.adding(m3, times: c0).adding(m4, times: c1).adding(m5, times: c2)
                var o2 = b2.adding(m6, times: c0).adding(m7, times: c1).adding(m8, times: c2)
                if curved {
                    let y = bent ? lanes.value(Self.whole(level(c0, c1, c2)))
                        : SIMD8<Float>(scratch.loadUnaligned(fromByteOffset: 32 * k, as: SIMD8<Int32>.self))
                    o0 = o0.adding(g0, times: y)
                    o1 = o1.adding(g1, times: y)
                    o2 = o2.adding(g2, times: y)
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
            if let bends {
                y = bends.lanes.value(SIMD8(repeating: Float(Self.roundedScalar(sum * (1 / 65_536) + 16))))[0]
            } else {
                y = Float(luma[Int(Self.roundedScalar(sum * (1 / 65_536) + 16) & 0xFF)])
            }
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

    /// Rounded to the nearest whole number (ties to even), still as floats: luma as the
    /// table path rounds it before its lookup. For 0 ≤ v < 2²².
    @inline(__always)
    private static func whole(_ v: SIMD8<Float>) -> SIMD8<Float> { (v + 8_388_608) - 8_388_608 }

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

extension RGBAffine {
    /// A luma curve as `base + slope·y + Σ gainₖ·max(y − kneeₖ, 0)`: a line that bends at up
    /// to four levels, through the table's value at each bend and at its ends, so that every
    /// level 0...255 lands within one of the table.
    struct Bends: Sendable {
        let base: Float
        let slope: Float
        /// Unused bends sit at 255 with no gain.
        let knees: SIMD4<Float>
        let gains: SIMD4<Float>

        /// y' = y, standing in where a kernel has no bends.
        static let straight = Bends(base: 0, slope: 1, knees: SIMD4(repeating: 255), gains: .zero)

        private init(base: Float, slope: Float, knees: SIMD4<Float>, gains: SIMD4<Float>) {
            (self.base, self.slope, self.knees, self.gains) = (base, slope, knees, gains)
        }

        /// Nil when the curve needs more than four bends for that.
        init?(fitting table: [UInt8]) {
            guard table.count == 256 else { return nil }
            let value = table.map(Float.init)
            func fits(_ a: Int, _ b: Int) -> Bool {
                let step = (value[b] - value[a]) / Float(b - a)
                return (a...b).allSatisfy { abs(value[a] + step * Float($0 - a) - value[$0]) <= 1 }
            }
            // Each piece as long as it can go, from the black end.
            var ends = [0]
            while let start = ends.last, start < 255 {
                var end = start + 1
                while end < 255, fits(start, end + 1) { end += 1 }
                ends.append(end)
                if ends.count > 6 { return nil }
            }
            let slopes = zip(ends, ends.dropFirst()).map { (value[$1] - value[$0]) / Float($1 - $0) }
            var knees = SIMD4<Float>(repeating: 255), gains = SIMD4<Float>.zero
            for bend in 0..<(slopes.count - 1) {
                knees[bend] = Float(ends[bend + 1])
                gains[bend] = slopes[bend + 1] - slopes[bend]
            }
            self.init(base: value[0], slope: slopes[0], knees: knees, gains: gains)
        }

        var lanes: Lanes {
            func splat(_ v: Float) -> SIMD8<Float> { SIMD8(repeating: v) }
            return Lanes(base: splat(base), slope: splat(slope),
                         knee0: splat(knees[0]), knee1: splat(knees[1]), knee2: splat(knees[2]), knee3: splat(knees[3]),
                         gain0: splat(gains[0]), gain1: splat(gains[1]), gain2: splat(gains[2]), gain3: splat(gains[3]))
        }

        /// The bends splatted for eight pixels at a time.
        struct Lanes {
            let base, slope, knee0, knee1, knee2, knee3, gain0, gain1, gain2, gain3: SIMD8<Float>

            @inline(__always)
            func value(_ y: SIMD8<Float>) -> SIMD8<Float> {
                base.adding(slope, times: y).adding(gain0, times: Self.positive(y - knee0))
                    .adding(gain1, times: Self.positive(y - knee1)).adding(gain2, times: Self.positive(y - knee2))
                    .adding(gain3, times: Self.positive(y - knee3))
            }

            /// max(v, 0) on the bit patterns: a negative float has its sign bit set.
            @inline(__always)
            private static func positive(_ v: SIMD8<Float>) -> SIMD8<Float> {
                let bits = unsafeBitCast(v, to: SIMD8<Int32>.self)
                return unsafeBitCast(bits & ~(bits &>> 31), to: SIMD8<Float>.self)
            }
        }
    }
}

extension SIMD8 where Scalar == Float {
    /// `self + a·b`: one fused instruction where the build has FMA (REEL_FMA; Swift does not
    /// contract `a * b + c` itself), a multiply and an add where a fused one would be a
    /// library call per lane.
    @inline(__always)
    fileprivate func adding(_ a: Self, times b: Self) -> Self {
        #if REEL_FMA
        addingProduct(a, b)
        #else
        self + a * b
        #endif
    }
}

/// An 8-bit sample map `out = clamp((gainA·(a − 128) + gainB·(b − 128) + offset) >> shift + 128, 0, 255)`
/// in 16-bit fixed point: what a table of a linear look reduces to, computed sixteen
/// samples at a time in SIMD lanes instead of looked up one by one.
///
/// `gainB` is zero for a map of one input (a separable chroma map); a hue turn mixes Cb and
/// Cr and uses both. A luma curve's second input is its own ``knee(_:)``: Reel's curves leave
/// footroom and headroom (below 16, above 235) at slope 1, so a straight curve is three
/// pieces. A map is only made by ``fitting(_:inputs:)``, which checks it against every entry
/// of the table it replaces.
struct ByteAffine: Sendable, Equatable {
    let gainA: Int16
    let gainB: Int16
    let offset: Int16
    let shift: Int16
    /// The fitted plane itself, in levels: `out ≈ slopeA·(a − 128) + slopeB·(b − 128) + level`
    /// before the clamp; what the RGB kernel builds on.
    let slopeA: Double
    let slopeB: Double
    let level: Double

    /// The value for one pair of inputs, exactly as the SIMD lanes compute it.
    @inline(__always)
    func value(_ a: Int, _ b: Int = 128) -> UInt8 {
        let sum = Int(gainA) * (a - 128) + Int(gainB) * (b - 128) + Int(offset)
        return UInt8(min(max(sum >> Int(shift) + 128, 0), 255))
    }

    /// What the second input of a map is.
    enum Inputs {
        /// None: `b` is always 128.
        case one
        /// A second sample (Cr beside Cb).
        case two
        /// `knee(a) + 128`, for a luma curve.
        case knee
    }

    /// How far below 16 or above 235 a luma sample is (0 in between).
    @inline(__always)
    static func knee(_ a: Int) -> Int { min(a - 16, 0) + max(a - 235, 0) }

    /// The inputs a map of this kind is checked at.
    private static func points(_ inputs: Inputs) -> [(Int, Int)] {
        switch inputs {
        case .one: (0..<256).map { ($0, 128) }
        case .two: (0..<65_536).map { ($0 & 0xFF, $0 >> 8) }
        case .knee: (0..<256).map { ($0, knee($0) + 128) }
        }
    }

    /// The fixed-point map within ±1 of `table` at every input, or nil when the table is
    /// not close enough to a clamped straight line (plane) for that.
    ///
    /// `table(a, b)` is the reference result (`b` as ``Inputs`` says).
    static func fitting(_ table: (Int, Int) -> Int, inputs: Inputs) -> ByteAffine? {
        let twoInputs = inputs != .one
        let points = points(inputs)
        // Least squares over the entries the clamp does not touch.
        var n = 0.0, sa = 0.0, sb = 0.0, sy = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0, say = 0.0, sby = 0.0
        for (a, b) in points {
            let y = table(a, b)
            guard y > 0, y < 255 else { continue }
            let u = Double(a - 128), v = Double(b - 128), w = Double(y)
            n += 1
            (sa, sb, sy) = (sa + u, sb + v, sy + w)
            (saa, sbb, sab, say, sby) = (saa + u * u, sbb + v * v, sab + u * v, say + u * w, sby + v * w)
        }
        guard n >= 3 else { return nil }
        // Normal equations of y = p·u + q·v + c, solved by Cramer's rule.
        let m = [[saa, sab, sa], [sab, sbb, sb], [sa, sb, n]], r = [say, sby, sy]
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        func replaced(_ column: Int) -> [[Double]] {
            m.enumerated().map { row in row.element.enumerated().map { $0.offset == column ? r[row.offset] : $0.element } }
        }
        let gain: (Double, Double), intercept: Double
        if twoInputs, sbb > 0, abs(det(m)) > 1e-6 * max(saa * sbb * n, 1) {
            let d = det(m)
            gain = (det(replaced(0)) / d, det(replaced(1)) / d)
            intercept = det(replaced(2)) / d
        } else {
            // One input, or a knee the clamps hide: a line in `a` alone.
            let d = n * saa - sa * sa
            guard abs(d) > 1e-9 else { return nil }
            gain = ((n * say - sa * sy) / d, 0)
            intercept = (sy - gain.0 * sa) / n
        }
        // The finest fixed point whose products and sums stay inside 16 bits.
        for shift in stride(from: 12, through: 0, by: -1) {
            let scale = Double(1 << shift)
            let ga = (gain.0 * scale).rounded(), gb = (gain.1 * scale).rounded()
            // Centred on 128 out as well as in, so the sum spans the output's range and no more.
            let off = ((intercept - 128) * scale).rounded() + (shift > 0 ? Double(1 << (shift - 1)) : 0)
            let extreme = 128 * (abs(ga) + abs(gb)) + abs(off)
            guard extreme <= 32_767 else { continue }
            let map = ByteAffine(gainA: Int16(ga), gainB: Int16(gb), offset: Int16(off), shift: Int16(shift),
                                 slopeA: gain.0, slopeB: gain.1, level: intercept)
            for (a, b) in points where abs(Int(map.value(a, b)) - table(a, b)) > 1 { return nil }
            return map
        }
        return nil
    }
}

extension ByteAffine {
    /// `count` luma samples through a map fitted with ``Inputs/knee``.
    static func mapRow(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int, _ map: ByteAffine) {
        let ga = SIMD16<Int16>(repeating: map.gainA), gb = SIMD16<Int16>(repeating: map.gainB)
        let off = SIMD16<Int16>(repeating: map.offset), shift = SIMD16<Int16>(repeating: map.shift)
        var x = 0
        while x &+ 32 <= count {
            // Even bytes in the low half of each 16-bit lane, odd bytes in the high half.
            let words = input.loadUnaligned(fromByteOffset: x, as: SIMD16<UInt16>.self)
            let even = kneed(low(words), ga, gb, off, shift), odd = kneed(high(words), ga, gb, off, shift)
            output.storeBytes(of: join(even, odd), toByteOffset: x, as: SIMD16<UInt16>.self)
            x &+= 32
        }
        while x < count {
            let a = Int(input.load(fromByteOffset: x, as: UInt8.self))
            output.storeBytes(of: map.value(a, knee(a) + 128), toByteOffset: x, as: UInt8.self)
            x &+= 1
        }
    }

    /// `count` (Cb, Cr) sample pairs of two planes through two maps that each read both.
    static func mapRows(_ cbIn: UnsafeRawPointer, _ crIn: UnsafeRawPointer, _ cbOut: UnsafeMutableRawPointer,
                        _ crOut: UnsafeMutableRawPointer, count: Int, cb: ByteAffine, cr: ByteAffine) {
        let p = SIMD16<Int16>(repeating: cb.gainA), q = SIMD16<Int16>(repeating: cb.gainB)
        let pOffset = SIMD16<Int16>(repeating: cb.offset), pShift = SIMD16<Int16>(repeating: cb.shift)
        let r = SIMD16<Int16>(repeating: cr.gainA), s = SIMD16<Int16>(repeating: cr.gainB)
        let rOffset = SIMD16<Int16>(repeating: cr.offset), rShift = SIMD16<Int16>(repeating: cr.shift)
        var x = 0
        while x &+ 32 <= count {
            let u = cbIn.loadUnaligned(fromByteOffset: x, as: SIMD16<UInt16>.self)
            let v = crIn.loadUnaligned(fromByteOffset: x, as: SIMD16<UInt16>.self)
            let ue = low(u) &- 128, uo = high(u) &- 128, ve = low(v) &- 128, vo = high(v) &- 128
            let cbEven = clamped((ue &* p &+ ve &* q &+ pOffset) &>> pShift &+ 128)
            let cbOdd = clamped((uo &* p &+ vo &* q &+ pOffset) &>> pShift &+ 128)
            let crEven = clamped((ue &* r &+ ve &* s &+ rOffset) &>> rShift &+ 128)
            let crOdd = clamped((uo &* r &+ vo &* s &+ rOffset) &>> rShift &+ 128)
            cbOut.storeBytes(of: join(cbEven, cbOdd), toByteOffset: x, as: SIMD16<UInt16>.self)
            crOut.storeBytes(of: join(crEven, crOdd), toByteOffset: x, as: SIMD16<UInt16>.self)
            x &+= 32
        }
        while x < count {
            let u = Int(cbIn.load(fromByteOffset: x, as: UInt8.self)), v = Int(crIn.load(fromByteOffset: x, as: UInt8.self))
            cbOut.storeBytes(of: cb.value(u, v), toByteOffset: x, as: UInt8.self)
            crOut.storeBytes(of: cr.value(u, v), toByteOffset: x, as: UInt8.self)
            x &+= 1
        }
    }

    @inline(__always)
    private static func kneed(_ x: SIMD16<Int16>, _ ga: SIMD16<Int16>, _ gb: SIMD16<Int16>, _ off: SIMD16<Int16>,
                              _ shift: SIMD16<Int16>) -> SIMD16<Int16> {
        // min(x − 16, 0) + max(x − 235, 0), by sign masks.
        let below = x &- 16, above = x &- 235
        let knee = (below & (below &>> 15)) &+ (above & ~(above &>> 15))
        return clamped(((x &- 128) &* ga &+ knee &* gb &+ off) &>> shift &+ 128)
    }

    @inline(__always)
    private static func low(_ words: SIMD16<UInt16>) -> SIMD16<Int16> {
        unsafeBitCast(words & SIMD16<UInt16>(repeating: 0xFF), to: SIMD16<Int16>.self)
    }

    @inline(__always)
    private static func high(_ words: SIMD16<UInt16>) -> SIMD16<Int16> {
        unsafeBitCast(words &>> 8, to: SIMD16<Int16>.self)
    }

    /// 0...255 by sign masks (plain vector arithmetic; a comparison and select can compile
    /// to slow mask shuffling).
    @inline(__always)
    private static func clamped(_ v: SIMD16<Int16>) -> SIMD16<Int16> {
        let floor = v & ~(v &>> 15)
        let over = 255 &- floor
        return floor &+ (over & (over &>> 15))
    }

    @inline(__always)
    private static func join(_ even: SIMD16<Int16>, _ odd: SIMD16<Int16>) -> SIMD16<UInt16> {
        unsafeBitCast(even, to: SIMD16<UInt16>.self) | unsafeBitCast(odd, to: SIMD16<UInt16>.self) &<< 8
    }
}

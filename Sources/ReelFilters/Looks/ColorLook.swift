import Foundation

/// A colour effect as two tables over video-range YCbCr: a luma curve (256 entries)
/// and a chroma map from each (Cb, Cr) pair to a new pair (65,536 entries).
///
/// Every colour effect in Reel is one of these, so a chain of them folds into a
/// single look (table lookups compose exactly) and costs one pass over the picture:
/// one lookup per luma sample and one per chroma pair. On yuv420p and nv12 — what
/// decoders and cameras produce — the planes are read and written in place of a copy.
public struct ColorLook: Sendable, Equatable {
    /// `luma[y]` is the new Y for an old Y.
    public private(set) var luma: [UInt8]
    /// `chroma[cb | cr << 8]` is the new pair, packed the same way.
    public private(set) var chroma: [UInt16]

    /// The look that changes nothing.
    public static let identity = ColorLook(
        luma: (0...255).map { UInt8($0) },
        chroma: (0...65535).map { UInt16($0) })

    /// The luma table for two samples at once: `lumaPairs[a | b << 8] = luma[a] | luma[b] << 8`.
    public private(set) var lumaPairs: [UInt16] = []
    /// Whether the luma curve changes nothing, so the plane is copied.
    public private(set) var isLumaIdentity = false
    /// Whether the chroma map changes nothing.
    public private(set) var isChromaIdentity = false
    /// The one pair every chroma pair maps to, when there is one (black-and-white looks).
    public private(set) var constantChroma: UInt16?
    /// When Cb' depends on Cb alone and Cr' on Cr alone: tables for two samples at once of each
    /// plane, as for luma. Nil for looks that mix the two (a hue turn).
    public private(set) var separableChroma: (cb: [UInt16], cr: [UInt16])?
    /// The luma curve as a clamped straight line (with slope-1 footroom and headroom), when
    /// it is one to within ±1: computed, not looked up.
    private(set) var lumaLine: ByteAffine?
    /// The chroma map as two clamped planes over (Cb, Cr), when it is one to within ±1. A
    /// separable map's Cb line ignores Cr and its Cr line ignores Cb.
    private(set) var chromaPlanes: (cb: ByteAffine, cr: ByteAffine)?
    /// The RGBA and BGRA kernels, made once with the look rather than for every picture.
    private(set) var rgbaKernel: RGBAffine?
    private(set) var bgraKernel: RGBAffine?

    init(luma: [UInt8], chroma: [UInt16]) {
        self.luma = luma
        self.chroma = chroma
        derive()
    }

    private mutating func derive() {
        var pairs = [UInt16](repeating: 0, count: 65536)
        for b in 0..<256 { for a in 0..<256 { pairs[a | b << 8] = UInt16(luma[a]) | UInt16(luma[b]) << 8 } }
        lumaPairs = pairs
        isLumaIdentity = luma.enumerated().allSatisfy { Int($0.element) == $0.offset }
        isChromaIdentity = chroma.enumerated().allSatisfy { Int($0.element) == $0.offset }
        constantChroma = chroma.allSatisfy { $0 == chroma[0] } ? chroma[0] : nil
        var separable = true
        check: for cr in 0..<256 {
            for cb in 0..<256 {
                let pair = chroma[cb | cr << 8]
                if pair & 0xFF != chroma[cb | 128 << 8] & 0xFF || pair >> 8 != chroma[128 | cr << 8] >> 8 {
                    separable = false
                    break check
                }
            }
        }
        if separable {
            var cbPairs = [UInt16](repeating: 0, count: 65536), crPairs = [UInt16](repeating: 0, count: 65536)
            for b in 0..<256 {
                for a in 0..<256 {
                    cbPairs[a | b << 8] = (chroma[a | 128 << 8] & 0xFF) | (chroma[b | 128 << 8] & 0xFF) << 8
                    crPairs[a | b << 8] = chroma[128 | a << 8] >> 8 | (chroma[128 | b << 8] >> 8) << 8
                }
            }
            separableChroma = (cbPairs, crPairs)
        } else {
            separableChroma = nil
        }
        let lumaTable = luma, chromaTable = chroma
        lumaLine = ByteAffine.fitting({ a, _ in Int(lumaTable[a]) }, inputs: .knee)
        let cbLine: ByteAffine?, crLine: ByteAffine?
        if separable {
            cbLine = ByteAffine.fitting({ a, _ in Int(chromaTable[a | 128 << 8] & 0xFF) }, inputs: .one)
            crLine = ByteAffine.fitting({ a, _ in Int(chromaTable[128 | a << 8] >> 8) }, inputs: .one)
                .map { ByteAffine(gainA: 0, gainB: $0.gainA, offset: $0.offset, shift: $0.shift,
                                  slopeA: 0, slopeB: $0.slopeA, level: $0.level) }
        } else {
            cbLine = ByteAffine.fitting({ a, b in Int(chromaTable[a | b << 8] & 0xFF) }, inputs: .two)
            crLine = ByteAffine.fitting({ a, b in Int(chromaTable[a | b << 8] >> 8) }, inputs: .two)
        }
        chromaPlanes = cbLine.flatMap { cb in crLine.map { (cb, $0) } }
        rgbaKernel = rgbKernel(redFirst: true)
        bgraKernel = rgbKernel(redFirst: false)
    }

    /// Whether two looks map every colour alike (their tables are equal).
    /// - Parameters:
    ///   - lhs: A look.
    ///   - rhs: Another look.
    /// - Returns: True when both give the same output for every input.
    public static func == (lhs: ColorLook, rhs: ColorLook) -> Bool {
        lhs.luma == rhs.luma && lhs.chroma == rhs.chroma
    }

    /// A look from a luma curve on normalised luma (0 black … 1 white) and a chroma map on
    /// centred chroma (−0.5 … 0.5 for Cb and Cr). Both are clamped to video range.
    ///
    /// Footroom and headroom (luma below 16 or above 235) follow the curve's extension
    /// rather than being clipped, so the identity look is exactly the identity.
    /// - Parameters:
    ///   - curve: Output luma for input luma, both normalised.
    ///   - map: Output (Cb, Cr) for input (Cb, Cr), both centred.
    public init(curve: (Double) -> Double, chroma map: (Double, Double) -> (Double, Double)) {
        luma = (0...255).map { y in
            let t = (Double(y) - 16) / 219
            let shaped = (0...1).contains(t) ? curve(t) : t + (curve(min(max(t, 0), 1)) - min(max(t, 0), 1))
            return UInt8(min(max((16 + 219 * shaped).rounded(), 0), 255))
        }
        var table = [UInt16](repeating: 0, count: 65536)
        for cr in 0..<256 {
            for cb in 0..<256 {
                let (u, v) = map((Double(cb) - 128) / 224, (Double(cr) - 128) / 224)
                let newCb = UInt16(min(max((128 + 224 * u).rounded(), 0), 255))
                let newCr = UInt16(min(max((128 + 224 * v).rounded(), 0), 255))
                table[cb | cr << 8] = newCb | newCr << 8
            }
        }
        chroma = table
        derive()
    }

    /// This look followed by `next`.
    /// - Parameter next: The look applied after this one.
    /// - Returns: One look doing both in a single pass over the picture.
    public func then(_ next: ColorLook) -> ColorLook {
        ColorLook(luma: luma.map { next.luma[Int($0)] }, chroma: chroma.map { next.chroma[Int($0)] })
    }
}

extension ColorLook {
    /// Luma unchanged, chroma scaled by `saturation` and moved by (`cb`, `cr`).
    static func tint(saturation: Double = 1, cb: Double = 0, cr: Double = 0, hue degrees: Double = 0,
                     curve: @escaping (Double) -> Double = { $0 }) -> ColorLook {
        let angle = degrees * .pi / 180
        let (c, s) = (cos(angle), sin(angle))
        return ColorLook(curve: curve) { u, v in
            let ru = (u * c - v * s) * saturation, rv = (u * s + v * c) * saturation
            return (ru + cb, rv + cr)
        }
    }

    /// Contrast about mid-grey, `amount` 1 for none.
    static func contrast(_ t: Double, _ amount: Double, pivot: Double = 0.5) -> Double {
        (t - pivot) * amount + pivot
    }
}

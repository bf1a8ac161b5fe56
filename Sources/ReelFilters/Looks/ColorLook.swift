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

    init(luma: [UInt8], chroma: [UInt16]) {
        self.luma = luma
        self.chroma = chroma
    }

    /// A look from a luma curve on normalised luma (0 black … 1 white) and a chroma map on
    /// centred chroma (−0.5 … 0.5 for Cb and Cr). Both are clamped to video range.
    public init(curve: (Double) -> Double, chroma map: (Double, Double) -> (Double, Double)) {
        luma = (0...255).map { y in
            let t = min(max((Double(y) - 16) / 219, 0), 1)
            return UInt8(min(max((16 + 219 * curve(t)).rounded(), 16), 235))
        }
        var table = [UInt16](repeating: 0, count: 65536)
        for cr in 0..<256 {
            for cb in 0..<256 {
                let (u, v) = map((Double(cb) - 128) / 224, (Double(cr) - 128) / 224)
                let newCb = UInt16(min(max((128 + 224 * u).rounded(), 16), 240))
                let newCr = UInt16(min(max((128 + 224 * v).rounded(), 16), 240))
                table[cb | cr << 8] = newCb | newCr << 8
            }
        }
        chroma = table
    }

    /// This look followed by `next`.
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

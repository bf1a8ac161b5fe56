import ReelCore

extension CubeLUT {
    /// The table prepared for 8-bit pixels: entries as 8.8 fixed point, and for each
    /// input level its grid cell and position inside it.
    struct Prepared: Sendable {
        let size: Int
        let table: [Int32]      // size³ × 3, red fastest, 0...255 << 8
        let cell: [Int32]       // per 8-bit level: lower grid index along one axis
        let weight: [Int32]     // per level: position in the cell, 0...256
    }

    func prepared() -> Prepared {
        let n = size
        let table = values.map { Int32((min(max(Double($0), 0), 1) * 255 * 256).rounded()) }
        var cell = [Int32](repeating: 0, count: 256), weight = [Int32](repeating: 0, count: 256)
        for level in 0..<256 {
            // Domain mapping: the cube's [min, max] spans the 8-bit range of the first channel.
            let span = domainMax[0] - domainMin[0]
            let position = min(max((Double(level) / 255 - domainMin[0]) / span, 0), 1) * Double(n - 1)
            let lower = min(Int(position), n - 2)
            cell[level] = Int32(lower)
            weight[level] = Int32(((position - Double(lower)) * 256).rounded())
        }
        return Prepared(size: n, table: table, cell: cell, weight: weight)
    }
}

extension CubeLUT.Prepared {
    /// Maps one RGB triple by trilinear interpolation; exact for an identity table.
    @inline(__always)
    func map(_ r: Int, _ g: Int, _ b: Int, table: UnsafeBufferPointer<Int32>) -> (UInt8, UInt8, UInt8) {
        let n = size
        let (ri, gi, bi) = (Int(cell[r]), Int(cell[g]), Int(cell[b]))
        let (fr, fg, fb) = (weight[r], weight[g], weight[b])
        let base = ((bi * n + gi) * n + ri) * 3
        let dr = 3, dg = 3 * n, db = 3 * n * n
        var result: (Int32, Int32, Int32) = (0, 0, 0)
        for channel in 0..<3 {
            let c000 = table[base + channel], c100 = table[base + dr + channel]
            let c010 = table[base + dg + channel], c110 = table[base + dg + dr + channel]
            let c001 = table[base + db + channel], c101 = table[base + db + dr + channel]
            let c011 = table[base + db + dg + channel], c111 = table[base + db + dg + dr + channel]
            let x00 = c000 + ((c100 - c000) * fr) >> 8, x10 = c010 + ((c110 - c010) * fr) >> 8
            let x01 = c001 + ((c101 - c001) * fr) >> 8, x11 = c011 + ((c111 - c011) * fr) >> 8
            let y0 = x00 + ((x10 - x00) * fg) >> 8, y1 = x01 + ((x11 - x01) * fg) >> 8
            let value = (y0 + ((y1 - y0) * fb) >> 8 + 128) >> 8
            switch channel {
            case 0: result.0 = value
            case 1: result.1 = value
            default: result.2 = value
            }
        }
        return (UInt8(min(max(result.0, 0), 255)), UInt8(min(max(result.1, 0), 255)), UInt8(min(max(result.2, 0), 255)))
    }

    /// Writes `source` through the table into `target`. RGBA and BGRA map per pixel;
    /// yuv420p and nv12 go to RGB per pixel and back (a 3D table mixes channels, so no
    /// YCbCr shortcut exists).
    func apply(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        table.withUnsafeBufferPointer { lut in
            switch source.pixelFormat {
            case .rgba, .bgra:
                let (r, b) = source.pixelFormat == .rgba ? (0, 2) : (2, 0)
                source.withPlane(0) { input, inStride in
                    target.withMutablePlane(0) { output, outStride in
                        for row in 0..<source.height {
                            let i = input + row * inStride, o = output + row * outStride
                            for x in 0..<source.width {
                                let p = i + 4 * x, q = o + 4 * x
                                let (nr, ng, nb) = map(Int(p.load(fromByteOffset: r, as: UInt8.self)),
                                                       Int(p.load(fromByteOffset: 1, as: UInt8.self)),
                                                       Int(p.load(fromByteOffset: b, as: UInt8.self)), table: lut)
                                q.storeBytes(of: nr, toByteOffset: r, as: UInt8.self)
                                q.storeBytes(of: ng, toByteOffset: 1, as: UInt8.self)
                                q.storeBytes(of: nb, toByteOffset: b, as: UInt8.self)
                                q.storeBytes(of: p.load(fromByteOffset: 3, as: UInt8.self), toByteOffset: 3, as: UInt8.self)
                            }
                        }
                    }
                }
            default:
                applyYUV(source, into: target, lut: lut)
            }
        }
    }

    private func applyYUV(_ source: PixelBuffer, into target: PixelBuffer, lut: UnsafeBufferPointer<Int32>) {
        let interleaved = source.pixelFormat == .nv12
        let chromaRows = source.planes[1].height, chromaColumns = source.planes[interleaved ? 1 : 1].width
        for cy in 0..<chromaRows {
            for cx in 0..<chromaColumns {
                let (cb, cr) = chromaAt(source, cx, cy, interleaved: interleaved)
                var sumCb: Int32 = 0, sumCr: Int32 = 0, count: Int32 = 0
                for dy in 0..<2 {
                    for dx in 0..<2 {
                        let x = 2 * cx + dx, y = 2 * cy + dy
                        guard x < source.width, y < source.height else { continue }
                        let luma = source.withPlane(0) { Int32($0.load(fromByteOffset: y * $1 + x, as: UInt8.self)) }
                        let (r, g, b) = RGBConversion.toRGB(luma, cb, cr)
                        let (nr, ng, nb) = map(Int(r), Int(g), Int(b), table: lut)
                        let (ny, ncb, ncr) = RGBConversion.toYCbCr(Int32(nr), Int32(ng), Int32(nb))
                        target.withMutablePlane(0) { $0.storeBytes(of: UInt8(ny), toByteOffset: y * $1 + x, as: UInt8.self) }
                        sumCb += ncb
                        sumCr += ncr
                        count += 1
                    }
                }
                let newCb = UInt8((sumCb + count / 2) / max(count, 1)), newCr = UInt8((sumCr + count / 2) / max(count, 1))
                if interleaved {
                    target.withMutablePlane(1) { base, stride in
                        base.storeBytes(of: newCb, toByteOffset: cy * stride + 2 * cx, as: UInt8.self)
                        base.storeBytes(of: newCr, toByteOffset: cy * stride + 2 * cx + 1, as: UInt8.self)
                    }
                } else {
                    target.withMutablePlane(1) { $0.storeBytes(of: newCb, toByteOffset: cy * $1 + cx, as: UInt8.self) }
                    target.withMutablePlane(2) { $0.storeBytes(of: newCr, toByteOffset: cy * $1 + cx, as: UInt8.self) }
                }
            }
        }
    }

    private func chromaAt(_ buffer: PixelBuffer, _ x: Int, _ y: Int, interleaved: Bool) -> (Int32, Int32) {
        if interleaved {
            return buffer.withPlane(1) { base, stride in
                (Int32(base.load(fromByteOffset: y * stride + 2 * x, as: UInt8.self)),
                 Int32(base.load(fromByteOffset: y * stride + 2 * x + 1, as: UInt8.self)))
            }
        }
        let cb = buffer.withPlane(1) { Int32($0.load(fromByteOffset: y * $1 + x, as: UInt8.self)) }
        let cr = buffer.withPlane(2) { Int32($0.load(fromByteOffset: y * $1 + x, as: UInt8.self)) }
        return (cb, cr)
    }
}

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
    /// Maps one RGB triple by tetrahedral interpolation (four lattice points, as in
    /// FFmpeg's lut3d `interp=tetrahedral`); exact for an identity table.
    @inline(__always)
    func map(_ r: Int, _ g: Int, _ b: Int, table: UnsafeBufferPointer<Int32>, cell: UnsafeBufferPointer<Int32>,
             weight: UnsafeBufferPointer<Int32>) -> (UInt8, UInt8, UInt8) {
        let n = size
        let base = ((Int(cell[b]) * n + Int(cell[g])) * n + Int(cell[r])) * 3
        let fr = weight[r], fg = weight[g], fb = weight[b]
        let dr = 3, dg = 3 * n, db = 3 * n * n
        // The tetrahedron holding the point, and the order its corners are walked in.
        let (first, second, wa, wb, wc): (Int, Int, Int32, Int32, Int32)
        if fr > fg {
            if fg > fb { (first, second, wa, wb, wc) = (dr, dr + dg, fr, fg, fb) }
            else if fr > fb { (first, second, wa, wb, wc) = (dr, dr + db, fr, fb, fg) }
            else { (first, second, wa, wb, wc) = (db, dr + db, fb, fr, fg) }
        } else {
            if fb > fg { (first, second, wa, wb, wc) = (db, dg + db, fb, fg, fr) }
            else if fb > fr { (first, second, wa, wb, wc) = (dg, dg + db, fg, fb, fr) }
            else { (first, second, wa, wb, wc) = (dg, dr + dg, fg, fr, fb) }
        }
        let last = dr + dg + db
        @inline(__always) func channel(_ c: Int) -> UInt8 {
            let c0 = table[base + c], c1 = table[base + first + c], c2 = table[base + second + c], c3 = table[base + last + c]
            let value = (c0 << 8 + wa * (c1 - c0) + wb * (c2 - c1) + wc * (c3 - c2) + 32_768) >> 16
            return UInt8(min(max(value, 0), 255))
        }
        return (channel(0), channel(1), channel(2))
    }

    /// Writes `source` through the table into `target`. RGBA and BGRA map per pixel;
    /// yuv420p and nv12 go to RGB per pixel and back (a 3D table mixes channels, so no
    /// YCbCr shortcut exists), averaging the new chroma of each 2x2 block.
    func apply(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        table.withUnsafeBufferPointer { lut in
            cell.withUnsafeBufferPointer { cells in
                weight.withUnsafeBufferPointer { weights in
                    switch source.pixelFormat {
                    case .rgba, .bgra:
                        applyRGB(source, into: target, lut: lut, cells: cells, weights: weights)
                    default:
                        applyYUV(source, into: target, lut: lut, cells: cells, weights: weights)
                    }
                }
            }
        }
    }

    private func applyRGB(_ source: PixelBuffer, into target: PixelBuffer, lut: UnsafeBufferPointer<Int32>,
                          cells: UnsafeBufferPointer<Int32>, weights: UnsafeBufferPointer<Int32>) {
        let (r, b) = source.pixelFormat == .rgba ? (0, 2) : (2, 0)
        let width = source.width
        source.withPlane(0) { input, inStride in
            target.withMutablePlane(0) { output, outStride in
                ParallelRows.run(rows: source.height) { rows in
                    for row in rows {
                        let i = input + row * inStride, o = output + row * outStride
                        for x in 0..<width {
                            let p = i + 4 * x, q = o + 4 * x
                            let (nr, ng, nb) = map(Int(p.load(fromByteOffset: r, as: UInt8.self)),
                                                   Int(p.load(fromByteOffset: 1, as: UInt8.self)),
                                                   Int(p.load(fromByteOffset: b, as: UInt8.self)),
                                                   table: lut, cell: cells, weight: weights)
                            q.storeBytes(of: nr, toByteOffset: r, as: UInt8.self)
                            q.storeBytes(of: ng, toByteOffset: 1, as: UInt8.self)
                            q.storeBytes(of: nb, toByteOffset: b, as: UInt8.self)
                            q.storeBytes(of: p.load(fromByteOffset: 3, as: UInt8.self), toByteOffset: 3, as: UInt8.self)
                        }
                    }
                }
            }
        }
    }

    private func applyYUV(_ source: PixelBuffer, into target: PixelBuffer, lut: UnsafeBufferPointer<Int32>,
                          cells: UnsafeBufferPointer<Int32>, weights: UnsafeBufferPointer<Int32>) {
        let interleaved = source.pixelFormat == .nv12
        let chromaRows = source.planes[1].height, chromaColumns = source.planes[1].width
        let width = source.width, height = source.height
        source.withPlane(0) { lumaIn, lumaInStride in
        target.withMutablePlane(0) { lumaOut, lumaOutStride in
        source.withPlane(1) { cbIn, cbInStride in
        target.withMutablePlane(1) { cbOut, cbOutStride in
        // nv12 keeps Cr beside Cb in plane 1; yuv420p has a plane 2.
        let crPlane = interleaved ? 1 : 2
        source.withPlane(crPlane) { crIn, crInStride in
        target.withMutablePlane(crPlane) { crOut, crOutStride in
            let step = interleaved ? 2 : 1, crOffset = interleaved ? 1 : 0
            ParallelRows.run(rows: chromaRows) { rows in
                for cy in rows {
                    for cx in 0..<chromaColumns {
                        let cb = Int32(cbIn.load(fromByteOffset: cy * cbInStride + step * cx, as: UInt8.self))
                        let cr = Int32(crIn.load(fromByteOffset: cy * crInStride + step * cx + crOffset, as: UInt8.self))
                        var sumCb: Int32 = 0, sumCr: Int32 = 0, count: Int32 = 0
                        for y in (2 * cy)..<min(2 * cy + 2, height) {
                            for x in (2 * cx)..<min(2 * cx + 2, width) {
                                let luma = Int32(lumaIn.load(fromByteOffset: y * lumaInStride + x, as: UInt8.self))
                                let (r, g, b) = RGBConversion.toRGB(luma, cb, cr)
                                let (nr, ng, nb) = map(Int(r), Int(g), Int(b), table: lut, cell: cells, weight: weights)
                                let (ny, ncb, ncr) = RGBConversion.toYCbCr(Int32(nr), Int32(ng), Int32(nb))
                                lumaOut.storeBytes(of: UInt8(ny), toByteOffset: y * lumaOutStride + x, as: UInt8.self)
                                sumCb += ncb
                                sumCr += ncr
                                count += 1
                            }
                        }
                        cbOut.storeBytes(of: UInt8((sumCb + count / 2) / max(count, 1)),
                                         toByteOffset: cy * cbOutStride + step * cx, as: UInt8.self)
                        crOut.storeBytes(of: UInt8((sumCr + count / 2) / max(count, 1)),
                                         toByteOffset: cy * crOutStride + step * cx + crOffset, as: UInt8.self)
                    }
                }
            }
        }
        }
        }
        }
        }
        }
    }
}

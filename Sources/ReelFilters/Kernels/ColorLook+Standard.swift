package import ReelCore

extension ColorLook {
    /// A look's tables re-expressed for BT.601 YCbCr (pictures below 720 lines, ``ColorMatrix``),
    /// so that the look does to a colour's RGB what it does on a BT.709 picture.
    ///
    /// The looks are defined on BT.709 luma and chroma. BT.601's chroma is a linear map of
    /// BT.709's, but its luma is BT.709's less a weighted sum of the chroma: so a BT.601
    /// picture's chroma pair goes through the BT.709 chroma table at the pair it is in BT.709
    /// (interpolated between the table's entries), and each luma sample through the luma
    /// curve at its BT.709 luma (its block's chroma shifts it), in sixteenths of a level, and
    /// back by the new chroma's shift. Luma thus depends on the chroma beside it, which one
    /// table over luma cannot hold.
    package struct Standard: Sendable {
        /// `chroma[cb | cr << 8]`: the new BT.601 pair, packed the same way.
        let chroma: [UInt16]
        /// Per chroma pair: its BT.709 luma less its BT.601 luma, in sixteenths.
        let shiftIn: [Int16]
        /// Per chroma pair: the same for the pair it becomes, taken off the new luma.
        let shiftOut: [Int16]
        /// The luma curve at every sixteenth of a level (linear between the table's entries), in sixteenths.
        let curve: [Int32]
        /// Whether the look changes nothing (then the planes are copied).
        let isIdentity: Bool
    }

    /// This look's tables for BT.601 YCbCr pictures.
    /// - Returns: Tables for ``apply(_:into:standard:)``.
    package func standard() -> Standard {
        let toHD = YCbCr.conversion(from: .bt601, to: .bt709)
        let toSD = YCbCr.conversion(from: .bt709, to: .bt601)
        var chromaOut = [UInt16](repeating: 0, count: 65536)
        var shiftIn = [Int16](repeating: 0, count: 65536), shiftOut = [Int16](repeating: 0, count: 65536)
        let table = chroma
        // The table's Cb and Cr at a fractional pair, bilinear.
        func lookedUp(_ u: Double, _ v: Double) -> (Double, Double) {
            let cu = min(max(u, 0), 255), cv = min(max(v, 0), 255)
            let u0 = min(Int(cu), 254), v0 = min(Int(cv), 254)
            let fu = cu - Double(u0), fv = cv - Double(v0)
            var cb = 0.0, cr = 0.0
            for (du, dv, weight) in [(0, 0, (1 - fu) * (1 - fv)), (1, 0, fu * (1 - fv)), (0, 1, (1 - fu) * fv), (1, 1, fu * fv)] {
                let pair = table[(u0 + du) | (v0 + dv) << 8]
                cb += weight * Double(pair & 0xFF)
                cr += weight * Double(pair >> 8)
            }
            return (cb, cr)
        }
        for cr in 0..<256 {
            for cb in 0..<256 {
                let u = Double(cb - 128), v = Double(cr - 128)
                let (hdCb, hdCr) = lookedUp(128 + toHD[1][1] * u + toHD[1][2] * v, 128 + toHD[2][1] * u + toHD[2][2] * v)
                let nu = hdCb - 128, nv = hdCr - 128
                let newCb = min(max((128 + toSD[1][1] * nu + toSD[1][2] * nv).rounded(), 0), 255)
                let newCr = min(max((128 + toSD[2][1] * nu + toSD[2][2] * nv).rounded(), 0), 255)
                let key = cb | cr << 8
                chromaOut[key] = UInt16(newCb) | UInt16(newCr) << 8
                shiftIn[key] = Int16((16 * (toHD[0][1] * u + toHD[0][2] * v)).rounded())
                shiftOut[key] = Int16((16 * (toHD[0][1] * (newCb - 128) + toHD[0][2] * (newCr - 128))).rounded())
            }
        }
        let curve = (0..<4096).map { index -> Int32 in
            let low = index >> 4, fraction = Int32(index & 15)
            return Int32(luma[low]) * (16 - fraction) + Int32(luma[min(low + 1, 255)]) * fraction
        }
        return Standard(
            chroma: chromaOut, shiftIn: shiftIn, shiftOut: shiftOut, curve: curve,
            isIdentity: isLumaIdentity && isChromaIdentity)
    }

    /// Writes `source`, a BT.601 YCbCr picture, with this look into `target` (same size and
    /// format): yuv420p, yuv444p or nv12; others go to ``apply(_:into:)``.
    /// - Parameters:
    ///   - source: The picture to read.
    ///   - target: Where the result goes; it may be `source` itself.
    ///   - standard: This look's ``standard()`` tables.
    /// - Throws: ``ReelError`` as ``apply(_:into:)``.
    package func apply(_ source: PixelBuffer, into target: PixelBuffer, standard: Standard) throws(ReelError) {
        guard [.yuv420p, .yuv444p, .nv12].contains(source.pixelFormat), !standard.isIdentity else {
            try apply(source, into: target)
            return
        }
        guard source.width == target.width, source.height == target.height, source.pixelFormat == target.pixelFormat else {
            throw ReelError(.invalidArgument, "a filter's output must match its input's size and format")
        }
        let interleaved = source.pixelFormat == .nv12
        let lumaWidth = source.planes[0].width, height = source.height
        let chromaWidth = source.planes[1].width
        let chromaRows = source.planes[1].height
        let block = source.pixelFormat == .yuv444p ? 1 : 2
        let (cbPlane, crPlane, step) = interleaved ? (1, 1, 2) : (1, 2, 1)
        let crOffset = interleaved ? 1 : 0
        standard.chroma.withUnsafeBufferPointer { chroma in
            standard.shiftIn.withUnsafeBufferPointer { shiftIn in
                standard.shiftOut.withUnsafeBufferPointer { shiftOut in
                    standard.curve.withUnsafeBufferPointer { curve in
                        source.withPlane(0) { y, yStride in
                            target.withMutablePlane(0) { yOut, yOutStride in
                                source.withPlane(cbPlane) { cb, cbStride in
                                    target.withMutablePlane(cbPlane) { cbOut, cbOutStride in
                                        source.withPlane(crPlane) { cr, crStride in
                                            target.withMutablePlane(crPlane) { crOut, crOutStride in
                                                ParallelRows.run(rows: chromaRows) { rows in
                                                    for row in rows {
                                                        let u = cb + row * cbStride, v = cr + row * crStride + crOffset
                                                        let uo = cbOut + row * cbOutStride,
                                                            vo = crOut + row * crOutStride + crOffset
                                                        let firstRow = block * row, lastRow = min(firstRow + block, height)
                                                        for x in 0..<chromaWidth {
                                                            let key =
                                                                Int(u.load(fromByteOffset: step * x, as: UInt8.self))
                                                                | Int(v.load(fromByteOffset: step * x, as: UInt8.self)) << 8
                                                            let pair = chroma[key]
                                                            let into = Int(shiftIn[key]), back = Int32(shiftOut[key]) - 8
                                                            for lumaRow in firstRow..<lastRow {
                                                                let i = y + lumaRow * yStride, o = yOut + lumaRow * yOutStride
                                                                for column in block * x..<min(block * x + block, lumaWidth) {
                                                                    let index = min(
                                                                        max(
                                                                            16
                                                                                * Int(
                                                                                    i.load(fromByteOffset: column, as: UInt8.self)
                                                                                ) + into, 0), 4095)
                                                                    let value = (curve[index] - back) >> 4
                                                                    o.storeBytes(
                                                                        of: UInt8(truncatingIfNeeded: min(max(value, 0), 255)),
                                                                        toByteOffset: column, as: UInt8.self)
                                                                }
                                                            }
                                                            uo.storeBytes(
                                                                of: UInt8(truncatingIfNeeded: pair), toByteOffset: step * x,
                                                                as: UInt8.self)
                                                            vo.storeBytes(
                                                                of: UInt8(truncatingIfNeeded: pair >> 8), toByteOffset: step * x,
                                                                as: UInt8.self)
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
            }
        }
    }
}

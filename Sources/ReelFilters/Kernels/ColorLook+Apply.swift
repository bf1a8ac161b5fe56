public import ReelCore

extension ColorLook {
    /// Writes `source` with this look into `target` (same size and format).
    /// yuv420p, nv12 and yuv444p use the tables directly; RGBA and BGRA go through
    /// BT.709 video-range YCbCr per pixel.
    /// - Throws: ``ReelError`` `.unsupported` for other formats, `.invalidArgument` for a shape mismatch.
    public func apply(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        guard source.width == target.width, source.height == target.height, source.pixelFormat == target.pixelFormat else {
            throw ReelError(.invalidArgument, "a filter's output must match its input's size and format")
        }
        switch source.pixelFormat {
        case .yuv420p where separableChroma != nil && constantChroma == nil && !isLumaIdentity:
            mapPlanarFused(source, target)
        case .yuv420p, .yuv444p:
            mapLuma(source, target)
            mapPlanarChroma(source, target)
        case .nv12:
            mapLuma(source, target)
            mapInterleavedChroma(source, target)
        case .rgba, .bgra:
            if isLumaIdentity && isChromaIdentity {
                target.copyPlane(0, from: source)
            } else {
                mapRGB(source, target, redFirst: source.pixelFormat == .rgba)
            }
        default:
            throw ReelError(.unsupported, "colour effects run on yuv420p, nv12, yuv444p, rgba and bgra, not \(source.pixelFormat)")
        }
    }

    private func mapLuma(_ source: PixelBuffer, _ target: PixelBuffer) {
        if isLumaIdentity {
            target.copyPlane(0, from: source)
            return
        }
        mapPlane(0, source, target, pairs: lumaPairs)
    }

    /// One plane through a table of sample pairs (`pairs[a | b << 8]` holds both results).
    private func mapPlane(_ index: Int, _ source: PixelBuffer, _ target: PixelBuffer, pairs table: [UInt16]) {
        let plane = source.planes[index]
        let width = plane.width
        table.withUnsafeBufferPointer { pairs in
            source.withPlane(index) { input, inStride in
                target.withMutablePlane(index) { output, outStride in
                    ParallelRows.run(rows: plane.height) { rows in
                        for row in rows {
                            Self.mapRow(input + row * inStride, output + row * outStride, width: width, pairs: pairs)
                        }
                    }
                }
            }
        }
    }

    /// One row through a table of sample pairs, eight samples per step.
    @inline(__always)
    private static func mapRow(_ i: UnsafeRawPointer, _ o: UnsafeMutableRawPointer, width: Int,
                               pairs: UnsafeBufferPointer<UInt16>) {
        var x = 0
        while x + 8 <= width {
            let word = i.loadUnaligned(fromByteOffset: x, as: UInt64.self)
            let a = UInt64(pairs[Int(truncatingIfNeeded: word & 0xFFFF)])
            let b = UInt64(pairs[Int(truncatingIfNeeded: (word >> 16) & 0xFFFF)])
            let c = UInt64(pairs[Int(truncatingIfNeeded: (word >> 32) & 0xFFFF)])
            let d = UInt64(pairs[Int(truncatingIfNeeded: word >> 48)])
            o.storeBytes(of: a | b << 16 | c << 32 | d << 48, toByteOffset: x, as: UInt64.self)
            x += 8
        }
        while x < width {
            o.storeBytes(of: UInt8(truncatingIfNeeded: pairs[Int(i.load(fromByteOffset: x, as: UInt8.self))]),
                         toByteOffset: x, as: UInt8.self)
            x += 1
        }
    }

    /// yuv420p with a separable chroma map: every plane in one dispatch, each core taking a
    /// band of luma rows and the chroma rows beside them, so the picture is read once.
    private func mapPlanarFused(_ source: PixelBuffer, _ target: PixelBuffer) {
        guard let (cbTable, crTable) = separableChroma else { return }
        let lumaWidth = source.planes[0].width, chromaWidth = source.planes[1].width
        let chromaRows = source.planes[1].height, height = source.height
        lumaPairs.withUnsafeBufferPointer { lumaTable in
        cbTable.withUnsafeBufferPointer { cbPairs in
        crTable.withUnsafeBufferPointer { crPairs in
        source.withPlane(0) { y, yStride in
        target.withMutablePlane(0) { yOut, yOutStride in
        source.withPlane(1) { cb, cbStride in
        target.withMutablePlane(1) { cbOut, cbOutStride in
        source.withPlane(2) { cr, crStride in
        target.withMutablePlane(2) { crOut, crOutStride in
            ParallelRows.run(rows: chromaRows) { rows in
                for row in rows {
                    for lumaRow in (2 * row)..<min(2 * row + 2, height) {
                        Self.mapRow(y + lumaRow * yStride, yOut + lumaRow * yOutStride, width: lumaWidth, pairs: lumaTable)
                    }
                    Self.mapRow(cb + row * cbStride, cbOut + row * cbOutStride, width: chromaWidth, pairs: cbPairs)
                    Self.mapRow(cr + row * crStride, crOut + row * crOutStride, width: chromaWidth, pairs: crPairs)
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


    private func mapPlanarChroma(_ source: PixelBuffer, _ target: PixelBuffer) {
        let plane = source.planes[1]
        if isChromaIdentity {
            target.copyPlane(1, from: source)
            target.copyPlane(2, from: source)
            return
        }
        if let constant = constantChroma {
            for (index, value) in [(1, UInt8(truncatingIfNeeded: constant)), (2, UInt8(truncatingIfNeeded: constant >> 8))] {
                target.withMutablePlane(index) { output, stride in
                    for row in 0..<plane.height {
                        (output + row * stride).initializeMemory(as: UInt8.self, repeating: value, count: plane.width)
                    }
                }
            }
            return
        }
        if let (cbPairs, crPairs) = separableChroma {
            mapPlane(1, source, target, pairs: cbPairs)
            mapPlane(2, source, target, pairs: crPairs)
            return
        }
        chroma.withUnsafeBufferPointer { table in
            source.withPlane(1) { cbIn, cbInStride in
                source.withPlane(2) { crIn, crInStride in
                    target.withMutablePlane(1) { cbOut, cbOutStride in
                        target.withMutablePlane(2) { crOut, crOutStride in
                            ParallelRows.run(rows: plane.height) { rows in
                            for row in rows {
                                let u = cbIn + row * cbInStride
                                let v = crIn + row * crInStride
                                let uo = cbOut + row * cbOutStride
                                let vo = crOut + row * crOutStride
                                for x in 0..<plane.width {
                                    let key = Int(u.load(fromByteOffset: x, as: UInt8.self))
                                        | Int(v.load(fromByteOffset: x, as: UInt8.self)) << 8
                                    let pair = table[key]
                                    uo.storeBytes(of: UInt8(truncatingIfNeeded: pair), toByteOffset: x, as: UInt8.self)
                                    vo.storeBytes(of: UInt8(truncatingIfNeeded: pair >> 8), toByteOffset: x, as: UInt8.self)
                                }
                            }
                            }
                        }
                    }
                }
            }
        }
    }

    private func mapInterleavedChroma(_ source: PixelBuffer, _ target: PixelBuffer) {
        let plane = source.planes[1]
        if isChromaIdentity {
            target.copyPlane(1, from: source)
            return
        }
        chroma.withUnsafeBufferPointer { table in
            source.withPlane(1) { input, inStride in
                target.withMutablePlane(1) { output, outStride in
                    ParallelRows.run(rows: plane.height) { rows in
                        for row in rows {
                            let i = input + row * inStride
                            let o = output + row * outStride
                            for x in 0..<plane.width {
                                let pair = i.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)
                                o.storeBytes(of: table[Int(UInt16(littleEndian: pair))].littleEndian, toByteOffset: 2 * x,
                                             as: UInt16.self)
                            }
                        }
                    }
                }
            }
        }
    }

    private func mapRGB(_ source: PixelBuffer, _ target: PixelBuffer, redFirst: Bool) {
        let plane = source.planes[0]
        let (r, b) = redFirst ? (0, 2) : (2, 0)
        luma.withUnsafeBufferPointer { lumaTable in
            chroma.withUnsafeBufferPointer { chromaTable in
                source.withPlane(0) { input, inStride in
                    target.withMutablePlane(0) { output, outStride in
                        ParallelRows.run(rows: plane.height) { rows in
                        for row in rows {
                            let i = input + row * inStride
                            let o = output + row * outStride
                            for x in 0..<plane.width {
                                let p = i + 4 * x
                                let red = Int32(p.load(fromByteOffset: r, as: UInt8.self))
                                let green = Int32(p.load(fromByteOffset: 1, as: UInt8.self))
                                let blue = Int32(p.load(fromByteOffset: b, as: UInt8.self))
                                let (y, cb, cr) = RGBConversion.toYCbCr(red, green, blue)
                                let newY = Int32(lumaTable[Int(y)])
                                let pair = chromaTable[Int(cb | cr << 8)]
                                let (nr, ng, nb) = RGBConversion.toRGB(newY, Int32(pair & 0xFF), Int32(pair >> 8))
                                let q = o + 4 * x
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
        }
    }
}

/// BT.709 conversion between full-range RGB and video-range YCbCr in 16.16 fixed point.
enum RGBConversion {
    @inline(__always)
    static func toYCbCr(_ r: Int32, _ g: Int32, _ b: Int32) -> (Int32, Int32, Int32) {
        // Y = 16 + 219/255 (0.2126 R + 0.7152 G + 0.0722 B); Cb, Cr scaled by 224/255.
        let y = (11_966 * r + 40_254 * g + 4_064 * b + (16 << 16) + 32_768) >> 16
        let cb = (-6_596 * r - 22_189 * g + 28_784 * b + (128 << 16) + 32_768) >> 16
        let cr = (28_784 * r - 26_145 * g - 2_639 * b + (128 << 16) + 32_768) >> 16
        return (min(max(y, 0), 255), min(max(cb, 0), 255), min(max(cr, 0), 255))
    }

    @inline(__always)
    static func toRGB(_ y: Int32, _ cb: Int32, _ cr: Int32) -> (UInt8, UInt8, UInt8) {
        let l = 76_309 * (y - 16)               // 255/219
        let u = cb - 128, v = cr - 128
        let r = (l + 117_489 * v + 32_768) >> 16 // 1.5748 * 255/224
        let g = (l - 13_975 * u - 34_925 * v + 32_768) >> 16
        let b = (l + 138_438 * u + 32_768) >> 16 // 1.8556 * 255/224
        return (UInt8(min(max(r, 0), 255)), UInt8(min(max(g, 0), 255)), UInt8(min(max(b, 0), 255)))
    }
}

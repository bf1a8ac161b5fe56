public import ReelCore

extension ColorLook {
    /// Writes `source` with this look into `target` (same size and format).
    /// yuv420p, nv12 and yuv444p use the tables directly; RGBA and BGRA go through
    /// BT.709 video-range YCbCr per pixel.
    /// - Parameters:
    ///   - source: The picture to read.
    ///   - target: Where the result goes; it may be `source` itself.
    /// - Throws: ``ReelError`` `.unsupported` for other formats, `.invalidArgument` for a shape mismatch.
    public func apply(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        guard source.width == target.width, source.height == target.height, source.pixelFormat == target.pixelFormat else {
            throw ReelError(.invalidArgument, "a filter's output must match its input's size and format")
        }
        switch source.pixelFormat {
        case .yuv420p, .yuv444p:
            mapPlanar(source, target)
        case .nv12:
            mapLuma(source, target)
            mapInterleavedChroma(source, target)
        case .rgba, .bgra:
            if isLumaIdentity && isChromaIdentity {
                target.copyPlane(0, from: source)
            } else if let kernel = source.pixelFormat == .rgba ? rgbaKernel : bgraKernel {
                mapRGB(source, target, kernel)
            } else {
                mapRGBTables(source, target, redFirst: source.pixelFormat == .rgba)
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

    /// How a luma plane's rows are made.
    private enum LumaKernel {
        case copy, line(ByteAffine), pairs
    }

    /// How a chroma row pair (Cb, Cr) is made.
    private enum ChromaKernel {
        case copy, fill(UInt8, UInt8), planes(ByteAffine, ByteAffine), separable, table
    }

    /// yuv420p and yuv444p: every plane in one dispatch, each core taking a band of chroma
    /// rows and the luma rows beside them, so the picture is read once. Straight-line maps
    /// are computed in SIMD lanes; other curves go through the tables.
    private func mapPlanar(_ source: PixelBuffer, _ target: PixelBuffer) {
        let lumaKernel: LumaKernel = isLumaIdentity ? .copy : lumaLine.map { .line($0) } ?? .pairs
        let chromaKernel: ChromaKernel
        if isChromaIdentity {
            chromaKernel = .copy
        } else if let constant = constantChroma {
            chromaKernel = .fill(UInt8(truncatingIfNeeded: constant), UInt8(truncatingIfNeeded: constant >> 8))
        } else if let (cb, cr) = chromaPlanes {
            chromaKernel = .planes(cb, cr)
        } else {
            chromaKernel = separableChroma == nil ? .table : .separable
        }
        let lumaWidth = source.planes[0].width, chromaWidth = source.planes[1].width
        let chromaRows = source.planes[1].height, height = source.height
        let lumaRowsPerChroma = source.pixelFormat == .yuv420p ? 2 : 1
        let (cbPairs, crPairs) = separableChroma ?? ([], [])
        lumaPairs.withUnsafeBufferPointer { lumaTable in
        cbPairs.withUnsafeBufferPointer { cbTable in
        crPairs.withUnsafeBufferPointer { crTable in
        chroma.withUnsafeBufferPointer { chromaTable in
        source.withPlane(0) { y, yStride in
        target.withMutablePlane(0) { yOut, yOutStride in
        source.withPlane(1) { cb, cbStride in
        target.withMutablePlane(1) { cbOut, cbOutStride in
        source.withPlane(2) { cr, crStride in
        target.withMutablePlane(2) { crOut, crOutStride in
            ParallelRows.run(rows: chromaRows) { rows in
                for row in rows {
                    let first = lumaRowsPerChroma * row
                    for lumaRow in first..<min(first + lumaRowsPerChroma, height) {
                        let i = y + lumaRow * yStride, o = yOut + lumaRow * yOutStride
                        switch lumaKernel {
                        case .copy: o.copyMemory(from: i, byteCount: lumaWidth)
                        case .line(let map): ByteAffine.mapRow(i, o, count: lumaWidth, map)
                        case .pairs: Self.mapRow(i, o, width: lumaWidth, pairs: lumaTable)
                        }
                    }
                    let u = cb + row * cbStride, v = cr + row * crStride
                    let uo = cbOut + row * cbOutStride, vo = crOut + row * crOutStride
                    switch chromaKernel {
                    case .copy:
                        uo.copyMemory(from: u, byteCount: chromaWidth)
                        vo.copyMemory(from: v, byteCount: chromaWidth)
                    case .fill(let cbValue, let crValue):
                        uo.initializeMemory(as: UInt8.self, repeating: cbValue, count: chromaWidth)
                        vo.initializeMemory(as: UInt8.self, repeating: crValue, count: chromaWidth)
                    case .planes(let cbMap, let crMap):
                        ByteAffine.mapRows(u, v, uo, vo, count: chromaWidth, cb: cbMap, cr: crMap)
                    case .separable:
                        Self.mapRow(u, uo, width: chromaWidth, pairs: cbTable)
                        Self.mapRow(v, vo, width: chromaWidth, pairs: crTable)
                    case .table:
                        for x in 0..<chromaWidth {
                            let key = Int(u.load(fromByteOffset: x, as: UInt8.self))
                                | Int(v.load(fromByteOffset: x, as: UInt8.self)) << 8
                            let pair = chromaTable[key]
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

    /// The look as one RGB kernel, when its chroma map is linear (and its luma curve either
    /// a line or left to the table).
    func rgbKernel(redFirst: Bool) -> RGBAffine? {
        guard let (cbPlane, crPlane) = chromaPlanes else { return nil }
        // Luma − 16, Cb − 128, Cr − 128 from R, G, B: the shared fixed-point weights / 65,536.
        let forward = YCbCr.forward.map { $0.map { Double($0) / 65_536 } }
        // R, G, B from luma − 16, Cb − 128, Cr − 128.
        let back = YCbCr.inverse.map { $0.map { Double($0) / 65_536 } }
        var toLook = [Double](repeating: 0, count: 9), lookBias = [Double](repeating: 0, count: 3)
        if let line = lumaLine {
            // New luma = slope·(luma − 128) + level (RGB's luma never reaches the knees).
            for byte in 0..<3 { toLook[byte] = line.slopeA * forward[0][byte] }
            lookBias[0] = line.slopeA * (16 - 128) + line.level
        }
        for (row, plane) in [(1, cbPlane), (2, crPlane)] {
            if let constant = constantChroma {
                lookBias[row] = Double(row == 1 ? constant & 0xFF : constant >> 8)
                continue
            }
            for byte in 0..<3 { toLook[3 * row + byte] = plane.slopeA * forward[1][byte] + plane.slopeB * forward[2][byte] }
            lookBias[row] = plane.level
        }
        var toRGB = [Double](repeating: 0, count: 9), rgbBias = [Double](repeating: 0, count: 3)
        for out in 0..<3 {
            for component in 0..<3 { toRGB[3 * out + component] = back[out][component] }
            rgbBias[out] = -16 * back[out][0] - 128 * (back[out][1] + back[out][2])
        }
        // Bytes 0, 1, 2 are R, G, B in RGBA and B, G, R in BGRA.
        let order = redFirst ? [0, 1, 2] : [2, 1, 0]
        // A chroma map that ignores the pixel makes one colour per luma level: then the table
        // serves even a straight luma curve.
        let curved = lumaLine == nil || constantChroma != nil
        return RGBAffine(
            toLook: (0..<3).flatMap { component in order.map { Float(toLook[3 * component + $0]) } },
            lookBias: lookBias.map { Float($0) },
            toRGB: order.flatMap { out in (0..<3).map { Float(toRGB[3 * out + $0]) } },
            rgbBias: order.map { Float(rgbBias[$0]) },
            luma: curved ? luma : nil,
            lumaWeights: curved ? order.map { Float(forward[0][$0] * 65_536) } : [0, 0, 0])
    }

    private func mapRGB(_ source: PixelBuffer, _ target: PixelBuffer, _ kernel: RGBAffine) {
        let width = source.width, clamps = kernel.clamps
        source.withPlane(0) { input, inStride in
            target.withMutablePlane(0) { output, outStride in
                ParallelRows.run(rows: source.height) { rows in
                    withUnsafeTemporaryAllocation(byteCount: 4 * width + 32, alignment: 32) { scratch in
                        guard let base = scratch.baseAddress else { return }
                        for row in rows {
                            kernel.mapRow(input + row * inStride, output + row * outStride, count: width, clamps: clamps,
                                          scratch: base)
                        }
                    }
                }
            }
        }
    }

    /// The per-pixel reference: RGB to 8-bit YCbCr, both tables, back to RGB.
    func mapRGBTables(_ source: PixelBuffer, _ target: PixelBuffer, redFirst: Bool) {
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
                                let (y, cb, cr) = YCbCr.fromRGB(red, green, blue)
                                let newY = Int32(lumaTable[Int(y)])
                                let pair = chromaTable[Int(cb | cr << 8)]
                                let (nr, ng, nb) = YCbCr.toRGB(newY, Int32(pair & 0xFF), Int32(pair >> 8))
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

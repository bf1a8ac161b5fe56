import ReelCore

extension CubeLUT {
    /// The table prepared for 8-bit pixels: each lattice point as one vector of 8.8 fixed
    /// point channels, and for each input level of each axis the lattice offset of its cell
    /// and its position inside the cell.
    struct Prepared: Sendable {
        let size: Int
        /// Whether this is the table for YCbCr pictures.
        let videoRange: Bool
        /// YCbCr pictures' matrix (BT.709 for RGB ones, where it is unused).
        let matrix: ColorMatrix
        /// R, G, B from luma − 16, Cb − 128 and Cr − 128 in `matrix` (``YCbCr/inverse(_:)``).
        let inverse: [[Int32]]
        /// `size`³ points, red fastest: (R, G, B, 0), each 0...255 << 8; for YCbCr pictures
        /// the same points as video-range (Y, Cb, Cr, 0) in `matrix`. The conversion is linear,
        /// so converting the points and then interpolating is converting the interpolated
        /// colour (to within the rounding), and a pixel needs no conversion back.
        let points: [SIMD4<Int32>]
        /// `offsets[256 * axis + level]`: the cell's lower point along that axis, as an index
        /// step (1 for red, `size` for green, `size`² for blue), so a cell is three loads and
        /// two additions away.
        let offsets: [Int32]
        /// `weights[256 * axis + level]`: the position inside the cell, 0...256.
        let weights: [Int32]
        /// The two middle corners of each tetrahedron, by ``tetrahedron(_:_:_:)``.
        let corners: [(Int32, Int32)]
    }

    /// The table for RGB pictures, or with `videoRange` for YCbCr ones in `matrix`.
    func prepared(videoRange: Bool, matrix: ColorMatrix = .bt709) -> Prepared {
        let n = size
        var points = [SIMD4<Int32>](repeating: .zero, count: n * n * n)
        let toVideo = YCbCr.forward(matrix).map { $0.map(Double.init) }
        for index in points.indices {
            func level(_ channel: Int) -> Double { min(max(Double(values[3 * index + channel]), 0), 1) * 255 }
            let (r, g, b) = (level(0), level(1), level(2))
            func fixed(_ value: Double) -> Int32 { Int32((value * 256).rounded()) }
            if videoRange {
                // The shared fixed-point weights / 65,536.
                let y = 16 + (toVideo[0][0] * r + toVideo[0][1] * g + toVideo[0][2] * b) / 65_536
                let cb = 128 + (toVideo[1][0] * r + toVideo[1][1] * g + toVideo[1][2] * b) / 65_536
                let cr = 128 + (toVideo[2][0] * r + toVideo[2][1] * g + toVideo[2][2] * b) / 65_536
                points[index] = SIMD4(fixed(y), fixed(cb), fixed(cr), 0)
            } else {
                points[index] = SIMD4(fixed(r), fixed(g), fixed(b), 0)
            }
        }
        var offsets = [Int32](repeating: 0, count: 768), weights = [Int32](repeating: 0, count: 768)
        let steps = [1, n, n * n]
        for axis in 0..<3 {
            // The cube's [min, max] along this axis spans the 8-bit range of its channel.
            let span = domainMax[axis] - domainMin[axis]
            for level in 0..<256 {
                let position = min(max((Double(level) / 255 - domainMin[axis]) / span, 0), 1) * Double(n - 1)
                let lower = min(Int(position), n - 2)
                offsets[256 * axis + level] = Int32(lower * steps[axis])
                weights[256 * axis + level] = Int32(((position - Double(lower)) * 256).rounded())
            }
        }
        // The tetrahedron is picked by which fraction is largest, then next: the walk from the
        // cell's first corner to its last goes one axis at a time in that order.
        let (r, g, b) = (Int32(1), Int32(n), Int32(n * n))
        var corners = [(Int32, Int32)](repeating: (r, r + g), count: 8)
        corners[Prepared.tetrahedron(2, 1, 0)] = (r, r + g)   // red > green > blue
        corners[Prepared.tetrahedron(2, 0, 1)] = (r, r + b)   // red > blue ≥ green
        corners[Prepared.tetrahedron(1, 0, 2)] = (b, r + b)   // blue ≥ red > green
        corners[Prepared.tetrahedron(0, 1, 2)] = (b, g + b)   // blue ≥ green ≥ red
        corners[Prepared.tetrahedron(0, 2, 1)] = (g, g + b)   // green > blue ≥ red
        corners[Prepared.tetrahedron(1, 2, 0)] = (g, r + g)   // green ≥ red > blue
        return Prepared(size: n, videoRange: videoRange, matrix: matrix, inverse: YCbCr.inverse(matrix), points: points,
                        offsets: offsets, weights: weights, corners: corners)
    }
}

extension CubeLUT.Prepared {
    /// The case of a cell position: bit 0 is red's fraction above green's, bit 1 green's
    /// above blue's, bit 2 red's above blue's. (Two of the eight cannot happen.)
    @inline(__always)
    static func tetrahedron(_ fr: Int32, _ fg: Int32, _ fb: Int32) -> Int {
        (fr > fg ? 1 : 0) | (fg > fb ? 2 : 0) | (fr > fb ? 4 : 0)
    }

    /// The prepared table's storage, borrowed for one frame.
    struct Lattice {
        let points: UnsafePointer<SIMD4<Int32>>
        let offsets: UnsafePointer<Int32>
        let weights: UnsafePointer<Int32>
        let corners: UnsafePointer<(Int32, Int32)>
        /// The index step from a cell's first corner to its opposite one.
        let last: Int

        /// Maps one RGB triple by tetrahedral interpolation (four lattice points, as in
        /// FFmpeg's lut3d `interp=tetrahedral`), the three channels in one vector; exact for
        /// an identity table. Where fractions tie, either tetrahedron gives the same sum.
        ///
        /// Returns the channels in lanes 0, 1, 2, each 0...255.
        @inline(__always)
        func map(_ r: Int, _ g: Int, _ b: Int) -> SIMD4<Int32> {
            let base = Int(offsets[r]) &+ Int(offsets[256 &+ g]) &+ Int(offsets[512 &+ b])
            let fr = weights[r], fg = weights[256 &+ g], fb = weights[512 &+ b]
            let (first, second) = corners[tetrahedron(fr, fg, fb)]
            // Largest, middle and smallest fraction: the steps along the walk.
            let high = max(fr, fg, fb), low = min(fr, fg, fb), middle = fr &+ fg &+ fb &- high &- low
            let c0 = points[base], c1 = points[base &+ Int(first)]
            let c2 = points[base &+ Int(second)], c3 = points[base &+ last]
            let sum = c0 &<< 8 &+ SIMD4(repeating: high) &* (c1 &- c0) &+ SIMD4(repeating: middle) &* (c2 &- c1)
                &+ SIMD4(repeating: low) &* (c3 &- c2) &+ 32_768
            return sum &>> 16
        }
    }

    /// Writes `source` through the table into `target`: RGBA and BGRA map per pixel with
    /// the RGB table; yuv420p and nv12 (in the table's matrix) go to RGB per pixel (a 3D table mixes channels, so no
    /// YCbCr shortcut exists) and come back through the video-range table.
    func apply(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        let rgb = source.pixelFormat == .rgba || source.pixelFormat == .bgra
        guard rgb != videoRange else {
            throw ReelError(.invalidArgument, "a cube table made for \(videoRange ? "YCbCr" : "RGB") given \(source.pixelFormat)")
        }
        points.withUnsafeBufferPointer { points in
        offsets.withUnsafeBufferPointer { offsets in
        weights.withUnsafeBufferPointer { weights in
        corners.withUnsafeBufferPointer { corners in
            guard let p = points.baseAddress, let o = offsets.baseAddress, let w = weights.baseAddress,
                  let c = corners.baseAddress else { return }
            let lattice = Lattice(points: p, offsets: o, weights: w, corners: c, last: 1 + size + size * size)
            if rgb {
                applyRGB(source, into: target, lattice)
            } else {
                applyYUV(source, into: target, lattice)
            }
        }
        }
        }
        }
    }

    private func applyRGB(_ source: PixelBuffer, into target: PixelBuffer,
                          _ lattice: Lattice) {
        let redFirst = source.pixelFormat == .rgba
        let width = source.width
        source.withPlane(0) { input, inStride in
            target.withMutablePlane(0) { output, outStride in
                ParallelRows.run(rows: source.height) { rows in
                    for row in rows {
                        let i = input + row * inStride, o = output + row * outStride
                        for x in 0..<width {
                            let pixel = i.loadUnaligned(fromByteOffset: 4 &* x, as: UInt32.self)
                            let (first, second) = (Int(pixel & 0xFF), Int(pixel >> 16 & 0xFF))
                            let green = Int(pixel >> 8 & 0xFF)
                            let mapped = redFirst ? lattice.map(first, green, second) : lattice.map(second, green, first)
                            let (r, g, b) = (UInt32(mapped[0]), UInt32(mapped[1]), UInt32(mapped[2]))
                            let packed = redFirst ? r | g << 8 | b << 16 : b | g << 8 | r << 16
                            o.storeBytes(of: packed | pixel & 0xFF00_0000, toByteOffset: 4 &* x, as: UInt32.self)
                        }
                    }
                }
            }
        }
    }

    /// yuv420p and nv12: each 2x2 block's chroma terms once, each pixel to RGB and through
    /// the video-range points, the block's new chroma the mean of its pixels'.
    private func applyYUV(_ source: PixelBuffer, into target: PixelBuffer,
                          _ lattice: Lattice) {
        let interleaved = source.pixelFormat == .nv12
        let (step, crOffset) = interleaved ? (2, 1) : (1, 0)
        let chromaRows = source.planes[1].height, chromaColumns = source.planes[1].width
        let width = source.width, height = source.height
        // YCbCr.toRGB's weights, in the table's matrix.
        let (lumaWeight, redFromCr) = (inverse[0][0], inverse[0][2])
        let (greenFromCb, greenFromCr, blueFromCb) = (inverse[1][1], inverse[1][2], inverse[2][1])
        source.withPlane(0) { lumaIn, lumaInStride in
        target.withMutablePlane(0) { lumaOut, lumaOutStride in
        source.withPlane(1) { cbIn, cbInStride in
        target.withMutablePlane(1) { cbOut, cbOutStride in
        // nv12 keeps Cr beside Cb in plane 1; yuv420p has a plane 2.
        let crPlane = interleaved ? 1 : 2
        source.withPlane(crPlane) { crIn, crInStride in
        target.withMutablePlane(crPlane) { crOut, crOutStride in
            ParallelRows.run(rows: chromaRows) { rows in
                for cy in rows {
                    let lumaRows = min(2, height - 2 * cy)
                    let i = lumaIn + 2 * cy * lumaInStride, o = lumaOut + 2 * cy * lumaOutStride
                    let cbRow = cbIn + cy * cbInStride, crRow = crIn + cy * crInStride + crOffset
                    let cbRowOut = cbOut + cy * cbOutStride, crRowOut = crOut + cy * crOutStride + crOffset
                    for cx in 0..<chromaColumns {
                        // YCbCr.toRGB, its chroma half once for the block.
                        let u = Int32(cbRow.load(fromByteOffset: step &* cx, as: UInt8.self)) &- 128
                        let v = Int32(crRow.load(fromByteOffset: step &* cx, as: UInt8.self)) &- 128
                        let redTerm = redFromCr &* v &+ 32_768
                        let greenTerm = greenFromCb &* u &+ greenFromCr &* v &+ 32_768
                        let blueTerm = blueFromCb &* u &+ 32_768
                        let columns = 2 &* cx..<min(2 &* cx &+ 2, width)
                        var sum = SIMD4<Int32>.zero
                        for row in 0..<lumaRows {
                            let lumaRow = i + row &* lumaInStride, lumaRowOut = o + row &* lumaOutStride
                            for x in columns {
                                let l = lumaWeight &* (Int32(lumaRow.load(fromByteOffset: x, as: UInt8.self)) &- 16)
                                let mapped = lattice.map(Self.byte((l &+ redTerm) &>> 16), Self.byte((l &+ greenTerm) &>> 16),
                                                         Self.byte((l &+ blueTerm) &>> 16))
                                lumaRowOut.storeBytes(of: UInt8(truncatingIfNeeded: mapped[0]), toByteOffset: x, as: UInt8.self)
                                sum &+= mapped
                            }
                        }
                        // A whole block (all but an odd edge's) divides by a shift.
                        let count = Int32(lumaRows &* columns.count)
                        let mean = count == 4 ? (sum &+ 2) &>> 2 : (sum &+ count / 2) / count
                        cbRowOut.storeBytes(of: UInt8(truncatingIfNeeded: mean[1]), toByteOffset: step &* cx, as: UInt8.self)
                        crRowOut.storeBytes(of: UInt8(truncatingIfNeeded: mean[2]), toByteOffset: step &* cx, as: UInt8.self)
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

    /// A channel level clamped to 0...255, as an index.
    @inline(__always)
    private static func byte(_ value: Int32) -> Int { Int(min(max(value, 0), 255)) }
}

/// Converts video-range 8-bit YCbCr from one matrix to the other (BT.709 to BT.601 or back)
/// in place, without going through RGB.
///
/// Both matrices keep grey grey, so the conversion is one 3×3 matrix on (Y′, Cb, Cr) whose
/// luma row is Y′ plus a little of Cb and Cr, and whose chroma rows mix Cb and Cr alone:
/// three multiplies a luma sample and four a chroma pair. libswscale, asked for the same, makes
/// a cascade that goes through 16-bit RGB at the larger of the two sizes, about ten times the
/// work; a picture scaled across 720 lines (a 720p clip in a 640x360 composition) paid that on
/// every frame. Each luma sample takes the chroma of the sample it is sited with (the
/// co-sited chroma, read before it is converted); colours that stay inside RGB's cube come out
/// as the RGB round trip gives them, to the rounding.
package struct YCbCrConversion: Sendable, Equatable {
    /// Y′ += (lumaFromCb (Cb − 128) + lumaFromCr (Cr − 128)) / 65,536.
    package let lumaFromCb: Int32, lumaFromCr: Int32
    /// Cb′ − 128 = (cbFromCb (Cb − 128) + cbFromCr (Cr − 128)) / 65,536.
    package let cbFromCb: Int32, cbFromCr: Int32
    /// Cr′ − 128 = (crFromCb (Cb − 128) + crFromCr (Cr − 128)) / 65,536.
    package let crFromCb: Int32, crFromCr: Int32

    /// The conversion from `source`'s matrix to `target`'s; nil when they are the same.
    /// - Parameters:
    ///   - source: The matrix the samples are in.
    ///   - target: The matrix to write them in.
    package init?(from source: ColorMatrix, to target: ColorMatrix) {
        guard source != target else { return nil }
        // The map's luma row has 1 for luma (grey stays grey) and its chroma rows 0.
        let map = YCbCr.conversion(from: source, to: target)
        func fixed(_ value: Double) -> Int32 { Int32((value * 65_536).rounded()) }
        lumaFromCb = fixed(map[0][1])
        lumaFromCr = fixed(map[0][2])
        cbFromCb = fixed(map[1][1])
        cbFromCr = fixed(map[1][2])
        crFromCb = fixed(map[2][1])
        crFromCr = fixed(map[2][2])
    }

    /// Converts a planar picture in place, a chroma row at a time: its luma rows by the chroma
    /// as it was (one offset a chroma sample, shared by the luma samples sited with it), then
    /// the chroma row itself.
    /// - Parameters:
    ///   - planes: The Y′, Cb and Cr planes, 8 bits a sample.
    ///   - strides: Each plane's bytes a row.
    ///   - width: The picture's width in luma samples.
    ///   - height: The picture's height in luma rows.
    ///   - chromaShift: log2 of the chroma subsampling, across and down (1, 1 for 4:2:0; 0 or 1 each).
    package func apply(
        planes: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
        strides: (Int, Int, Int), width: Int, height: Int, chromaShift: (x: Int, y: Int)
    ) {
        guard width > 0, height > 0, (0...1).contains(chromaShift.x), (0...1).contains(chromaShift.y) else { return }
        let chromaWidth = (width + (1 << chromaShift.x) - 1) >> chromaShift.x
        let chromaHeight = (height + (1 << chromaShift.y) - 1) >> chromaShift.y
        let (luma, cb, cr) = planes
        let conversion = self
        ParallelRows.run(rows: chromaHeight, minimumRows: 32) { rows in
            let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: chromaWidth)
            defer { offsets.deallocate() }
            for row in rows {
                let cbRow = cb + row * strides.1, crRow = cr + row * strides.2
                for column in 0..<chromaWidth {
                    let u = Int32(cbRow[column]) - 128, v = Int32(crRow[column]) - 128
                    offsets[column] = (conversion.lumaFromCb &* u &+ conversion.lumaFromCr &* v &+ 32_768) >> 16
                    let newCb = 128 &+ ((conversion.cbFromCb &* u &+ conversion.cbFromCr &* v &+ 32_768) >> 16)
                    let newCr = 128 &+ ((conversion.crFromCb &* u &+ conversion.crFromCr &* v &+ 32_768) >> 16)
                    cbRow[column] = UInt8(truncatingIfNeeded: min(max(newCb, 0), 255))
                    crRow[column] = UInt8(truncatingIfNeeded: min(max(newCr, 0), 255))
                }
                let firstLumaRow = row << chromaShift.y
                for lumaRowIndex in firstLumaRow..<min(height, firstLumaRow + (1 << chromaShift.y)) {
                    let lumaRow = luma + lumaRowIndex * strides.0
                    if chromaShift.x == 0 {
                        for column in 0..<width {
                            lumaRow[column] = UInt8(
                                truncatingIfNeeded: min(max(Int32(lumaRow[column]) &+ offsets[column], 0), 255))
                        }
                    } else {
                        for column in 0..<width / 2 {
                            let offset = offsets[column]
                            let left = Int32(lumaRow[2 * column]) &+ offset, right = Int32(lumaRow[2 * column + 1]) &+ offset
                            lumaRow[2 * column] = UInt8(truncatingIfNeeded: min(max(left, 0), 255))
                            lumaRow[2 * column + 1] = UInt8(truncatingIfNeeded: min(max(right, 0), 255))
                        }
                        if width % 2 == 1 {
                            let last = Int32(lumaRow[width - 1]) &+ offsets[chromaWidth - 1]
                            lumaRow[width - 1] = UInt8(truncatingIfNeeded: min(max(last, 0), 255))
                        }
                    }
                }
            }
        }
    }
}

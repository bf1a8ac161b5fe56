extension PixelBuffer {
    /// Fills a rectangle of an RGBA or BGRA picture with one colour, given as R, G, B, A.
    /// The rectangle is clipped to the picture. Other formats are left unchanged.
    /// - Parameters:
    ///   - x: The rectangle's left edge, in pixels.
    ///   - y: The rectangle's top edge, in pixels.
    ///   - width: Its width in pixels.
    ///   - height: Its height in pixels.
    ///   - rgba: The colour, whatever the picture's byte order.
    public func fillRect(x: Int, y: Int, width: Int, height: Int, rgba: (UInt8, UInt8, UInt8, UInt8)) {
        guard pixelFormat == .rgba || pixelFormat == .bgra else { return }
        let bytes: [UInt8] = pixelFormat == .rgba ? [rgba.0, rgba.1, rgba.2, rgba.3] : [rgba.2, rgba.1, rgba.0, rgba.3]
        let pixel = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(self.width, x + width), y1 = min(self.height, y + height)
        guard x1 > x0, y1 > y0 else { return }
        let plane = planes[0]
        for row in y0..<y1 {
            let start = (storage.base + plane.offset + row * plane.bytesPerRow + x0 * 4)
                .bindMemory(to: UInt32.self, capacity: x1 - x0)
            start.update(repeating: pixel, count: x1 - x0)
        }
    }

    /// Lays `overlay` over this picture with its top-left at (`x`, `y`), blending by the
    /// overlay's alpha ("source over"). Both must be RGBA (or both BGRA); the overlay is clipped.
    /// - Parameters:
    ///   - overlay: The picture laid over this one (text, a logo).
    ///   - x: Where its left edge goes, in pixels (may be negative).
    ///   - y: Where its top edge goes, in pixels (may be negative).
    /// - Throws: ``ReelError`` `.invalidArgument` when the formats differ or are not RGBA/BGRA.
    public func draw(_ overlay: PixelBuffer, x: Int, y: Int) throws(ReelError) {
        guard overlay.pixelFormat == pixelFormat, pixelFormat == .rgba || pixelFormat == .bgra else {
            throw ReelError(.invalidArgument, "can only draw rgba on rgba or bgra on bgra, not \(overlay.pixelFormat) on \(pixelFormat)")
        }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + overlay.width), y1 = min(height, y + overlay.height)
        guard x1 > x0, y1 > y0 else { return }
        let target = planes[0], source = overlay.planes[0]
        for row in y0..<y1 {
            let out = storage.base + target.offset + row * target.bytesPerRow
            let input = overlay.storage.base + source.offset + (row - y) * source.bytesPerRow
            for column in x0..<x1 {
                let o = out + column * 4
                let i = input + (column - x) * 4
                let alpha = UInt32(i.load(fromByteOffset: 3, as: UInt8.self))
                if alpha == 0 { continue }
                for channel in 0..<3 {
                    let s = UInt32(i.load(fromByteOffset: channel, as: UInt8.self))
                    let d = UInt32(o.load(fromByteOffset: channel, as: UInt8.self))
                    o.storeBytes(of: UInt8((s * alpha + d * (255 - alpha) + 127) / 255), toByteOffset: channel, as: UInt8.self)
                }
                let d = UInt32(o.load(fromByteOffset: 3, as: UInt8.self))
                o.storeBytes(of: UInt8(alpha + (d * (255 - alpha) + 127) / 255), toByteOffset: 3, as: UInt8.self)
            }
        }
    }
}

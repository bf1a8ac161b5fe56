extension PixelBuffer {
    /// A new buffer holding this picture turned (and perhaps mirrored) by `orientation`,
    /// as a viewer would display it: `.right` turns it 90° clockwise.
    ///
    /// Works plane by plane, so planar and semi-planar YUV turn without a detour
    /// through RGB. Packed 4:2:2 (`yuyv422`) cannot be turned a quarter without
    /// resampling chroma and is refused.
    /// - Parameter orientation: How a viewer would turn this picture for display.
    /// - Returns: A new picture with the turn applied to its pixels (width and height swapped
    ///   for a quarter turn), to show upright where no viewer reads the orientation.
    /// - Throws: ``ReelError`` `.unsupported` for `yuyv422` with a quarter turn.
    public func oriented(_ orientation: Orientation) throws(ReelError) -> PixelBuffer {
        let swaps = orientation.swapsDimensions
        if swaps, pixelFormat == .yuyv422 {
            throw ReelError(.unsupported, "cannot turn yuyv422 pictures a quarter; convert to yuv420p first")
        }
        let result = try PixelBuffer(width: swaps ? height : width, height: swaps ? width : height,
                                     pixelFormat: pixelFormat)
        for (index, source) in planes.enumerated() {
            let target = result.planes[index]
            let elementSize = source.bytesPerRowOfPixels / max(source.width, 1)
            let sourceBase = storage.base + source.offset
            let targetBase = result.storage.base + target.offset
            let w = source.width, h = source.height
            for y in 0..<target.height {
                let targetRow = targetBase + y * target.bytesPerRow
                for x in 0..<target.width {
                    // (x, y) in the output comes from (sx, sy) in the mirrored-or-not source.
                    var (sx, sy): (Int, Int)
                    switch orientation.rotationDegrees {
                    case 90: (sx, sy) = (y, h - 1 - x)
                    case 180: (sx, sy) = (w - 1 - x, h - 1 - y)
                    case 270: (sx, sy) = (w - 1 - y, x)
                    default: (sx, sy) = (x, y)
                    }
                    if orientation.isMirrored { sx = w - 1 - sx }
                    (targetRow + x * elementSize).copyMemory(
                        from: sourceBase + sy * source.bytesPerRow + sx * elementSize, byteCount: elementSize)
                }
            }
        }
        return result
    }
}

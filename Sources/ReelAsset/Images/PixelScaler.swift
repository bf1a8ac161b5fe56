import ReelAV
public import ReelCore

/// Scales and converts pictures between sizes and pixel formats with libswscale.
public enum PixelScaler {
    /// Writes `source` into `target`, scaled to its size and converted to its format (bicubic).
    /// - Parameters:
    ///   - source: the picture to read.
    ///   - target: the picture to write, of any size and supported format.
    /// - Throws: ``ReelError`` with libswscale's message when the conversion cannot be made.
    public static func scale(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        try Scaler().convert(source, into: target)
    }

    /// A new picture of `source` in `format`, at `width`×`height` (default: the same size).
    /// - Parameters:
    ///   - source: the picture to read.
    ///   - format: the new picture's pixel format.
    ///   - width: its width, or nil for the source's.
    ///   - height: its height, or nil for the source's.
    /// - Returns: the new picture.
    /// - Throws: ``ReelError`` for a size outside a pixel buffer's limits, or libswscale's message.
    public static func converted(_ source: PixelBuffer, to format: PixelFormat, width: Int? = nil,
                                 height: Int? = nil) throws(ReelError) -> PixelBuffer {
        let target = try PixelBuffer(width: width ?? source.width, height: height ?? source.height, pixelFormat: format)
        try scale(source, into: target)
        return target
    }
}

import ReelAV
public import ReelCore

/// Scales and converts pictures between sizes and pixel formats with libswscale.
public enum PixelScaler {
    /// Writes `source` into `target`, scaled to its size and converted to its format (bicubic).
    public static func scale(_ source: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        try Scaler().convert(source, into: target)
    }

    /// A new picture of `source` in `format`, at `width`×`height` (default: the same size).
    public static func converted(_ source: PixelBuffer, to format: PixelFormat, width: Int? = nil,
                                 height: Int? = nil) throws(ReelError) -> PixelBuffer {
        let target = try PixelBuffer(width: width ?? source.width, height: height ?? source.height, pixelFormat: format)
        try scale(source, into: target)
        return target
    }
}

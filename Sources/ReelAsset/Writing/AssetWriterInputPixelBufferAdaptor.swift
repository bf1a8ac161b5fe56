public import ReelCore

/// Appends bare pixel buffers to a video input, from a pool of the input's size.
/// `AVAssetWriterInputPixelBufferAdaptor`.
public final class AssetWriterInputPixelBufferAdaptor: @unchecked Sendable {
    public let assetWriterInput: AssetWriterInput
    /// The format of the pictures the caller will append (`kCVPixelBufferPixelFormatTypeKey`);
    /// Reel converts them to the encoder's format.
    public let sourcePixelFormat: PixelFormat
    /// Buffers of the input's size in ``sourcePixelFormat``, to fill and append.
    /// `pixelBufferPool`.
    public let pixelBufferPool: PixelBufferPool?

    /// - Parameters:
    ///   - assetWriterInput: the video input the pictures are appended to.
    ///   - sourcePixelFormat: what will be appended: `.bgra` from a filter, `.yuv420p`
    ///     or `.nv12` from a camera.
    public init(assetWriterInput: AssetWriterInput, sourcePixelFormat: PixelFormat = .yuv420p) {
        self.assetWriterInput = assetWriterInput
        self.sourcePixelFormat = sourcePixelFormat
        assetWriterInput.sourcePixelFormat = sourcePixelFormat
        if let settings = assetWriterInput.videoSettings {
            pixelBufferPool = try? PixelBufferPool(width: settings.width, height: settings.height,
                                                   pixelFormat: sourcePixelFormat)
        } else {
            pixelBufferPool = nil
        }
    }

    /// Appends a picture shown from `presentationTime` until the next one.
    /// `append(_:withPresentationTime:)`.
    /// - Parameters:
    ///   - pixelBuffer: the picture, in the adaptor's source pixel format.
    ///   - presentationTime: when it is shown, later than the previous picture's.
    /// - Throws: as ``AssetWriterInput/append(_:)``.
    public func append(_ pixelBuffer: PixelBuffer, withPresentationTime presentationTime: MediaTime) throws(ReelError) {
        try assetWriterInput.appendVideo(pixelBuffer, at: presentationTime, duration: .invalid)
    }
}

public import ReelCore

/// How an ``AssetReaderTrackOutput`` hands out video: the pixel format and, if set,
/// the size to scale to. The counterpart of the `kCVPixelBuffer…Key` settings dictionary.
public struct VideoOutputSettings: Sendable, Hashable {
    public var pixelFormat: PixelFormat
    /// Width to scale to; nil keeps the track's (or derives it from `height` by aspect).
    public var width: Int?
    /// Height to scale to; nil keeps the track's (or derives it from `width` by aspect).
    public var height: Int?
    /// The YCbCr matrix the pictures are handed out in; nil for ``ColorMatrix``'s rule at their
    /// height (BT.601 below 720 lines). A composition's sources take its output's, so that a
    /// clip scaled across 720 lines keeps its colours in the output.
    package var colorMatrix: ColorMatrix?

    /// Settings for a video output.
    /// - Parameters:
    ///   - pixelFormat: The format of the pictures handed out (converted when the track's differs).
    ///   - width: The width to scale to; nil keeps the track's, or follows `height` by aspect.
    ///   - height: The height to scale to; nil keeps the track's, or follows `width` by aspect.
    public init(pixelFormat: PixelFormat = .yuv420p, width: Int? = nil, height: Int? = nil) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
    }
}

/// How an ``AssetReaderTrackOutput`` hands out audio. Any field left nil keeps the track's.
public struct AudioOutputSettings: Sendable, Hashable {
    public var sampleFormat: SampleFormat
    public var sampleRate: Int?
    public var channelCount: Int?

    /// Settings for an audio output.
    /// - Parameters:
    ///   - sampleFormat: The format of the samples handed out.
    ///   - sampleRate: The rate to resample to; nil keeps the track's.
    ///   - channelCount: The channels to mix to; nil keeps the track's.
    public init(sampleFormat: SampleFormat = .floatPlanar, sampleRate: Int? = nil, channelCount: Int? = nil) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }
}

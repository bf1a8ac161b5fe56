public import ReelCore

/// How to take one photo. `AVCapturePhotoSettings`.
public struct PhotoSettings: Sendable, Hashable {
    /// The file format. `AVVideoCodecKey`.
    public enum Codec: Sendable, Hashable {
        /// JPEG at `quality` from 0 (smallest) to 1 (best). `AVVideoQualityKey`.
        case jpeg(quality: Double)
        /// Lossless PNG.
        case png
    }

    public var codec: Codec
    /// `flashMode`: `.auto` fires when the scene is dark.
    public var flashMode: CaptureDevice.FlashMode
    /// Scale the photo to fit within this size (nil: the session's frame size).
    /// `maxPhotoDimensions`.
    public var maxPhotoDimensions: Size?
    /// How the picture is to be turned for display (recorded in EXIF; the pixels are
    /// stored as captured), as the device's orientation gives it.
    public var orientation: Orientation

    /// Settings for one photo. `AVCapturePhotoSettings(format:)`.
    /// - Parameters:
    ///   - codec: JPEG (with its quality) or PNG.
    ///   - flashMode: Whether the flash fires; a mode the device lacks is taken as `.off`.
    ///   - maxPhotoDimensions: The largest size to store; nil for the session's frame size.
    ///   - orientation: The EXIF orientation to record (the pixels stay as captured).
    public init(codec: Codec = .jpeg(quality: 0.9), flashMode: CaptureDevice.FlashMode = .off,
                maxPhotoDimensions: Size? = nil, orientation: Orientation = .up) {
        self.codec = codec
        self.flashMode = flashMode
        self.maxPhotoDimensions = maxPhotoDimensions
        self.orientation = orientation
    }
}

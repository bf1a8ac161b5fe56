public import Foundation
public import ReelCore

/// What a photo says about itself, written into the file as EXIF (an APP1 segment in a
/// JPEG, an `eXIf` chunk in a PNG), where photo libraries and `exiftool` read it.
/// The counterpart of `AVCapturePhoto.metadata`.
public struct ImageMetadata: Sendable, Hashable {
    /// The camera maker and model (`Make`, `Model`).
    public var make: String?
    public var model: String?
    /// `Software`.
    public var software: String? = "Reel"
    /// When the picture was taken (`DateTimeOriginal`), in the machine's time zone.
    public var date: Date?
    /// How to turn the stored picture for display (`Orientation`).
    public var orientation: Orientation = .up
    /// Whether a flash fired, and in which mode it was (`Flash`).
    public var flashFired = false
    public var flashMode: FlashSetting = .off
    /// The picture's size (`PixelXDimension`, `PixelYDimension`); filled in on writing.
    public var width = 0
    public var height = 0

    /// The flash mode a photo was taken with, as EXIF records it.
    public enum FlashSetting: String, Sendable, Hashable, Codable {
        case off, on, auto
    }

    /// The EXIF to write with a photo.
    /// - Parameters:
    ///   - make: The camera's maker (`Make`); nil leaves it out.
    ///   - model: The camera's model (`Model`); nil leaves it out.
    ///   - date: When it was taken (`DateTimeOriginal`); nil leaves it out.
    ///   - orientation: How a viewer turns the stored pixels for display.
    ///   - flashFired: Whether the flash fired.
    ///   - flashMode: The flash mode the photo was taken in.
    public init(make: String? = nil, model: String? = nil, date: Date? = nil, orientation: Orientation = .up,
                flashFired: Bool = false, flashMode: FlashSetting = .off) {
        self.make = make
        self.model = model
        self.date = date
        self.orientation = orientation
        self.flashFired = flashFired
        self.flashMode = flashMode
    }

    /// The EXIF `Orientation` value, 1–8.
    public var exifOrientation: UInt16 {
        switch orientation {
        case .up: 1
        case .upMirrored: 2
        case .down: 3
        case .downMirrored: 4
        case .leftMirrored: 5
        case .right: 6
        case .rightMirrored: 7
        case .left: 8
        }
    }

    /// The EXIF `Flash` value: whether it fired, and the mode.
    var exifFlash: UInt16 {
        let fired: UInt16 = flashFired ? 1 : 0
        switch flashMode {
        case .off: return 0x10
        case .on: return 0x08 | fired
        case .auto: return 0x18 | fired
        }
    }
}

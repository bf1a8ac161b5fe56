public import ReelCore

/// Which way up the picture of a connection is meant to be seen. `AVCaptureVideoOrientation`.
///
/// The sensor's own orientation is ``landscapeRight`` (a phone held sideways with its
/// home button on the right): pictures in that orientation need no turn. The raw values
/// are AVFoundation's, so seed 003's cast from a device orientation ports as
/// `CaptureVideoOrientation(rawValue: deviceOrientation.rawValue)`.
public enum CaptureVideoOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Upright, the device held with its home button at the bottom: turned 90° clockwise for display.
    case portrait = 1
    /// Upside down: turned 270° clockwise.
    case portraitUpsideDown = 2
    /// Sideways with the home button on the right: the sensor's orientation, no turn.
    case landscapeRight = 3
    /// Sideways with the home button on the left: turned 180°.
    case landscapeLeft = 4

    /// The clockwise turn for display, in degrees: `videoRotationAngle`'s value for this orientation.
    public var rotationAngle: Int {
        switch self {
        case .landscapeRight: 0
        case .portrait: 90
        case .landscapeLeft: 180
        case .portraitUpsideDown: 270
        }
    }

    /// The orientation of a clockwise turn of `degrees` (0, 90, 180 or 270, any multiple of
    /// 90 taken modulo 360), or nil for any other angle.
    /// - Parameter degrees: The clockwise turn, as `AVCaptureConnection.videoRotationAngle` takes it.
    public init?(rotationAngle degrees: Double) {
        guard degrees.isFinite, degrees.rounded() == degrees, abs(degrees) <= 3600 else { return nil }
        switch ((Int(degrees) % 360) + 360) % 360 {
        case 0: self = .landscapeRight
        case 90: self = .portrait
        case 180: self = .landscapeLeft
        case 270: self = .portraitUpsideDown
        default: return nil
        }
    }

    /// The orientation a recording should have when the device is held `device` way up,
    /// as seed 003 sets it from gravity. Face up, face down and unknown give nil (keep the
    /// last one).
    /// - Parameter device: Which way up the device is held (from an ``OrientationSource``).
    public init?(_ device: DeviceOrientation) {
        switch device {
        case .portrait: self = .portrait
        case .portraitUpsideDown: self = .portraitUpsideDown
        // The device turned left puts the home button on the right, and the other way round.
        case .landscapeLeft: self = .landscapeRight
        case .landscapeRight: self = .landscapeLeft
        case .unknown, .faceUp, .faceDown: return nil
        }
    }

    /// The ``Orientation`` a viewer turns the sensor's picture by, mirrored left to right
    /// after turning when `mirrored` (as `isVideoMirrored` does): the EXIF orientation of a
    /// photo, the display matrix of a movie.
    /// - Parameter mirrored: Whether the connection mirrors the pictures (``CaptureConnection/isVideoMirrored``).
    /// - Returns: The orientation to record, so that a viewer shows the picture upright as the
    ///   user held the device.
    public func displayOrientation(mirrored: Bool) -> Orientation {
        // Mirroring after a turn of θ is mirroring before a turn of −θ.
        let degrees = mirrored ? (360 - rotationAngle) % 360 : rotationAngle
        return Orientation(rotationDegrees: degrees, mirrored: mirrored) ?? .up
    }
}

import Foundation

/// Which way up the device is held. `UIDeviceOrientation`, with the raw values of UIKit.
public enum DeviceOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    case unknown = 0
    /// Upright, the home button (or the bottom edge) down.
    case portrait = 1
    /// Upside down.
    case portraitUpsideDown = 2
    /// On its side with the home button (the bottom edge) on the right.
    case landscapeLeft = 3
    /// The home button on the left.
    case landscapeRight = 4
    /// Lying on its back.
    case faceUp = 5
    /// Lying on its face.
    case faceDown = 6

    /// The orientation gravity gives, as seed 003 works it out from Core Motion's
    /// `deviceMotion.gravity` (in g, x to the right of the screen, y up it, z out of it):
    /// whichever of x and y is larger decides; y ≥ 0 is upside down, y < 0 upright,
    /// x ≥ 0 ``landscapeRight``, x < 0 ``landscapeLeft``. A device lying flat (|z| above
    /// 0.9 g) is face up or down; no gravity at all is ``unknown``.
    /// - Parameters:
    ///   - x: Gravity along the screen's width, in g (positive to the right).
    ///   - y: Gravity along the screen's height, in g (positive up).
    ///   - z: Gravity out of the screen, in g; near ±1 the device lies flat.
    public init(gravityX x: Double, y: Double, z: Double = 0) {
        guard x.isFinite, y.isFinite, z.isFinite, abs(x) + abs(y) + abs(z) > 0.1 else {
            self = .unknown
            return
        }
        if abs(z) > 0.9 {
            self = z < 0 ? .faceUp : .faceDown
        } else if abs(y) >= abs(x) {
            self = y >= 0 ? .portraitUpsideDown : .portrait
        } else {
            self = x >= 0 ? .landscapeRight : .landscapeLeft
        }
    }

    /// The orientation iio-sensor-proxy reports as `AccelerometerOrientation`: `normal`,
    /// `bottom-up`, `left-up`, `right-up` (the edge of the screen that is up), or nil for
    /// `undefined` and anything else.
    /// - Parameter name: The property's value as `gdbus` prints it; quotes, brackets and
    ///   whitespace around it are ignored.
    public init?(sensorProxyName name: String) {
        switch name.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "'\"<>(),"))) {
        case "normal": self = .portrait
        case "bottom-up": self = .portraitUpsideDown
        // The screen's left edge up: turned clockwise, the bottom edge on the left.
        case "left-up": self = .landscapeRight
        case "right-up": self = .landscapeLeft
        default: return nil
        }
    }

    /// Whether the device is upright or upside down. `isPortrait`.
    public var isPortrait: Bool { self == .portrait || self == .portraitUpsideDown }
    /// Whether it is on its side. `isLandscape`.
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }
}

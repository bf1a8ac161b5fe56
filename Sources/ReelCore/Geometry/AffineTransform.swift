import Foundation

/// A 2-D affine transform in `CGAffineTransform`'s layout and conventions.
///
/// A point `(x, y)` maps to `(a·x + c·y + tx, b·x + d·y + ty)`. Frames have their
/// y axis pointing down, so a positive rotation angle turns a picture clockwise on
/// screen. This is the layout of the QuickTime track matrix and FFmpeg's display
/// matrix, so a track's `preferredTransform` reads straight from the file.
public struct AffineTransform: Sendable, Hashable, Codable {
    public var a: Double
    public var b: Double
    public var c: Double
    public var d: Double
    public var tx: Double
    public var ty: Double

    /// A transform from its six coefficients, as a track matrix stores them.
    /// - Parameters:
    ///   - a: x's factor in the new x.
    ///   - b: x's factor in the new y.
    ///   - c: y's factor in the new x.
    ///   - d: y's factor in the new y.
    ///   - tx: Added to the new x.
    ///   - ty: Added to the new y.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    /// The transform that changes nothing. `CGAffineTransform.identity`.
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A translation. `CGAffineTransform(translationX:y:)`.
    /// - Parameters:
    ///   - x: How far right to move.
    ///   - y: How far down to move.
    public init(translationX x: Double, y: Double) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// A scale about the origin. `CGAffineTransform(scaleX:y:)`.
    /// - Parameters:
    ///   - sx: The horizontal factor (negative mirrors).
    ///   - sy: The vertical factor (negative flips).
    public init(scaleX sx: Double, y sy: Double) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// A rotation about the origin by `angle` radians, clockwise on screen.
    /// Multiples of π/2 are exact (no 6e-17 residue), so orientation checks can compare with `==`.
    /// - Parameter angle: The turn in radians.
    public init(rotationAngle angle: Double) {
        let quarterTurns = angle / (Double.pi / 2)
        // Beyond 2^52 every Double is a whole number of quarter turns, and beyond Int's range
        // the conversion would trap: only exact small multiples take the exact path.
        if quarterTurns == quarterTurns.rounded(), abs(quarterTurns) < 0x1p52 {
            let turns = ((Int(quarterTurns) % 4) + 4) % 4
            let (cosine, sine): (Double, Double) = [(1, 0), (0, 1), (-1, 0), (0, -1)][turns]
            self.init(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
        } else if angle.isFinite {
            self.init(a: cos(angle), b: sin(angle), c: -sin(angle), d: cos(angle), tx: 0, ty: 0)
        } else {
            self.init(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        }
    }

    public var isIdentity: Bool { self == .identity }

    /// `self` followed by `other`: mapping a point by the result equals mapping it by
    /// `self`, then by `other`. `CGAffineTransform.concatenating(_:)`.
    /// - Parameter other: The transform applied second.
    /// - Returns: One transform doing both.
    public func concatenating(_ other: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * other.a + b * other.c,
                        b: a * other.b + b * other.d,
                        c: c * other.a + d * other.c,
                        d: c * other.b + d * other.d,
                        tx: tx * other.a + ty * other.c + other.tx,
                        ty: tx * other.b + ty * other.d + other.ty)
    }

    /// A translation applied before this transform. `CGAffineTransform.translatedBy(x:y:)`.
    /// - Parameters:
    ///   - x: How far right to move first.
    ///   - y: How far down to move first.
    /// - Returns: The combined transform.
    public func translatedBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(translationX: x, y: y).concatenating(self)
    }

    /// A scale applied before this transform. `CGAffineTransform.scaledBy(x:y:)`.
    /// - Parameters:
    ///   - x: The horizontal factor applied first.
    ///   - y: The vertical factor applied first.
    /// - Returns: The combined transform.
    public func scaledBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(scaleX: x, y: y).concatenating(self)
    }

    /// A rotation applied before this transform. `CGAffineTransform.rotated(by:)`.
    /// - Parameter angle: The turn applied first, in radians, clockwise on screen.
    /// - Returns: The combined transform.
    public func rotated(by angle: Double) -> AffineTransform {
        AffineTransform(rotationAngle: angle).concatenating(self)
    }

    /// The determinant of the linear part; negative when the transform mirrors.
    public var determinant: Double { a * d - b * c }

    /// The transform that undoes this one, or nil when it is singular.
    /// (`CGAffineTransform.inverted()` returns the input unchanged instead; nil is safer.)
    /// - Returns: The inverse, to map a point on screen back into the picture; nil for a
    ///   transform that squashes the picture to a line or a point.
    public func inverted() -> AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        return AffineTransform(a: d / det, b: -b / det, c: -c / det, d: a / det,
                               tx: (c * ty - d * tx) / det,
                               ty: (b * tx - a * ty) / det)
    }

    /// Whether the linear part is a pure translation (a = d = 1, b = c = 0).
    public var isTranslationOnly: Bool { a == 1 && b == 0 && c == 0 && d == 1 }

    /// The orientation this transform gives a picture: its quarter turn and whether it
    /// mirrors, read from the signs of the linear part. Nil for a transform that is
    /// not a multiple of 90° (a shear, or a free rotation).
    public var orientation: Orientation? {
        Orientation(transform: self)
    }

    /// The picture's clockwise rotation in degrees, 0 ≤ r < 360.
    public var rotationDegrees: Double {
        let det = determinant
        // For a mirrored transform, measure the rotation that follows the horizontal flip.
        let (x, y) = det < 0 ? (-a, -b) : (a, b)
        var degrees = atan2(y, x) * 180 / .pi
        if degrees < 0 { degrees += 360 }
        if degrees >= 360 { degrees -= 360 }
        return degrees
    }
}

extension AffineTransform: CustomStringConvertible {
    public var description: String { "[\(a) \(b) \(c) \(d) \(tx) \(ty)]" }
}

/// Core Graphics' name, so that transforms in ported iOS code compile unchanged.
/// (Foundation on Linux has `CGPoint`, `CGSize` and `CGRect` but no `CGAffineTransform`;
/// its own `AffineTransform` is a different type, so files that import both Foundation
/// and ReelCore either use this name or qualify `ReelCore.AffineTransform`.)
public typealias CGAffineTransform = AffineTransform

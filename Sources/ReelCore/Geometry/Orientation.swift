/// The way a stored picture must be turned (and perhaps mirrored) for display.
///
/// Names follow `UIImage.Orientation` as iOS code derives it from a track's
/// `preferredTransform`: a portrait iPhone clip, whose transform is
/// `(a: 0, b: 1, c: -1, d: 0)`, is ``right`` — its picture turns 90° clockwise.
/// The mirrored forms flip the picture horizontally first, then turn it.
public enum Orientation: Sendable, Hashable, CaseIterable {
    case up
    /// Turned 180°.
    case down
    /// Turned 90° counter-clockwise (270° clockwise).
    case left
    /// Turned 90° clockwise.
    case right
    case upMirrored
    case downMirrored
    case leftMirrored
    case rightMirrored

    /// The clockwise quarter-turn in degrees: 0, 90, 180 or 270.
    public var rotationDegrees: Int {
        switch self {
        case .up, .upMirrored: 0
        case .right, .rightMirrored: 90
        case .down, .downMirrored: 180
        case .left, .leftMirrored: 270
        }
    }

    /// Whether the picture is flipped horizontally before it is turned.
    public var isMirrored: Bool {
        switch self {
        case .up, .down, .left, .right: false
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: true
        }
    }

    /// Whether display swaps width and height.
    public var swapsDimensions: Bool { rotationDegrees % 180 != 0 }

    /// The orientation of a clockwise turn of `degrees` (any multiple of 90, negative allowed),
    /// mirrored or not. Nil when `degrees` is not a multiple of 90.
    /// - Parameters:
    ///   - degrees: The clockwise turn.
    ///   - mirrored: Whether the picture is also flipped left to right (after turning).
    public init?(rotationDegrees degrees: Int, mirrored: Bool = false) {
        guard degrees % 90 == 0 else { return nil }
        switch (((degrees % 360) + 360) % 360, mirrored) {
        case (0, false): self = .up
        case (90, false): self = .right
        case (180, false): self = .down
        case (270, false): self = .left
        case (0, true): self = .upMirrored
        case (90, true): self = .rightMirrored
        case (180, true): self = .downMirrored
        default: self = .leftMirrored
        }
    }

    /// The orientation of the linear part of `transform`, or nil when it is no multiple of 90°.
    /// - Parameter t: A track's `preferredTransform` or display matrix; its translation is ignored.
    public init?(transform t: AffineTransform) {
        let tolerance = 1e-6
        func sign(_ v: Double) -> Int? {
            if abs(v) < tolerance { return 0 }
            return v > 0 ? 1 : -1
        }
        guard let a = sign(t.a), let b = sign(t.b), let c = sign(t.c), let d = sign(t.d) else { return nil }
        let mirrored = t.determinant < 0
        // A quarter turn R has c = -b, d = a; a flip followed by R has c = b, d = -a.
        let consistent = mirrored ? (c == b && d == -a) : (c == -b && d == a)
        guard consistent else { return nil }
        let (ra, rb) = mirrored ? (-a, -b) : (a, b)
        let degrees: Int
        switch (ra, rb) {
        case (1, 0): degrees = 0
        case (0, 1): degrees = 90
        case (-1, 0): degrees = 180
        case (0, -1): degrees = 270
        default: return nil
        }
        self.init(rotationDegrees: degrees, mirrored: mirrored)
    }

    /// The transform that displays a picture of `size` in this orientation, with the
    /// result moved back so that it starts at the origin, as AVFoundation writes it.
    /// - Parameter size: The stored picture's size.
    /// - Returns: The matrix to write as a track's `preferredTransform`.
    public func transform(for size: Size) -> AffineTransform {
        var linear = AffineTransform.identity
        if isMirrored { linear = AffineTransform(scaleX: -1, y: 1) }
        linear = linear.concatenating(AffineTransform(rotationAngle: Double(rotationDegrees) * .pi / 180))
        let bounds = Rect(origin: .zero, size: size).applying(linear)
        return linear.concatenating(AffineTransform(translationX: -bounds.minX, y: -bounds.minY))
    }
}

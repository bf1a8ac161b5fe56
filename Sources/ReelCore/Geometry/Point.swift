/// A point in a plane whose y axis points down, as in video frames and `CGPoint`.
public struct Point: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double

    /// A point from its coordinates.
    /// - Parameters:
    ///   - x: Rightwards from the origin.
    ///   - y: Downwards from the origin.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    /// The point mapped by `transform`. `CGPoint.applying(_:)`.
    /// - Parameter transform: The transform to map by.
    /// - Returns: Where the point lands.
    public func applying(_ transform: AffineTransform) -> Point {
        Point(x: transform.a * x + transform.c * y + transform.tx,
              y: transform.b * x + transform.d * y + transform.ty)
    }
}

/// A width and a height. `CGSize`.
public struct Size: Sendable, Hashable, Codable {
    public var width: Double
    public var height: Double

    /// A size from its sides.
    /// - Parameters:
    ///   - width: The width.
    ///   - height: The height.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// A size from whole pixels.
    /// - Parameters:
    ///   - width: The width in pixels.
    ///   - height: The height in pixels.
    public init(width: Int, height: Int) {
        self.init(width: Double(width), height: Double(height))
    }

    public static let zero = Size(width: 0, height: 0)

    /// The size mapped by the linear part of `transform` (translation ignored); the
    /// components may come out negative, as with `CGSize.applying(_:)`.
    /// - Parameter transform: The transform to map by.
    /// - Returns: The mapped width and height (a quarter turn swaps them).
    public func applying(_ transform: AffineTransform) -> Size {
        Size(width: transform.a * width + transform.c * height,
             height: transform.b * width + transform.d * height)
    }
}

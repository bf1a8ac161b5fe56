/// A width and a height. `CGSize`.
public struct Size: Sendable, Hashable, Codable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public init(width: Int, height: Int) {
        self.init(width: Double(width), height: Double(height))
    }

    public static let zero = Size(width: 0, height: 0)

    /// The size mapped by the linear part of `transform` (translation ignored); the
    /// components may come out negative, as with `CGSize.applying(_:)`.
    public func applying(_ transform: AffineTransform) -> Size {
        Size(width: transform.a * width + transform.c * height,
             height: transform.b * width + transform.d * height)
    }
}

/// An origin and a size. `CGRect`.
public struct Rect: Sendable, Hashable, Codable {
    public var origin: Point
    public var size: Size

    /// A rectangle from its top-left corner and size.
    /// - Parameters:
    ///   - origin: The top-left corner.
    ///   - size: The width and height.
    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    /// A rectangle from its coordinates.
    /// - Parameters:
    ///   - x: The left edge.
    ///   - y: The top edge.
    ///   - width: The width.
    ///   - height: The height.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    public static let zero = Rect(origin: .zero, size: .zero)

    public var minX: Double { min(origin.x, origin.x + size.width) }
    public var minY: Double { min(origin.y, origin.y + size.height) }
    public var maxX: Double { max(origin.x, origin.x + size.width) }
    public var maxY: Double { max(origin.y, origin.y + size.height) }
    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }
    public var midX: Double { (minX + maxX) / 2 }
    public var midY: Double { (minY + maxY) / 2 }

    /// True when the rectangle has no area.
    public var isEmpty: Bool { size.width == 0 || size.height == 0 }

    /// The smallest rectangle that holds this one mapped by `transform`. `CGRect.applying(_:)`.
    /// - Parameter transform: The transform to map by.
    /// - Returns: The bounding box of the mapped corners.
    public func applying(_ transform: AffineTransform) -> Rect {
        let corners = [Point(x: minX, y: minY), Point(x: maxX, y: minY),
                       Point(x: minX, y: maxY), Point(x: maxX, y: maxY)].map { $0.applying(transform) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let lowX = xs.min() ?? 0, lowY = ys.min() ?? 0
        return Rect(x: lowX, y: lowY, width: (xs.max() ?? 0) - lowX, height: (ys.max() ?? 0) - lowY)
    }

    /// The overlap of two rectangles, or ``zero`` when they are apart.
    /// - Parameter other: The other rectangle.
    /// - Returns: The part both cover.
    public func intersection(_ other: Rect) -> Rect {
        let x0 = max(minX, other.minX), y0 = max(minY, other.minY)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether `point` lies inside, the right and bottom edges excluded.
    /// - Parameter point: The point to test.
    /// - Returns: True inside; so adjacent rectangles never both contain a point.
    public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }
}

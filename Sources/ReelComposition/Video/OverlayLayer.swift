import Foundation
public import ReelCore

/// A layer drawn over the composed video: a solid colour, a picture or text, with
/// keyframe animations of its opacity, position, scale and rotation. The counterpart
/// of the `CALayer` tree given to `AVVideoCompositionCoreAnimationTool`.
///
/// Geometry is in render pixels with the origin at the top left and y down, which is
/// what the seed's `animateLayer.isGeometryFlipped = true` asks Core Animation for:
/// code that sets `isGeometryFlipped` ports with frames unchanged.
public final class OverlayLayer: @unchecked Sendable {
    /// What the layer draws.
    public enum Content: Sendable {
        /// Nothing but its sublayers (the seed's `animateLayer`).
        case none
        /// A colour, R, G, B from 0 to 1.
        case color(red: Double, green: Double, blue: Double)
        /// A picture, stretched to the frame.
        case image(PixelBuffer)
        /// Text in a font size (pixels) and colour (`#RRGGBB` or a name).
        case text(String, fontSize: Int, color: String)
    }

    public var content: Content
    /// Position and size in render pixels. `frame`.
    public var frame: Rect
    /// 0 to 1. `opacity`.
    public var opacity: Double
    /// For text content: drawn with this style (font family and weight, outline, shadow, box,
    /// alignment, wrapping in the frame's width) rather than plain, when set. Its size and
    /// colour replace the content's. `CATextLayer`'s font properties.
    public var textStyle: TextStyle?
    /// For styled text: words or lines appearing one at a time.
    public var textReveal: TextReveal?
    public private(set) var sublayers: [OverlayLayer] = []
    public private(set) var animations: [KeyframeAnimation] = []

    /// A layer from its content and place. `CALayer()` with `frame` and `opacity` set.
    /// - Parameters:
    ///   - content: What it draws: a colour, an image or text, or nothing (a group).
    ///   - frame: Its place and size in render pixels.
    ///   - opacity: 0 (invisible) to 1.
    public init(content: Content = .none, frame: Rect, opacity: Double = 1) {
        self.content = content
        self.frame = frame
        self.opacity = opacity
    }

    /// `addSublayer(_:)`.
    /// Adds a layer drawn over this one's content, in its coordinates.
    /// - Parameter layer: The sublayer.
    public func addSublayer(_ layer: OverlayLayer) { sublayers.append(layer) }

    /// `add(_:forKey:)`.
    /// Adds an animation of one of the layer's properties.
    /// - Parameter animation: The animation; later ones of the same property win.
    public func add(_ animation: KeyframeAnimation) { animations.append(animation) }

    /// The layer's state at composition time `time`, with every animation applied.
    /// - Parameter time: The composition time.
    /// - Returns: What to draw then: opacity, centre, scale and rotation.
    public func presentation(at time: MediaTime) -> (opacity: Double, position: Point, scale: Double, rotation: Double) {
        var state = (opacity: opacity, position: Point(x: frame.midX, y: frame.midY), scale: 1.0, rotation: 0.0)
        for animation in animations {
            guard let value = animation.value(at: time.seconds) else { continue }
            switch animation.keyPath {
            // An overshooting easing may carry opacity past 0 or 1; it is held there.
            case .opacity: state.opacity = min(max(value.x, 0), 1)
            case .position: state.position = Point(x: value.x, y: value.y)
            case .scale: state.scale = value.x
            case .rotation: state.rotation = value.x
            }
        }
        return state
    }
}

/// Values a layer property takes at fractions of a duration. `CAKeyframeAnimation`.
public struct KeyframeAnimation: Sendable {
    /// The animatable properties. `keyPath`.
    public enum KeyPath: String, Sendable {
        case opacity
        /// The layer's centre, in render pixels.
        case position
        /// `transform.scale`.
        case scale
        /// `transform.rotation.z`, radians clockwise on screen.
        case rotation
    }

    public var keyPath: KeyPath
    /// The values (`x` only for scalars). `values`.
    public var values: [Point]
    /// Where each value falls, as fractions 0…1 of the duration; evenly spread when empty. `keyTimes`.
    public var keyTimes: [Double]
    /// Seconds on the composition's timeline. `beginTime` (the seed's `AVCoreAnimationBeginTimeAtZero` is 0 here).
    public var beginTime: Double
    public var duration: Double
    /// When false, the last value holds after the end. `isRemovedOnCompletion`.
    public var isRemovedOnCompletion: Bool
    /// How each segment (from one value to the next) eases: one per segment, the last one
    /// repeating for any segments beyond; linear when empty. `timingFunctions`.
    public var timingFunctions: [MediaTimingFunction] = []

    /// An animation of a scalar property (opacity, scale, rotation).
    /// - Parameters:
    ///   - keyPath: The property.
    ///   - values: Its values in order.
    ///   - keyTimes: Where each falls, fractions 0…1 of the duration; empty spreads them evenly.
    ///   - beginTime: When it starts, in composition seconds.
    ///   - duration: How long it runs, in seconds.
    ///   - isRemovedOnCompletion: False to hold the last value after the end.
    ///   - timingFunctions: How each segment eases (one per segment; linear when empty).
    public init(keyPath: KeyPath, values: [Double], keyTimes: [Double] = [], beginTime: Double, duration: Double,
                isRemovedOnCompletion: Bool = true, timingFunctions: [MediaTimingFunction] = []) {
        self.init(keyPath: keyPath, points: values.map { Point(x: $0, y: 0) }, keyTimes: keyTimes, beginTime: beginTime,
                  duration: duration, isRemovedOnCompletion: isRemovedOnCompletion, timingFunctions: timingFunctions)
    }

    /// An animation of a point property (position).
    /// - Parameters:
    ///   - keyPath: The property.
    ///   - points: Its values in order.
    ///   - keyTimes: Where each falls, fractions 0…1 of the duration; empty spreads them evenly.
    ///   - beginTime: When it starts, in composition seconds.
    ///   - duration: How long it runs, in seconds.
    ///   - isRemovedOnCompletion: False to hold the last value after the end.
    ///   - timingFunctions: How each segment eases (one per segment; linear when empty).
    public init(keyPath: KeyPath, points: [Point], keyTimes: [Double] = [], beginTime: Double, duration: Double,
                isRemovedOnCompletion: Bool = true, timingFunctions: [MediaTimingFunction] = []) {
        self.keyPath = keyPath
        values = points
        self.keyTimes = keyTimes
        self.beginTime = beginTime
        self.duration = duration
        self.isRemovedOnCompletion = isRemovedOnCompletion
        self.timingFunctions = timingFunctions
    }

    /// The value at composition second `seconds`, or nil when the animation is not in force
    /// (before it begins, or after it ends when removed on completion).
    /// - Parameter seconds: The composition time in seconds.
    /// - Returns: The interpolated value (`x` alone for a scalar property).
    public func value(at seconds: Double) -> Point? {
        guard !values.isEmpty, duration > 0, seconds >= beginTime else { return nil }
        let fraction = (seconds - beginTime) / duration
        if fraction > 1 { return isRemovedOnCompletion ? nil : values[values.count - 1] }
        let times = keyTimes.count == values.count ? keyTimes
            : values.indices.map { values.count == 1 ? 0 : Double($0) / Double(values.count - 1) }
        guard let upper = times.firstIndex(where: { $0 >= fraction }) else { return values[values.count - 1] }
        if upper == 0 { return values[0] }
        let lower = upper - 1
        let span = times[upper] - times[lower]
        var f = span > 0 ? (fraction - times[lower]) / span : 1
        if let timing = timingFunctions.isEmpty ? nil : timingFunctions[min(lower, timingFunctions.count - 1)] {
            f = timing.progress(at: f, overSeconds: span * duration)
        }
        let a = values[lower], b = values[upper]
        return Point(x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f)
    }
}

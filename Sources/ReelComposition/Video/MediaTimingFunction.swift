import Foundation
public import ReelCore

/// How an animation's progress follows time: a cubic Bézier from (0, 0) to (1, 1), as
/// `CAMediaTimingFunction`, or a damped spring, as `CASpringAnimation` moves. A keyframe
/// animation gives one to each of its segments (``KeyframeAnimation/timingFunctions``).
public struct MediaTimingFunction: Sendable, Equatable {
    /// The named curves `CAMediaTimingFunction(name:)` knows, with the control points
    /// Apple documents for them.
    public enum Name: String, Sendable, CaseIterable {
        /// Even progress: (0, 0), (1, 1). `kCAMediaTimingFunctionLinear`.
        case linear
        /// Slow start: (0.42, 0), (1, 1). `kCAMediaTimingFunctionEaseIn`.
        case easeIn
        /// Slow end: (0, 0), (0.58, 1). `kCAMediaTimingFunctionEaseOut`.
        case easeOut
        /// Slow start and end: (0.42, 0), (0.58, 1). `kCAMediaTimingFunctionEaseInEaseOut`.
        case easeInEaseOut
        /// Core Animation's default: (0.25, 0.1), (0.25, 1). `kCAMediaTimingFunctionDefault`.
        case `default`
    }

    /// A spring's physical constants, as `CASpringAnimation` takes them. The spring moves
    /// from 0 to 1 in the segment's own seconds, so a slow segment settles and a quick one
    /// may end mid-swing (it is snapped to 1 at the segment's end).
    public struct Spring: Sendable, Equatable {
        /// `mass`, above 0 (default 1).
        public var mass: Double
        /// `stiffness`, above 0 (default 100).
        public var stiffness: Double
        /// `damping`, 0 or more (default 10).
        public var damping: Double
        /// `initialVelocity`, in whole moves a second toward the end value (default 0).
        public var initialVelocity: Double

        /// A spring with `CASpringAnimation`'s defaults unless given.
        /// - Parameters:
        ///   - mass: The moving mass, above 0.
        ///   - stiffness: The spring's constant, above 0.
        ///   - damping: The friction, 0 or more (0 swings for ever).
        ///   - initialVelocity: The speed at the start, in whole moves a second.
        public init(mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0) {
            self.mass = mass
            self.stiffness = stiffness
            self.damping = damping
            self.initialVelocity = initialVelocity
        }

        /// The spring's position, from 0 toward 1, `seconds` after it was let go: the damped
        /// oscillator's closed form (under-, critically or over-damped).
        /// - Parameter seconds: Time since the start, in seconds.
        /// - Returns: The position; above 1 while it overshoots.
        public func position(after seconds: Double) -> Double {
            guard mass > 0, stiffness > 0, damping >= 0, seconds > 0 else { return 0 }
            let omega = (stiffness / mass).squareRoot()
            let zeta = damping / (2 * (stiffness * mass).squareRoot())
            let v = initialVelocity
            // The displacement from the end value starts at -1 with speed v.
            if zeta < 1 {
                let omegaD = omega * (1 - zeta * zeta).squareRoot()
                let envelope = exp(-zeta * omega * seconds)
                return 1 - envelope * (cos(omegaD * seconds) + (zeta * omega - v) / omegaD * sin(omegaD * seconds))
            }
            if zeta == 1 {
                return 1 - exp(-omega * seconds) * (1 + (omega - v) * seconds)
            }
            let root = omega * (zeta * zeta - 1).squareRoot()
            let r1 = -zeta * omega + root, r2 = -zeta * omega - root
            let c1 = (v + r2) / (r1 - r2), c2 = -1 - c1
            return 1 + c1 * exp(r1 * seconds) + c2 * exp(r2 * seconds)
        }
    }

    private enum Curve: Sendable, Equatable {
        case bezier(x1: Double, y1: Double, x2: Double, y2: Double)
        case spring(Spring)
    }

    private let curve: Curve

    /// A named curve. `init(name:)`.
    /// - Parameter name: The curve.
    public init(name: Name) {
        switch name {
        case .linear: curve = .bezier(x1: 0, y1: 0, x2: 1, y2: 1)
        case .easeIn: curve = .bezier(x1: 0.42, y1: 0, x2: 1, y2: 1)
        case .easeOut: curve = .bezier(x1: 0, y1: 0, x2: 0.58, y2: 1)
        case .easeInEaseOut: curve = .bezier(x1: 0.42, y1: 0, x2: 0.58, y2: 1)
        case .default: curve = .bezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)
        }
    }

    /// A cubic Bézier from (0, 0) through the control points to (1, 1).
    /// `init(controlPoints:_:_:_:)`. The x coordinates are held to 0…1 so that the curve
    /// is a function of time; the y coordinates may leave 0…1 (an overshoot).
    /// - Parameters:
    ///   - x1: The first control point's time, 0 to 1.
    ///   - y1: The first control point's progress.
    ///   - x2: The second control point's time, 0 to 1.
    ///   - y2: The second control point's progress.
    public init(controlPoints x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        func unit(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), 1) : 0 }
        curve = .bezier(x1: unit(x1), y1: y1.isFinite ? y1 : 0, x2: unit(x2), y2: y2.isFinite ? y2 : 1)
    }

    /// A spring's motion as the curve (what `CASpringAnimation` draws between two values).
    /// - Parameter spring: Its mass, stiffness, damping and initial velocity.
    public init(spring: Spring) {
        curve = .spring(spring)
    }

    /// The linear curve, the one a keyframe segment without a timing function follows.
    public static let linear = MediaTimingFunction(name: .linear)

    /// A control point of a Bézier curve: 0 is (0, 0), 1 and 2 the two set, 3 is (1, 1).
    /// `getControlPoint(at:values:)`. A spring has none.
    /// - Parameter index: 0 to 3.
    /// - Returns: The point, or nil for another index or a spring.
    public func controlPoint(at index: Int) -> Point? {
        guard case .bezier(let x1, let y1, let x2, let y2) = curve else { return nil }
        switch index {
        case 0: return Point(x: 0, y: 0)
        case 1: return Point(x: x1, y: y1)
        case 2: return Point(x: x2, y: y2)
        case 3: return Point(x: 1, y: 1)
        default: return nil
        }
    }

    /// The spring's constants, or nil for a Bézier curve.
    public var spring: Spring? {
        if case .spring(let spring) = curve { return spring }
        return nil
    }

    /// The progress at a fraction of a segment's time.
    /// - Parameters:
    ///   - fraction: How far through the segment, 0 to 1 (held to that range).
    ///   - seconds: How long the segment lasts, which a spring's motion depends on.
    /// - Returns: The progress: 0 at the start, 1 at the end, between (or past, for an
    ///   overshoot) in between.
    public func progress(at fraction: Double, overSeconds seconds: Double = 1) -> Double {
        guard fraction.isFinite else { return 0 }
        if fraction <= 0 { return 0 }
        if fraction >= 1 { return 1 }
        switch curve {
        case .bezier(let x1, let y1, let x2, let y2):
            if x1 == y1, x2 == y2 { return fraction }
            let t = Self.parameter(forX: fraction, x1, x2)
            return Self.bezier(t, y1, y2)
        case .spring(let spring):
            return spring.position(after: fraction * max(seconds, 0))
        }
    }

    /// One coordinate of the cubic Bézier with end points 0 and 1 at parameter `t`.
    private static func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
    }

    /// The curve's parameter where its x is `x`: Newton's method from x itself, then
    /// bisection when the slope flattens (x(t) rises with t because x1, x2 are in 0…1).
    private static func parameter(forX x: Double, _ x1: Double, _ x2: Double) -> Double {
        var t = x
        for _ in 0..<8 {
            let error = bezier(t, x1, x2) - x
            if abs(error) < 1e-12 { return t }
            let u = 1 - t
            let slope = 3 * u * u * x1 + 6 * u * t * (x2 - x1) + 3 * t * t * (1 - x2)
            guard abs(slope) > 1e-9 else { break }
            t -= error / slope
            guard t >= 0, t <= 1 else { break }
        }
        var low = 0.0, high = 1.0
        t = x
        for _ in 0..<60 {
            let value = bezier(t, x1, x2)
            if abs(value - x) < 1e-12 { return t }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return t
    }
}

import Foundation
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Easing of keyframe animations: the curves against their formulas, the spec's `easing`
/// key and its refusals, and an eased overlay as it comes out of `reel compose`.
@Suite struct EasingTests {
    /// The Bézier's y where its x is `x`, found by bisection on the parametric form
    /// (CSS's and Core Animation's definition), independently of the library's solver.
    private func bezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, at x: Double) -> Double {
        func coordinate(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t
        }
        var low = 0.0, high = 1.0
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if coordinate(middle, x1, x2) < x { low = middle } else { high = middle }
        }
        return coordinate((low + high) / 2, y1, y2)
    }

    /// The spring's position, integrated step by step (RK4 on m·x'' = -k·(x-1) - c·x'),
    /// not from the closed form the library uses.
    private func integratedSpring(mass: Double, stiffness: Double, damping: Double, velocity: Double, seconds: Double) -> Double {
        var x = 0.0, v = velocity
        let steps = 100_000, h = seconds / Double(steps)
        func acceleration(_ x: Double, _ v: Double) -> Double { (-stiffness * (x - 1) - damping * v) / mass }
        for _ in 0..<steps {
            let k1x = v, k1v = acceleration(x, v)
            let k2x = v + h / 2 * k1v, k2v = acceleration(x + h / 2 * k1x, v + h / 2 * k1v)
            let k3x = v + h / 2 * k2v, k3v = acceleration(x + h / 2 * k2x, v + h / 2 * k2v)
            let k4x = v + h * k3v, k4v = acceleration(x + h * k3x, v + h * k3v)
            x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        }
        return x
    }

    @Test(arguments: [
        (MediaTimingFunction.Name.linear, [0.0, 0.0, 1.0, 1.0]),
        (.easeIn, [0.42, 0, 1, 1]),
        (.easeOut, [0, 0, 0.58, 1]),
        (.easeInEaseOut, [0.42, 0, 0.58, 1]),
        (.default, [0.25, 0.1, 0.25, 1]),
    ])
    func namedCurvesFollowTheirBezier(name: MediaTimingFunction.Name, points: [Double]) {
        let function = MediaTimingFunction(name: name)
        #expect(function.controlPoint(at: 1) == Point(x: points[0], y: points[1]))
        #expect(function.controlPoint(at: 2) == Point(x: points[2], y: points[3]))
        for x in [0.25, 0.5, 0.75] {
            let expected = bezier(points[0], points[1], points[2], points[3], at: x)
            #expect(abs(function.progress(at: x) - expected) < 1e-9, "\(name) at \(x): \(function.progress(at: x)) vs \(expected)")
        }
        #expect(function.progress(at: 0) == 0 && function.progress(at: 1) == 1)
    }

    @Test func knownValuesOfTheNamedCurves() {
        // Symmetric curves pass through the middle; ease-in lags linear, ease-out leads it.
        #expect(abs(MediaTimingFunction(name: .easeInEaseOut).progress(at: 0.5) - 0.5) < 1e-9)
        #expect(abs(MediaTimingFunction(name: .linear).progress(at: 0.25) - 0.25) < 1e-12)
        let easeIn = MediaTimingFunction(name: .easeIn).progress(at: 0.25)
        let easeOut = MediaTimingFunction(name: .easeOut).progress(at: 0.75)
        #expect(abs(easeIn - 0.0935) < 0.001, "\(easeIn)")
        #expect(abs(easeOut - 0.9065) < 0.001, "\(easeOut)")
    }

    @Test func customBezierWithOvershoot() {
        let function = MediaTimingFunction(controlPoints: 0.34, 1.56, 0.64, 1)
        for x in [0.25, 0.5, 0.75] {
            #expect(abs(function.progress(at: x) - bezier(0.34, 1.56, 0.64, 1, at: x)) < 1e-9)
        }
        #expect(function.progress(at: 0.75) > 1)
    }

    @Test(arguments: [(1.0, 100.0, 10.0, 0.0), (1.0, 100.0, 20.0, 0.0), (2.0, 100.0, 60.0, 3.0), (1.0, 300.0, 4.0, -2.0)])
    func springFollowsTheOscillator(mass: Double, stiffness: Double, damping: Double, velocity: Double) {
        let spring = MediaTimingFunction.Spring(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: velocity)
        let function = MediaTimingFunction(spring: spring)
        for x in [0.25, 0.5, 0.75] {
            let expected = integratedSpring(mass: mass, stiffness: stiffness, damping: damping, velocity: velocity, seconds: x * 0.8)
            let got = function.progress(at: x, overSeconds: 0.8)
            #expect(abs(got - expected) < 1e-6, "spring \(mass) \(stiffness) \(damping) \(velocity) at \(x): \(got) vs \(expected)")
        }
        #expect(function.progress(at: 1, overSeconds: 0.8) == 1)
    }

    @Test func eachSegmentEasesByItsOwnFunction() {
        let animation = KeyframeAnimation(keyPath: .opacity, values: [0, 1, 0], beginTime: 2, duration: 2,
                                          timingFunctions: [MediaTimingFunction(name: .easeIn), MediaTimingFunction(name: .easeOut)])
        let easeIn = MediaTimingFunction(name: .easeIn), easeOut = MediaTimingFunction(name: .easeOut)
        #expect(abs((animation.value(at: 2.25)?.x ?? -1) - easeIn.progress(at: 0.25)) < 1e-12)
        #expect(abs((animation.value(at: 3.5)?.x ?? -1) - (1 - easeOut.progress(at: 0.5))) < 1e-12)
        // Without timing functions, as before: linear.
        let linear = KeyframeAnimation(keyPath: .opacity, values: [0, 1], beginTime: 0, duration: 1)
        #expect(linear.value(at: 0.25)?.x == 0.25)
    }

    @Test func specEasingBecomesTheLayersTimingFunctions() throws {
        let json = #"""
        {"clips": [{"file": "x.mp4"}], "overlays": [{"type": "color", "frame": {"x": 0, "y": 0, "width": 4, "height": 4},
          "animations": [
            {"property": "opacity", "values": [0, 1, 0], "begin": 0, "duration": 1, "easing": "easeInOut"},
            {"property": "scale", "values": [1, 2, 1], "begin": 0, "duration": 1,
             "easing": [{"cubicBezier": [0.1, 0.7, 1, 0.1]}, {"spring": {"damping": 12, "mass": 2}}]}]}]}
        """#
        let spec = try CompositionSpec(data: Data(json.utf8))
        let animations = try #require(spec.overlays?.first?.animations)
        #expect(animations[0].easing == .all(.named("easeInOut")))
        let functions = try #require(try animations[1].easing?.timingFunctions(segments: 2, at: "e"))
        #expect(functions[0].controlPoint(at: 1) == Point(x: 0.1, y: 0.7))
        #expect(functions[1].spring == MediaTimingFunction.Spring(mass: 2, stiffness: 100, damping: 12, initialVelocity: 0))
        // A v1 spec without easing reads as it did.
        let old = try CompositionSpec(data: Data(#"{"clips": [{"file": "x.mp4"}], "overlays": [{"type": "color", "frame": {"x": 0, "y": 0, "width": 4, "height": 4}, "animations": [{"property": "opacity", "values": [0, 1], "begin": 0, "duration": 1}]}]}"#.utf8))
        #expect(old.overlays?.first?.animations?.first?.easing == nil)
    }

    private static let prefix = #"{"clips": [{"file": "x.mp4"}], "overlays": [{"type": "color", "frame": {"x": 0, "y": 0, "width": 4, "height": 4}, "animations": [{"property": "opacity", "values": [0, 1, 0], "begin": 0, "duration": 1, "easing": "#

    @Test(arguments: [
        (#""bounce""#, "overlays[0].animations[0].easing: is linear, easeIn, easeOut, easeInOut, default, "),
        ("3", "overlays[0].animations[0].easing: is linear"),
        (#"["easeIn"]"#, "overlays[0].animations[0].easing: wants one easing per segment (2, one fewer than the values), not 1"),
        (#"["easeIn", "wobble"]"#, "overlays[0].animations[0].easing[1]: is linear"),
        (#"{"cubicBezier": [1.5, 0, 0.5, 1]}"#, "overlays[0].animations[0].easing.cubicBezier[0]: wants a number from 0 to 1"),
        (#"{"cubicBezier": [0.5, 0, 0.5]}"#, "overlays[0].animations[0].easing.cubicBezier: wants four numbers"),
        (#"{"spring": {"mass": 0}}"#, "overlays[0].animations[0].easing.spring.mass: wants a number above 0"),
        (#"{"spring": {"damping": -1}}"#, "overlays[0].animations[0].easing.spring.damping: wants a number from 0"),
        (#"{"spring": {"dampin": 1}}"#, "unknown key 'dampin' in overlays[0].animations[0].easing.spring"),
        (#"[{"spring": {"stiffness": 1e400}}, "linear"]"#, "overlays[0].animations[0].easing[0].spring.stiffness"),
        (#"{"spring": {}, "cubicBezier": [0, 0, 1, 1]}"#, "overlays[0].animations[0].easing: wants exactly one of cubicBezier and spring"),
        (#"{"spring": 3}"#, "overlays[0].animations[0].easing.spring: wants an object"),
    ])
    func badEasingsAreRefusedByTheirPath(easing: String, expected: String) {
        let json = Self.prefix + easing + "}]}]}"
        do {
            _ = try CompositionSpec(data: Data(json.utf8), name: "t.json")
            Issue.record("accepted \(easing)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// A white square eased across a black clip, rendered by `reel compose` and decoded by
    /// ffmpeg: at a quarter, half and three quarters of the animation its centre sits where
    /// the curve puts it, to within a pixel (linear would be 19 px off at the quarter).
    @Test func easedOverlayIsWhereTheCurvePutsIt() throws {
        let directory = try Paths.temporaryDirectory("reel-easing")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=black:size=160x90:rate=25:duration=5",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=5",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                  directory.appendingPathComponent("black.mp4").path])
        let spec = directory.appendingPathComponent("eased.json")
        try #"""
        {"renderSize": {"width": 160, "height": 90}, "frameRate": 25, "clips": [{"file": "black.mp4"}],
         "overlays": [{"type": "color", "color": "#ffffff", "frame": {"x": 10, "y": 35, "width": 20, "height": 20},
           "animations": [{"property": "position", "values": [[20, 45], [140, 45]], "begin": 0, "duration": 4,
                           "removedOnCompletion": false, "easing": "easeIn"}]}]}
        """#.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("eased.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let easeIn = MediaTimingFunction(name: .easeIn)
        for fraction in [0.25, 0.5, 0.75] {
            let picture = directory.appendingPathComponent("eased-\(fraction).png")
            try ProcessRunner.ffmpeg(["-i", out.path, "-vf", "select=eq(n\\,\(Int(fraction * 100)))", "-frames:v", "1", picture.path])
            let raw = directory.appendingPathComponent("eased-\(fraction).gray")
            try ProcessRunner.ffmpeg(["-i", picture.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
            let row = [UInt8](try Data(contentsOf: raw)).dropFirst(45 * 160).prefix(160)
            // The square's centre from its brightness (the PNG is full range): each column's share of white.
            let weights = row.map { Double($0) / 255 }
            let width = weights.reduce(0, +)
            let centre = zip(weights.indices, weights).map { (Double($0.0) + 0.5) * $0.1 }.reduce(0, +) / width
            let expected = 20 + 120 * easeIn.progress(at: fraction)
            #expect(abs(width - 20) <= 1.5, "at \(fraction) the square is \(width) px wide")
            #expect(abs(centre - expected) <= 1, "at \(fraction) the square's centre is at \(centre), the curve says \(expected)")
        }
    }
}

import Dispatch
package import ReelCore

/// The compositor's cost per 1920x1080 frame for each kind of draw, on one core and on
/// all of them (``ParallelRows``), for `make bench` (`reel compose --bench`).
package enum CompositorBench {
    /// One kind of draw: its median milliseconds per frame on one band and on all bands.
    package struct Result: Sendable {
        package var name: String
        package var oneCore: Double
        package var allCores: Double
    }

    /// Times each draw `frames` times per pass, three passes, and reports the median pass.
    /// - Parameter frames: draws per pass.
    /// - Returns: one result per kind of draw, and the whole frame.
    /// - Throws: ``ReelError`` if a picture cannot be made.
    package static func run(frames: Int = 20) throws(ReelError) -> [Result] {
        let target = try PixelBuffer(width: 1920, height: 1080, pixelFormat: .yuv420p)
        let source = try PixelBuffer(width: 1920, height: 1080, pixelFormat: .yuv420p)
        let small = try PixelBuffer(width: 960, height: 540, pixelFormat: .yuv420p)
        let overlay = try PixelBuffer(width: 900, height: 200, pixelFormat: .rgba)
        source.fill(planeValues: [120, 100, 150])
        small.fill(planeValues: [60, 140, 110])
        overlay.fillRect(x: 0, y: 0, width: 900, height: 200, rgba: (255, 255, 255, 200))
        let turn = AffineTransform(translationX: -450, y: -100).concatenating(AffineTransform(rotationAngle: 0.4))
            .concatenating(AffineTransform(translationX: 960, y: 540))
        let draws: [(String, () -> Void)] = [
            ("clear", { Compositor.clear(target, matrix: .bt709) }),
            ("move (dissolve)", { Compositor.draw(source, into: target, transform: .identity, opacity: 0.5) }),
            ("scale x2", { Compositor.draw(small, into: target, transform: AffineTransform(scaleX: 2, y: 2), opacity: 1) }),
            ("zoom + turn", {
                Compositor.draw(source, into: target, transform: AffineTransform(rotationAngle: 0.05)
                    .concatenating(AffineTransform(scaleX: 1.1, y: 1.1)), opacity: 1)
            }),
            ("fill", { Compositor.fill(Rect(x: 100, y: 100, width: 600, height: 300), in: target, color: (210, 16, 146),
                                       opacity: 0.5) }),
            ("rgba overlay turned", { Compositor.drawRGBA(overlay, into: target, transform: turn, opacity: 1, matrix: .bt709) }),
            ("rgba layer styled", {
                Compositor.drawRGBA(overlay, into: target, transform: turn, opacity: 1, matrix: .bt709,
                                    shape: .init(crop: nil, cornerRadius: 24, borderWidth: 4, borderColor: (1, 1, 1)))
            }),
        ]
        func milliseconds(_ body: () -> Void) -> Double {
            var passes: [Double] = []
            for _ in 0..<3 {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<frames { body() }
                passes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames))
            }
            return passes.sorted()[1]
        }
        var results: [Result] = []
        for (name, draw) in draws {
            let one = ParallelRows.$bandLimit.withValue(1) { milliseconds(draw) }
            results.append(Result(name: name, oneCore: one, allCores: milliseconds(draw)))
        }
        let total = results.reduce(into: Result(name: "all of them", oneCore: 0, allCores: 0)) {
            $0.oneCore += $1.oneCore
            $0.allCores += $1.allCores
        }
        return results + [total]
    }
}

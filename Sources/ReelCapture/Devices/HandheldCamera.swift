import Foundation
import ReelCore

/// The pictures of `virtual:handheld-camera`: a still, textured scene (random patches of
/// colour on a grid, with random rectangles over it, softened) seen by a camera held in a shaking
/// hand, so that stabilization has something to take out and tests something to measure.
///
/// The shake is seeded (the same every run) and moves the picture on both axes by a sum of
/// three sines: 2 Hz at 1 % of the picture's height, 5 Hz at 0.5 % and 9 Hz at 0.25 %
/// (x and y with their own phases; 1.75 % at most, 19 pixels at 1080p). The hand also rolls
/// the camera about its axis by the same spectrum in degrees: 2 Hz at 0.5°, 5 Hz at 0.25°,
/// 9 Hz at 0.125° (its own phases; 0.875° at most, which moves the corners of a 1080p
/// picture by up to 15 pixels). Each picture is the scene turned about the picture's centre
/// and moved, to the nearest pixel (``RotatedCopy``). There is no frame counter, timecode or
/// flash: the whole picture moves.
enum HandheldCamera {
    static let uniqueID = "virtual:handheld-camera"
    /// Frequency (Hz) and amplitude (a fraction of the height) of each sine.
    static let spectrum: [(hertz: Double, amplitude: Double)] = [(2, 0.01), (5, 0.005), (9, 0.0025)]
    /// Frequency (Hz) and amplitude (degrees) of each sine of the roll.
    static let rollSpectrum: [(hertz: Double, degrees: Double)] = [(2, 0.5), (5, 0.25), (9, 0.125)]
    static let seed: UInt64 = 17

    /// The scene a little larger than the picture (by the shake's reach), one per size.
    private static let scenes = PosixMutex<[String: PixelBuffer]>([:])

    static let device = CaptureDevice(
        uniqueID: uniqueID, localizedName: "Reel Virtual Handheld Camera", deviceType: .camera, position: .back,
        formats: CaptureDevice.virtualCameraFormats, source: .virtualCamera, capabilities: [.zoom])

    /// The shake's offset at `seconds`, in pixels of a picture `height` high.
    static func shake(at seconds: Double, height: Int) -> (x: Double, y: Double) {
        var random = SeededRandom(seed: seed)
        var x = 0.0, y = 0.0
        for (hertz, amplitude) in spectrum {
            let phaseX = random.unit() * 2 * .pi, phaseY = random.unit() * 2 * .pi
            x += amplitude * Double(height) * sin(2 * .pi * hertz * seconds + phaseX)
            y += amplitude * Double(height) * sin(2 * .pi * hertz * seconds + phaseY)
        }
        return (x, y)
    }

    /// The roll at `seconds`, in radians (positive turns the picture clockwise).
    static func roll(at seconds: Double) -> Double {
        var random = SeededRandom(seed: seed)
        // After the translation's six phases, so that they stay as they were.
        for _ in 0..<(2 * spectrum.count) { _ = random.unit() }
        var angle = 0.0
        for (hertz, degrees) in rollSpectrum {
            angle += degrees * .pi / 180 * sin(2 * .pi * hertz * seconds + random.unit() * 2 * .pi)
        }
        return angle
    }

    /// How far past the picture the scene reaches on each side: the shake, and the corners' path at the largest roll.
    static func reach(width: Int, height: Int) -> Int {
        let largestRoll = rollSpectrum.reduce(0) { $0 + $1.degrees } * .pi / 180
        let turned = Double(max(width, height)) / 2 * sin(largestRoll)
        return (Int((Double(height) * 0.02 + turned).rounded(.up)) + 3) & ~1
    }

    /// Draws frame `index` into `picture` (yuv420p).
    static func render(frame index: Int64, rate: Double, into picture: PixelBuffer) {
        let width = picture.width, height = picture.height
        let margin = reach(width: width, height: height)
        guard let scene = scene(width: width + 2 * margin, height: height + 2 * margin) else { return }
        let seconds = Double(index) / max(rate, 1)
        let (x, y) = shake(at: seconds, height: height)
        // The camera moves and turns one way, the picture the other: the picture's point q is
        // the scene's at its centre + R(−roll)·q − shake. Even, so the chroma moves with the luma.
        let centre = (x: Double(scene.width - 1) / 2 - Double(Int((x / 2).rounded()) * 2),
                      y: Double(scene.height - 1) / 2 - Double(Int((y / 2).rounded()) * 2))
        RotatedCopy.copy(from: scene, into: picture, centre: centre, angle: -roll(at: seconds))
    }

    private static func scene(width: Int, height: Int) -> PixelBuffer? {
        let key = "\(width)x\(height)"
        if let cached = scenes.withLock({ $0[key] }) { return cached }
        guard let scene = try? PixelBuffer(width: width, height: height, pixelFormat: .yuv420p) else { return nil }
        var random = SeededRandom(seed: seed &+ 1)
        func colour() -> [UInt8] {
            [UInt8(32 + random.below(192)), UInt8(64 + random.below(128)), UInt8(64 + random.below(128))]
        }
        let cell = max(4, height / 27)
        var y = 0
        while y < height {
            var x = 0
            while x < width {
                fill(scene, x: x, y: y, width: cell, height: cell, colour: colour())
                x += cell
            }
            y += cell
        }
        for _ in 0..<400 {
            let w = cell / 2 + random.below(cell * 3), h = cell / 2 + random.below(cell * 3)
            fill(scene, x: random.below(max(1, width - w)), y: random.below(max(1, height - h)), width: w, height: h,
                 colour: colour())
        }
        // Softened, as a lens would: hard random edges moved by fractions of a pixel make
        // an encoder's worst case, which no camera's picture is.
        for plane in 0..<3 { blur(scene, plane: plane, radius: max(1, cell / (plane == 0 ? 6 : 12))) }
        scenes.withLock { $0[key] = scene }
        return scene
    }

    /// A box blur of one plane, across then down, with running sums.
    private static func blur(_ picture: PixelBuffer, plane: Int, radius: Int) {
        let width = picture.planes[plane].width, height = picture.planes[plane].height
        picture.withMutablePlane(plane) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            var line = [Int](repeating: 0, count: max(width, height))
            func pass(count: Int, lines: Int, at: (Int, Int) -> Int) {
                for l in 0..<lines {
                    for i in 0..<count { line[i] = Int(base[at(l, i)]) }
                    var sum = 0
                    for i in -radius...radius { sum += line[min(max(i, 0), count - 1)] }
                    for i in 0..<count {
                        base[at(l, i)] = UInt8(clamping: sum / (2 * radius + 1))
                        sum += line[min(i + radius + 1, count - 1)] - line[max(i - radius, 0)]
                    }
                }
            }
            pass(count: width, lines: height) { row, x in row * stride + x }
            pass(count: height, lines: width) { column, y in y * stride + column }
        }
    }

    /// Fills a rectangle of a yuv420p picture with `colour` (Y, Cb, Cr), clipped to it.
    private static func fill(_ picture: PixelBuffer, x: Int, y: Int, width: Int, height: Int, colour: [UInt8]) {
        for plane in 0..<3 {
            let scale = plane == 0 ? 1 : 2
            let info = picture.planes[plane]
            let x0 = max(0, x / scale), y0 = max(0, y / scale)
            let x1 = min(info.width, (x + width) / scale), y1 = min(info.height, (y + height) / scale)
            guard x1 > x0, y1 > y0 else { continue }
            picture.withMutablePlane(plane) { base, stride in
                for row in y0..<y1 {
                    (base + row * stride + x0).initializeMemory(as: UInt8.self, repeating: colour[plane], count: x1 - x0)
                }
            }
        }
    }
}

/// xorshift64*: the same numbers for the same seed, on every machine.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// In 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// In 0..<bound (bound ≥ 1).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
}

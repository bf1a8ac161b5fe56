import Foundation
package import ReelCore

/// The pictures of `virtual:camera`, seen through simulated optics.
///
/// The scene: seven colour bars that drift sideways (far away: in focus at lens position
/// 0.8) and a bright box that crosses the picture every 4 s (near: in focus at 0.2).
/// The optics act on it as a camera's would: zoom crops into the centre, the lens blurs
/// what is away from its focus distance, exposure time and ISO brighten it (and ISO adds
/// noise), white balance tints it and the torch lights it. Over the optics, as a camera's
/// on-screen display, the frame counter in binary (16 blocks along the top, white = 1) and
/// a timecode. The first frame of every second is a white flash, which the virtual
/// microphone's click matches. Frame `i` is at `i / fps` from the session's start.
package struct VirtualCamera: SceneProbe {
    static let counterBits = 16
    static let blockSize = 16
    static let barsFocus: Float = 0.8
    static let boxFocus: Float = 0.2
    static let boxLuma: Double = 230
    /// Luma, Cb, Cr of the bars.
    static let bars: [(Double, Double, Double)] = [(180, 44, 136), (168, 136, 44), (145, 54, 34), (133, 63, 52),
                                                   (63, 193, 204), (51, 202, 222), (28, 212, 120)]

    let index: Int64
    let rate: Double
    let aspect: Double
    let zoom: Double

    init(frame index: Int64, rate: Double, width: Int, height: Int, zoom: Double) {
        self.index = index
        self.rate = rate
        aspect = Double(width) / Double(max(height, 1))
        self.zoom = max(zoom, 1)
    }

    var seconds: Double { Double(index) / rate }
    var isFlash: Bool { index % Int64(max(1, rate.rounded())) == 0 }
    private var drift: Double { (seconds * 0.1).truncatingRemainder(dividingBy: 1) }

    /// The box in scene units (0–1 both ways): left, top, right, bottom.
    private var box: (Double, Double, Double, Double) {
        let height = 0.2, width = height / aspect
        let left = (seconds / 4).truncatingRemainder(dividingBy: 1) * (1 - width)
        return (left, 0.5 - height / 2, left + width, 0.5 + height / 2)
    }

    /// A point of the picture (0–1) in scene units, through the zoom.
    private func scenePoint(_ point: Point) -> Point {
        Point(x: 0.5 + (point.x - 0.5) / zoom, y: 0.5 + (point.y - 0.5) / zoom)
    }

    private func bar(atScene x: Double) -> Int {
        let position = (x + drift).truncatingRemainder(dividingBy: 1)
        return min(Self.bars.count - 1, Int((position < 0 ? position + 1 : position) * Double(Self.bars.count)))
    }

    private func inBox(_ point: Point) -> Bool {
        let (left, top, right, bottom) = box
        return point.x >= left && point.x <= right && point.y >= top && point.y <= bottom
    }

    func focusDistance(at point: Point) -> Float {
        inBox(scenePoint(point)) ? Self.boxFocus : Self.barsFocus
    }

    func luma(at point: Point) -> Double {
        let scene = scenePoint(point)
        return inBox(scene) ? Self.boxLuma : Self.bars[bar(atScene: scene.x)].0
    }

    /// Draws the frame into a yuv420p picture.
    func render(into picture: PixelBuffer, controls: DeviceControls) {
        if isFlash {
            picture.fill(planeValues: [235, 128, 128])
        } else {
            renderScene(into: picture, controls: controls)
        }
        CameraDisplay.draw(counter: index, rate: rate, into: picture)
    }

    private func renderScene(into picture: PixelBuffer, controls: DeviceControls) {
        let width = picture.width, height = picture.height
        let blurScale = 0.04 * Double(width)
        let tone = SensorTone(controls: controls)
        // The bars are vertical, so one row, blurred sideways, makes every row.
        let barsRadius = abs(Double(controls.lensPosition - Self.barsFocus)) * blurScale
        let lumaRow = profile(width: width, radius: barsRadius) { Self.bars[$0].0 }.map { tone.luma($0) }
        let (left, top, right, bottom) = box
        let toPicture = { (value: Double, size: Int) in ((value - 0.5) * zoom + 0.5) * Double(size) }
        let boxRadius = abs(Double(controls.lensPosition - Self.boxFocus)) * blurScale
        let boxColumns = Coverage(from: toPicture(left, width), to: toPicture(right, width), radius: boxRadius, size: width)
        let boxRows = Coverage(from: toPicture(top, height), to: toPicture(bottom, height), radius: boxRadius, size: height)
        let boxLuma = Double(tone.luma(Self.boxLuma))
        picture.withMutablePlane(0) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            lumaRow.withUnsafeBufferPointer { row in
                for y in 0..<height { (base + y * stride).update(from: row.baseAddress!, count: width) }
            }
            for y in boxRows.range {
                let rowAlpha = boxRows.alpha(y), line = base + y * stride
                for x in boxColumns.range {
                    line[x] = Self.blend(line[x], boxLuma, alpha: rowAlpha * boxColumns.alpha(x))
                }
            }
        }
        for plane in 1...2 {
            let chromaWidth = picture.planes[plane].width, chromaHeight = picture.planes[plane].height
            let row = profile(width: chromaWidth, radius: barsRadius / 2) { plane == 1 ? Self.bars[$0].1 : Self.bars[$0].2 }
                .map { tone.chroma($0, plane: plane) }
            let neutral = Double(tone.chroma(128, plane: plane))
            picture.withMutablePlane(plane) { raw, stride in
                let base = raw.assumingMemoryBound(to: UInt8.self)
                row.withUnsafeBufferPointer { values in
                    for y in 0..<chromaHeight { (base + y * stride).update(from: values.baseAddress!, count: chromaWidth) }
                }
                for y in boxRows.range where y % 2 == 0 && y / 2 < chromaHeight {
                    let rowAlpha = boxRows.alpha(y), line = base + (y / 2) * stride
                    for x in boxColumns.range where x % 2 == 0 && x / 2 < chromaWidth {
                        line[x / 2] = Self.blend(line[x / 2], neutral, alpha: rowAlpha * boxColumns.alpha(x))
                    }
                }
            }
        }
        if tone.noise >= 1 { addNoise(to: picture, amplitude: tone.noise) }
    }

    private static func blend(_ under: UInt8, _ over: Double, alpha: Double) -> UInt8 {
        let mixed: Double = Double(under) * (1 - alpha) + over * alpha
        return UInt8(clamping: Int(mixed.rounded()))
    }

    /// One row of the bars at `width` samples, box-blurred by `radius` samples.
    private func profile(width: Int, radius: Double, value: (Int) -> Double) -> [Double] {
        let sharp = (0..<width).map { x in value(bar(atScene: 0.5 + ((Double(x) + 0.5) / Double(width) - 0.5) / zoom)) }
        let reach = Int(radius.rounded())
        guard reach > 0 else { return sharp }
        var sums = [0.0]
        sums.reserveCapacity(width + 1)
        for v in sharp { sums.append(sums[sums.count - 1] + v) }
        return (0..<width).map { x in
            let low = max(0, x - reach), high = min(width, x + reach + 1)
            return (sums[high] - sums[low]) / Double(high - low)
        }
    }

    private func addNoise(to picture: PixelBuffer, amplitude: Double) {
        var state = UInt64(bitPattern: index) &* 0x9E37_79B9_7F4A_7C15 | 1
        let spread = Int(amplitude * 2) + 1, offset = Int(amplitude)
        picture.withMutablePlane(0) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            for y in 0..<picture.height {
                let line = base + y * stride
                for x in 0..<picture.width {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    line[x] = UInt8(clamping: Int(line[x]) + Int(state % UInt64(spread)) - offset)
                }
            }
        }
    }
}

/// How much of each pixel along one axis an edge-blurred span covers.
private struct Coverage {
    let from: Double, to: Double, radius: Double
    let range: Range<Int>

    init(from: Double, to: Double, radius: Double, size: Int) {
        self.from = from
        self.to = to
        self.radius = max(radius, 0.5)
        let low = max(0, Int((from - self.radius).rounded(.down))), high = min(size, Int((to + self.radius).rounded(.up)))
        range = low..<max(low, high)
    }

    func alpha(_ pixel: Int) -> Double {
        let centre = Double(pixel) + 0.5
        let rising = (centre - (from - radius)) / (2 * radius), falling = ((to + radius) - centre) / (2 * radius)
        return min(max(min(rising, falling), 0), 1)
    }
}

/// What the sensor does to light: exposure gain and torch on luma, white balance on
/// chroma, and how much noise ISO adds.
struct SensorTone {
    let gain: Double
    let torch: Double
    let blueShift: Double
    let redShift: Double
    let noise: Double

    init(controls: DeviceControls) {
        gain = controls.exposureGain
        torch = controls.isTorchActive ? Double(controls.torchLevel) * 45 : 0
        let warmth = Double((5500 - controls.temperatureAndTint.temperature) / 5500)
        let tint = Double(controls.temperatureAndTint.tint / 150)
        // White balance set for warmer light than the scene's turns the picture blue.
        blueShift = warmth * 40 + tint * 12
        redShift = -warmth * 40 + tint * 12
        noise = max(0, Double((controls.iso - 100) / 1500)) * 14
    }

    func luma(_ value: Double) -> UInt8 {
        UInt8(clamping: Int((16 + (value - 16) * gain + torch).rounded()).clamped(16, 235))
    }

    /// More light makes colours stronger as well as brighter, up to the sensor's limits.
    func chroma(_ value: Double, plane: Int) -> UInt8 {
        let strength = min(gain, 1.5)
        let shifted = 128 + (value - 128) * strength + (plane == 1 ? blueShift : redShift)
        return UInt8(clamping: Int(shifted.rounded()).clamped(16, 240))
    }
}

extension Int {
    func clamped(_ low: Int, _ high: Int) -> Int { Swift.min(Swift.max(self, low), high) }
}

extension VirtualCamera {
    /// Reads the counter back from a picture of the camera (after encoding too).
    package static func readCounter(_ picture: PixelBuffer) -> Int {
        var value = 0
        for bit in 0..<counterBits where (bit + 1) * blockSize <= picture.width {
            if (picture.element(plane: 0, x: bit * blockSize + blockSize / 2, y: blockSize / 2)?[0] ?? 0) > 128 {
                value |= 1 << bit
            }
        }
        return value
    }
}

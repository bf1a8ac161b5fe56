import Foundation
import ReelAV
public import ReelCore

/// Steadies a stream of pictures: the global motion of each frame (``GlobalMotionEstimator``)
/// adds up to the camera's path; the path smoothed with a Gaussian over a window of frames
/// around each one is where the camera should have been; each picture is cropped to 90 %
/// of its width and height at the place that puts it there, and scaled back to its size.
///
/// A picture waits for the `radius` frames after it (the window's future half), so it
/// leaves `radius` frames late: that is the mode's latency. The crop keeps a margin of 5 %
/// on every side; a correction larger than that is held at the margin.
///
/// Confined to one queue (the session's video queue, or the caller of an offline pass).
public final class LiveStabilizer: @unchecked Sendable {
    /// The part of each side kept: 90 %, a 10 % crop.
    public static let kept = 0.9

    private struct Waiting {
        let sample: SampleBuffer
        let position: (x: Double, y: Double)
    }

    /// Frames on each side of a picture that its smoothing looks at.
    public let radius: Int
    /// The Gaussian's spread, in frames.
    public let sigma: Double
    private let estimator = GlobalMotionEstimator()
    private var previous: GlobalMotionEstimator.Signature?
    private var lastTime: MediaTime = .invalid
    private var position = (x: 0.0, y: 0.0)
    private var past: [(x: Double, y: Double)] = []
    private var waiting: [Waiting] = []
    private let scaler = Scaler()
    private var cropPool: PixelBufferPool?
    private var outputPool: PixelBufferPool?
    /// The correction last applied, in pixels (for tests and the status line).
    public private(set) var lastCorrection = (x: 0.0, y: 0.0)

    /// - Parameters:
    ///   - radius: the frames on each side of a picture its smoothing takes in (its latency).
    ///   - sigma: the Gaussian's spread in frames.
    public init(radius: Int, sigma: Double) {
        self.radius = max(0, radius)
        self.sigma = max(0.5, sigma)
    }

    /// The stabilizer of a live mode: `standard` smooths over ±6 frames, `cinematic` over ±15.
    /// Nil for `off`.
    /// - Parameter mode: The connection's mode; `auto` is taken as `standard`.
    public convenience init?(mode: CaptureVideoStabilizationMode) {
        switch mode.resolved {
        case .standard: self.init(radius: 6, sigma: 3)
        case .cinematic: self.init(radius: 15, sigma: 6)
        case .off, .auto: return nil
        }
    }

    /// Takes the next picture and gives back the one `radius` frames before it, steadied,
    /// or nil while the window fills. A picture earlier than the last starts afresh (a new run).
    /// - Parameter sample: The next frame; one that is not yuv420p passes through unchanged.
    /// - Returns: The frame `radius` frames back, cropped and shifted to steady it (its time
    ///   kept), or nil while the first `radius` frames fill the window.
    /// - Throws: ``ReelError`` when a picture cannot be scaled (libswscale's message).
    public func process(_ sample: SampleBuffer) throws(ReelError) -> SampleBuffer? {
        guard let picture = sample.pixelBuffer, picture.pixelFormat == .yuv420p else { return sample }
        if lastTime.isNumeric, !(sample.presentationTime > lastTime) { reset() }
        lastTime = sample.presentationTime
        let signature = estimator.signature(of: picture)
        if let previous, previous.columns.first?.count == signature.columns.first?.count,
           previous.rows.first?.count == signature.rows.first?.count {
            let (dx, dy) = estimator.motion(from: previous, to: signature)
            position = (position.x + dx, position.y + dy)
        } else if previous != nil {
            // A new size (a camera switch): its path starts here.
            past.removeAll()
        }
        previous = signature
        waiting.append(Waiting(sample: sample, position: position))
        guard waiting.count > radius else { return nil }
        return try steady(waiting.removeFirst())
    }

    /// The pictures still waiting, steadied with the frames there are (the end of an offline pass).
    /// - Returns: The frames still in the window, in order, each steadied with the frames after
    ///   it that there are.
    /// - Throws: ``ReelError`` when a picture cannot be scaled.
    public func flush() throws(ReelError) -> [SampleBuffer] {
        var out: [SampleBuffer] = []
        while !waiting.isEmpty { out.append(try steady(waiting.removeFirst())) }
        return out
    }

    /// Forgets the path and the waiting pictures.
    public func reset() {
        previous = nil
        position = (0, 0)
        past.removeAll()
        waiting.removeAll()
        lastTime = .invalid
    }

    private func steady(_ frame: Waiting) throws(ReelError) -> SampleBuffer {
        let window = past + [frame.position] + waiting.map(\.position)
        let centre = past.count
        var sum = (x: 0.0, y: 0.0), weights = 0.0
        for (index, point) in window.enumerated() {
            let distance = Double(index - centre)
            let weight = exp(-distance * distance / (2 * sigma * sigma))
            sum = (sum.x + weight * point.x, sum.y + weight * point.y)
            weights += weight
        }
        let smoothed = (x: sum.x / weights, y: sum.y / weights)
        past.append(frame.position)
        if past.count > radius { past.removeFirst(past.count - radius) }
        guard let picture = frame.sample.pixelBuffer else { return frame.sample }
        let steadied = try crop(picture, by: (frame.position.x - smoothed.x, frame.position.y - smoothed.y))
        return SampleBuffer(pixelBuffer: steadied, presentationTime: frame.sample.presentationTime,
                            duration: frame.sample.duration)
    }

    // MARK: - After the fact

    /// The corrections that steady a whole clip whose frame-to-frame motions are `motions`
    /// (the first frame's is zero): for each frame, its place on the camera's path less the
    /// path smoothed with a Gaussian of `sigma` frames (over ±3σ, the future included).
    /// - Returns: one correction per frame, in pixels, for ``steadied(_:correction:)``.
    /// - Parameters:
    ///   - motions: Each frame's motion from the one before, as ``GlobalMotionEstimator/motion(from:to:)`` gives it.
    ///   - sigma: How many frames the smoothing spans (at least 0.5): larger is steadier and
    ///     crops more of a deliberate pan.
    public static func corrections(for motions: [(dx: Double, dy: Double)], sigma: Double) -> [(x: Double, y: Double)] {
        var path: [(x: Double, y: Double)] = []
        path.reserveCapacity(motions.count)
        var position = (x: 0.0, y: 0.0)
        for motion in motions {
            position = (position.x + motion.dx, position.y + motion.dy)
            path.append(position)
        }
        let sigma = max(0.5, sigma), reach = Int((3 * sigma).rounded(.up))
        let weights = (0...reach).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        return path.indices.map { index in
            var sum = (x: 0.0, y: 0.0), total = 0.0
            for other in max(0, index - reach)...min(path.count - 1, index + reach) {
                let weight = weights[abs(other - index)]
                sum = (sum.x + weight * path[other].x, sum.y + weight * path[other].y)
                total += weight
            }
            return (path[index].x - sum.x / total, path[index].y - sum.y / total)
        }
    }

    /// `picture` cropped to 90 % at the place `correction` (pixels, held within the 5 %
    /// margin) gives, scaled back to its size. Pictures other than yuv420p pass unchanged.
    /// - Parameters:
    ///   - picture: The frame to steady.
    ///   - correction: Its correction from ``corrections(for:sigma:)``, in pixels.
    /// - Returns: The steadied frame, the same size as `picture`.
    /// - Throws: ``ReelError`` when the picture cannot be scaled.
    public func steadied(_ picture: PixelBuffer, correction: (x: Double, y: Double)) throws(ReelError) -> PixelBuffer {
        guard picture.pixelFormat == .yuv420p else { return picture }
        return try crop(picture, by: (correction.x, correction.y))
    }

    /// The 90 % window moved by `offset` from the centre (held within the picture), scaled
    /// back to the picture's size.
    private func crop(_ picture: PixelBuffer, by offset: (Double, Double)) throws(ReelError) -> PixelBuffer {
        let width = picture.width, height = picture.height
        let cropWidth = Int(Double(width) * Self.kept) & ~1, cropHeight = Int(Double(height) * Self.kept) & ~1
        let marginX = Double(width - cropWidth) / 2, marginY = Double(height - cropHeight) / 2
        let shiftX = offset.0.isFinite ? min(max(offset.0, -marginX), marginX) : 0
        let shiftY = offset.1.isFinite ? min(max(offset.1, -marginY), marginY) : 0
        lastCorrection = (shiftX, shiftY)
        // Even, so that the chroma planes move with the luma.
        let originX = min(max(Int(((marginX + shiftX) / 2).rounded()) * 2, 0), width - cropWidth)
        let originY = min(max(Int(((marginY + shiftY) / 2).rounded()) * 2, 0), height - cropHeight)
        if cropPool?.width != cropWidth || cropPool?.height != cropHeight {
            cropPool = try PixelBufferPool(width: cropWidth, height: cropHeight, pixelFormat: .yuv420p, maximumFreeBuffers: 4)
        }
        if outputPool?.width != width || outputPool?.height != height {
            outputPool = try PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 24)
        }
        guard let cropPool, let outputPool else { return picture }
        let window = cropPool.makePixelBuffer()
        for plane in 0..<3 {
            let scale = plane == 0 ? 1 : 2
            let rowBytes = window.planes[plane].width, rows = window.planes[plane].height
            let left = originX / scale, top = originY / scale
            picture.withPlane(plane) { source, sourceStride in
                window.withMutablePlane(plane) { target, targetStride in
                    for row in 0..<rows {
                        (target + row * targetStride).copyMemory(from: source + (top + row) * sourceStride + left, byteCount: rowBytes)
                    }
                }
            }
        }
        let output = outputPool.makePixelBuffer()
        try scaler.convert(window, into: output)
        return output
    }
}

import Foundation
import ReelAV
public import ReelCore

/// Steadies a stream of pictures: the global motion of each frame, its shift and its turn
/// (``GlobalMotionEstimator/rigidMotion(from:to:)``), adds up to the camera's path; the path
/// smoothed with a Gaussian over a window of frames around each one is where the camera
/// should have been; each picture is cropped to 90 % of its width and height, turned and
/// moved to the place that puts it there (`RotatedCopy`, to the nearest pixel), and scaled
/// back to its size.
///
/// A picture waits for the `radius` frames after it (the window's future half), so it
/// leaves `radius` frames late: that is the mode's latency. The crop keeps a margin of 5 %
/// on every side, which the turned window's corners must stay inside: the turn is held
/// within what half the margin allows (1.8° at 16:9), and the shift within what the turn leaves.
///
/// Confined to one queue (the session's video queue, or the caller of an offline pass).
public final class LiveStabilizer: @unchecked Sendable {
    /// The part of each side kept: 90 %, a 10 % crop.
    public static let kept = 0.9

    private struct Waiting {
        let sample: SampleBuffer
        let position: Pose
    }

    /// A place on the camera's path: pixels right and down, radians clockwise.
    public typealias Pose = (x: Double, y: Double, angle: Double)

    /// Frames on each side of a picture that its smoothing looks at.
    public let radius: Int
    /// The Gaussian's spread, in frames.
    public let sigma: Double
    private let estimator = GlobalMotionEstimator()
    private var previous: GlobalMotionEstimator.Signature?
    private var lastTime: MediaTime = .invalid
    private var position: Pose = (0, 0, 0)
    private var past: [Pose] = []
    private var waiting: [Waiting] = []
    private let scaler = Scaler()
    private var cropPool: PixelBufferPool?
    private var outputPool: PixelBufferPool?
    /// The correction last applied, in pixels (for tests and the status line).
    public private(set) var lastCorrection = (x: 0.0, y: 0.0)
    /// The turn last applied, in radians (for tests and the status line).
    public private(set) var lastRotation = 0.0

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
            let motion = estimator.rigidMotion(from: previous, to: signature)
            position = (position.x + motion.dx, position.y + motion.dy, position.angle + motion.angle)
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
        position = (0, 0, 0)
        past.removeAll()
        waiting.removeAll()
        lastTime = .invalid
    }

    private func steady(_ frame: Waiting) throws(ReelError) -> SampleBuffer {
        let window = past + [frame.position] + waiting.map(\.position)
        let centre = past.count
        var sum: Pose = (0, 0, 0), weights = 0.0
        for (index, point) in window.enumerated() {
            let distance = Double(index - centre)
            let weight = exp(-distance * distance / (2 * sigma * sigma))
            sum = (sum.x + weight * point.x, sum.y + weight * point.y, sum.angle + weight * point.angle)
            weights += weight
        }
        let smoothed: Pose = (sum.x / weights, sum.y / weights, sum.angle / weights)
        past.append(frame.position)
        if past.count > radius { past.removeFirst(past.count - radius) }
        guard let picture = frame.sample.pixelBuffer else { return frame.sample }
        let steadied = try crop(picture, by: (frame.position.x - smoothed.x, frame.position.y - smoothed.y,
                                              frame.position.angle - smoothed.angle))
        return SampleBuffer(pixelBuffer: steadied, presentationTime: frame.sample.presentationTime,
                            duration: frame.sample.duration)
    }

    // MARK: - After the fact

    /// The corrections that steady a whole clip whose frame-to-frame motions are `motions`
    /// (the first frame's is zero): for each frame, its place on the camera's path less the
    /// path smoothed with a Gaussian of `sigma` frames (over ±3σ, the future included).
    /// - Returns: one correction per frame (pixels and radians) for ``steadied(_:correction:)``.
    /// - Parameters:
    ///   - motions: Each frame's motion from the one before (pixels and radians), as
    ///     ``GlobalMotionEstimator`` gives it.
    ///   - sigma: How many frames the smoothing spans (at least 0.5): larger is steadier and
    ///     crops more of a deliberate pan.
    public static func corrections(for motions: [(dx: Double, dy: Double, angle: Double)], sigma: Double) -> [Pose] {
        var path: [Pose] = []
        path.reserveCapacity(motions.count)
        var position: Pose = (0, 0, 0)
        for motion in motions {
            position = (position.x + motion.dx, position.y + motion.dy, position.angle + motion.angle)
            path.append(position)
        }
        let sigma = max(0.5, sigma), reach = Int((3 * sigma).rounded(.up))
        let weights = (0...reach).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        return path.indices.map { index in
            var sum: Pose = (0, 0, 0), total = 0.0
            for other in max(0, index - reach)...min(path.count - 1, index + reach) {
                let weight = weights[abs(other - index)]
                sum = (sum.x + weight * path[other].x, sum.y + weight * path[other].y, sum.angle + weight * path[other].angle)
                total += weight
            }
            return (path[index].x - sum.x / total, path[index].y - sum.y / total, path[index].angle - sum.angle / total)
        }
    }

    /// `picture` cropped to 90 %, turned and moved as `correction` (pixels and radians,
    /// held within the 5 % margin) gives, scaled back to its size. Pictures other than
    /// yuv420p pass unchanged.
    /// - Parameters:
    ///   - picture: The frame to steady.
    ///   - correction: Its correction from ``corrections(for:sigma:)``, in pixels and radians.
    /// - Returns: The steadied frame, the same size as `picture`.
    /// - Throws: ``ReelError`` when the picture cannot be scaled.
    public func steadied(_ picture: PixelBuffer, correction: Pose) throws(ReelError) -> PixelBuffer {
        guard picture.pixelFormat == .yuv420p else { return picture }
        return try crop(picture, by: correction)
    }

    /// The 90 % window turned by `offset.angle` and moved by `offset.x, y` from the centre
    /// (held within the picture), scaled back to the picture's size.
    private func crop(_ picture: PixelBuffer, by offset: Pose) throws(ReelError) -> PixelBuffer {
        let width = picture.width, height = picture.height
        let cropWidth = Int(Double(width) * Self.kept) & ~1, cropHeight = Int(Double(height) * Self.kept) & ~1
        let marginX = Double(width - cropWidth) / 2, marginY = Double(height - cropHeight) / 2
        let halfWidth = Double(cropWidth) / 2, halfHeight = Double(cropHeight) / 2
        // The turned window's corners reach out by these; the turn takes at most half of either margin.
        let largest = asin(min(1, min(marginX / max(1, halfHeight), marginY / max(1, halfWidth)) / 2))
        let angle = offset.angle.isFinite ? min(max(offset.angle, -largest), largest) : 0
        let sine = abs(sin(angle)), cosine = cos(angle)
        let roomX = max(0, marginX - halfHeight * sine - halfWidth * (1 - cosine))
        let roomY = max(0, marginY - halfWidth * sine - halfHeight * (1 - cosine))
        let shiftX = offset.x.isFinite ? min(max(offset.x, -roomX), roomX) : 0
        let shiftY = offset.y.isFinite ? min(max(offset.y, -roomY), roomY) : 0
        lastCorrection = (shiftX, shiftY)
        lastRotation = angle
        if cropPool?.width != cropWidth || cropPool?.height != cropHeight {
            cropPool = try PixelBufferPool(width: cropWidth, height: cropHeight, pixelFormat: .yuv420p, maximumFreeBuffers: 4)
        }
        if outputPool?.width != width || outputPool?.height != height {
            outputPool = try PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 24)
        }
        guard let cropPool, let outputPool else { return picture }
        let window = cropPool.makePixelBuffer()
        // The window's point q is the picture's at its centre + shift + R(angle)·q.
        RotatedCopy.copy(from: picture, into: window,
                         centre: (Double(width - 1) / 2 + shiftX, Double(height - 1) / 2 + shiftY), angle: angle)
        let output = outputPool.makePixelBuffer()
        // The window is cut from the picture, so its colours are in the picture's matrix.
        try scaler.convert(window, into: output, matrix: ColorMatrix(height: height))
        return output
    }
}

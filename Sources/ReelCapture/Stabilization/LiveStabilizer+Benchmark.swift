import Foundation
public import ReelCore

extension LiveStabilizer {
    /// What steadying one frame costs, measured in this thread's CPU time (so a busy
    /// machine's waits do not count): `frames` pictures of `virtual:handheld-camera` at
    /// `width`×`height` through a stabilizer of `mode`, the pictures drawn outside the timing
    /// (and timed on their own: the shaking, rolling camera's cost).
    /// - Returns: CPU milliseconds a frame for the whole step, for the motion estimate alone, and
    ///   for drawing the camera's picture.
    /// - Parameters:
    ///   - width: The pictures' width in pixels.
    ///   - height: The pictures' height in pixels.
    ///   - frames: How many pictures to time (the more, the steadier the figure).
    ///   - mode: The stabilization mode, which sets the smoothing window.
    /// - Throws: ``ReelError`` for a size a pixel buffer cannot have, or a mode that is `off`.
    public static func benchmark(width: Int, height: Int, frames: Int, mode: CaptureVideoStabilizationMode)
        throws(ReelError) -> (milliseconds: Double, estimateMilliseconds: Double, cameraMilliseconds: Double)
    {
        guard let stabilizer = LiveStabilizer(mode: mode) else {
            throw ReelError(.invalidArgument, "stabilization \(mode) does nothing to measure")
        }
        let pool = try PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 48)
        let estimator = GlobalMotionEstimator()
        var total = 0.0, estimating = 0.0, drawing = 0.0
        var previous: GlobalMotionEstimator.Signature?
        let count = max(1, frames)
        for index in 0..<count {
            let picture = pool.makePixelBuffer()
            let drawn = threadCPUTime()
            HandheldCamera.render(frame: Int64(index), rate: 30, into: picture)
            drawing += threadCPUTime() - drawn
            let sample = SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(index), timescale: 30),
                                      duration: MediaTime(value: 1, timescale: 30))
            let began = threadCPUTime()
            _ = try stabilizer.process(sample)
            let middle = threadCPUTime()
            let signature = estimator.signature(of: picture)
            if let previous { _ = estimator.rigidMotion(from: previous, to: signature) }
            previous = signature
            total += middle - began
            estimating += threadCPUTime() - middle
        }
        return (total * 1000 / Double(count), estimating * 1000 / Double(count), drawing * 1000 / Double(count))
    }

    /// This thread's CPU time in seconds.
    private static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

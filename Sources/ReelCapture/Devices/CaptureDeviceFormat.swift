public import ReelCore

extension CaptureDevice {
    /// One mode the device can capture in: size, pixel format and the ranges its controls
    /// take while in it. `AVCaptureDevice.Format`.
    public struct Format: Sendable, Hashable, Codable, CustomStringConvertible {
        public var width: Int
        public var height: Int
        public var pixelFormat: String
        /// Frames per second the format supports, lowest and highest. `videoSupportedFrameRateRanges`.
        public var minFrameRate: Double
        public var maxFrameRate: Double
        /// `minISO`, `maxISO`; zero for devices without an ISO control.
        public var minISO: Float
        public var maxISO: Float
        /// `minExposureDuration`, `maxExposureDuration`, in seconds; zero without an exposure control.
        public var minExposureSeconds: Double
        public var maxExposureSeconds: Double
        /// `videoMaxZoomFactor`: 1 for a device that cannot zoom.
        public var videoMaxZoomFactor: Double
        /// Whether stabilization can be turned on in this format (see ``isVideoStabilizationModeSupported(_:)``).
        public var supportsVideoStabilization: Bool

        /// A format as a device reports it (a V4L2 driver's, or a virtual device's list).
        /// - Parameters:
        ///   - width: The picture's width in pixels.
        ///   - height: The picture's height in pixels.
        ///   - pixelFormat: The device's name for its pixel layout (`yuyv422`, `mjpeg`, `yuv420p`).
        ///   - minFrameRate: The slowest frame rate, frames per second.
        ///   - maxFrameRate: The fastest frame rate, frames per second.
        ///   - minISO: The lowest ISO; 0 without an ISO control.
        ///   - maxISO: The highest ISO; 0 without an ISO control.
        ///   - minExposureSeconds: The shortest exposure; 0 without an exposure control.
        ///   - maxExposureSeconds: The longest exposure; 0 without an exposure control.
        ///   - videoMaxZoomFactor: The largest zoom factor; 1 for a device that cannot zoom.
        ///   - supportsVideoStabilization: Whether stabilization can be turned on in this format.
        public init(width: Int, height: Int, pixelFormat: String, minFrameRate: Double, maxFrameRate: Double,
                    minISO: Float = 0, maxISO: Float = 0, minExposureSeconds: Double = 0, maxExposureSeconds: Double = 0,
                    videoMaxZoomFactor: Double = 1, supportsVideoStabilization: Bool = false) {
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.minFrameRate = minFrameRate
            self.maxFrameRate = maxFrameRate
            self.minISO = minISO
            self.maxISO = maxISO
            self.minExposureSeconds = minExposureSeconds
            self.maxExposureSeconds = maxExposureSeconds
            self.videoMaxZoomFactor = videoMaxZoomFactor
            self.supportsVideoStabilization = supportsVideoStabilization
        }

        /// `minExposureDuration`.
        public var minExposureDuration: MediaTime { MediaTime(seconds: minExposureSeconds, preferredTimescale: 1_000_000) }
        /// `maxExposureDuration`.
        public var maxExposureDuration: MediaTime { MediaTime(seconds: maxExposureSeconds, preferredTimescale: 1_000_000) }

        /// Whether a connection in this format can be put in `mode`: `off` always, the others
        /// where the format ``supportsVideoStabilization``. `isVideoStabilizationModeSupported(_:)`.
        /// - Parameter mode: The stabilization asked for.
        /// - Returns: Whether a video connection from this format can steady its pictures so.
        public func isVideoStabilizationModeSupported(_ mode: CaptureVideoStabilizationMode) -> Bool {
            mode == .off || supportsVideoStabilization
        }

        /// Whether the format can run at `rate` frames per second.
        /// - Parameter rate: Frames per second.
        /// - Returns: True when ``CaptureDevice/setFrameRate(_:)`` would accept `rate` in this format.
        public func supports(frameRate rate: Double) -> Bool { rate >= minFrameRate && rate <= maxFrameRate }

        public var description: String {
            "\(width)x\(height) \(pixelFormat) \(minFrameRate.formatted())-\(maxFrameRate.formatted()) fps"
        }
    }
}

extension Double {
    /// `30`, not `30.0`; `29.97` stays.
    func formatted() -> String {
        rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

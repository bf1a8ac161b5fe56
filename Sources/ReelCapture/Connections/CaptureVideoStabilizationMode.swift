/// How a connection steadies a hand-held camera's pictures. `AVCaptureVideoStabilizationMode`.
///
/// Reel stabilises on the capture path (``LiveStabilizer``): global motion is measured on
/// a small copy of each frame's luma, smoothed over a window, and taken out by a
/// crop-and-shift that keeps 90 % of each side (a 10 % crop, scaled back to the full size).
public enum CaptureVideoStabilizationMode: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Pictures pass as the camera takes them.
    case off = 0
    /// Smoothing over a short window (±6 frames, 0.4 s in all at 30 fps), at a latency of 6 frames.
    case standard = 1
    /// Smoothing over a long window (±15 frames, 1 s at 30 fps), at a latency of 15 frames; steadier, later.
    case cinematic = 2
    /// The mode the session chooses: `standard` here (AVFoundation picks per format).
    case auto = -1

    /// The mode `auto` resolves to, and the others as themselves.
    var resolved: CaptureVideoStabilizationMode { self == .auto ? .standard : self }

    /// The mode's name as `reel record --stabilization` and the studio spell it.
    public var name: String {
        switch self {
        case .off: "off"
        case .standard: "standard"
        case .cinematic: "cinematic"
        case .auto: "auto"
        }
    }

    /// How many frames a picture waits for the frames after it before it is delivered.
    public var latencyFrames: Int {
        switch resolved {
        case .off, .auto: 0
        case .standard: 6
        case .cinematic: 15
        }
    }
}

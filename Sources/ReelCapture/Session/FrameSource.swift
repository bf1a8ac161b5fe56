import ReelCore

/// What a camera made of one frame's moment.
enum FrameOutcome {
    /// The picture is drawn.
    case drawn
    /// Nothing to show yet: a live camera whose first picture has not come.
    case notYet
    /// The device went away (the error says why, when there is one).
    case lost(ReelError?)
}

/// A kind of camera's way of drawing the picture of one frame's moment, with the device's
/// controls applied: the virtual camera, a file, a live input. The session asks the
/// camera's source once a frame.
protocol FrameSource {
    /// Draws frame `index`, `seconds` into the capture at `rate` frames a second, of
    /// `device` into `picture`, lit by the flash if `flash`.
    func draw(frame index: Int64, at seconds: Double, rate: Double, flash: Bool, of device: CaptureDevice,
              into picture: PixelBuffer) -> FrameOutcome
}

extension CaptureDevice {
    /// The source of this camera's pictures: nil for a microphone, and for a file or live
    /// camera that cannot be opened.
    var frameSource: (any FrameSource)? {
        switch source {
        case .virtualCamera: VirtualCameraSource()
        case .file: FileCamera.shared(for: self)
        case .x11, .v4l2: LiveDevice.shared(for: self)
        case .virtualMicrophone, .pulse, .alsa: nil
        }
    }
}

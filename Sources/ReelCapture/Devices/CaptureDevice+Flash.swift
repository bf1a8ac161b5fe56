public import ReelCore

/// The device-level flash of AVFoundation's older still-image path, which seed 001 sets
/// (`device.flashMode = AVCaptureFlashModeAuto` after `isFlashModeSupported`).
///
/// Each device keeps its own mode, off until set: after a switch to a camera without a
/// flash (the front camera) the mode in force is that camera's `.off`, not the old one's.
/// A port of the still-image path passes it on: `PhotoSettings(flashMode: device.flashMode)`.
extension CaptureDevice {
    /// Whether the device can use `mode`: `.off` always, `.on` and `.auto` with a flash.
    /// `isFlashModeSupported(_:)`.
    /// - Parameter mode: The flash mode a photo would ask for.
    /// - Returns: False for `.on` and `.auto` without a flash: ``PhotoOutput`` then takes the photo with `.off`.
    public func isFlashModeSupported(_ mode: FlashMode) -> Bool {
        mode == .off || hasFlash
    }

    /// The device's flash mode, `.off` until set. Setting a mode the device lacks leaves it
    /// as it was (ask ``isFlashModeSupported(_:)`` first, as the seeds do; AVFoundation
    /// raises an exception instead). `flashMode`.
    public var flashMode: FlashMode {
        get { lock.withLock { controls.flashMode } }
        set { try? setFlashMode(newValue) }
    }

    /// Sets the device's flash mode.
    /// - Parameter mode: the mode to use from now on.
    /// - Throws: ``ReelError`` `.unsupported` naming the device when it has no flash for `mode`.
    public func setFlashMode(_ mode: FlashMode) throws(ReelError) {
        guard isFlashModeSupported(mode) else {
            throw ReelError(.unsupported, "the device has no flash for flash mode \(mode.rawValue)", subject: uniqueID)
        }
        lock.withLock { controls.flashMode = mode }
    }
}

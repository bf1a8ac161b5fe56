public import Foundation

/// What a session tells the rest of the app, through `NotificationCenter.default`, with
/// AVFoundation's names. The object is the session (the device, for subject-area changes).
extension CaptureSession {
    /// A device or output failed; `userInfo[errorKey]` holds the ``ReelError``.
    /// `AVCaptureSession.runtimeErrorNotification`.
    public static let runtimeErrorNotification = Notification.Name("ReelCaptureSessionRuntimeError")
    /// A device went away; frames stop until it returns. `userInfo[interruptionReasonKey]`
    /// says why. `AVCaptureSession.wasInterruptedNotification`.
    public static let wasInterruptedNotification = Notification.Name("ReelCaptureSessionWasInterrupted")
    /// `AVCaptureSession.interruptionEndedNotification`.
    public static let interruptionEndedNotification = Notification.Name("ReelCaptureSessionInterruptionEnded")
    /// `AVCaptureSession.didStartRunningNotification`.
    public static let didStartRunningNotification = Notification.Name("ReelCaptureSessionDidStartRunning")
    /// `AVCaptureSession.didStopRunningNotification`.
    public static let didStopRunningNotification = Notification.Name("ReelCaptureSessionDidStopRunning")
    /// The picture changed a lot and stayed changed, on a device with
    /// `isSubjectAreaChangeMonitoringEnabled`; the object is the device.
    /// `AVCaptureDevice.subjectAreaDidChangeNotification`.
    public static let subjectAreaDidChangeNotification = Notification.Name("ReelCaptureDeviceSubjectAreaDidChange")

    /// `AVCaptureSessionErrorKey`.
    public static let errorKey = "ReelCaptureSessionErrorKey"
    /// `AVCaptureSessionInterruptionReasonKey`: a ``InterruptionReason`` raw value.
    public static let interruptionReasonKey = "ReelCaptureSessionInterruptionReasonKey"

    /// Why frames stopped. `AVCaptureSession.InterruptionReason`.
    public enum InterruptionReason: String, Sendable {
        case videoDeviceNotAvailable, audioDeviceNotAvailable
    }

}

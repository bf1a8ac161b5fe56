public import ReelCore

/// A device feeding a session. `AVCaptureDeviceInput`.
public final class CaptureDeviceInput: Sendable {
    public let device: CaptureDevice

    /// - Parameter device: The camera, microphone or file the input reads from.
    /// - Throws: ``ReelError`` `.permissionDenied`, with how to grant access, when this
    ///   process may not open the device.
    public init(device: CaptureDevice) throws(ReelError) {
        let (status, remedy) = device.authorization
        guard status == .authorized else {
            throw ReelError(.permissionDenied, "this user may not open the device" + (remedy.map { "; \($0)" } ?? ""),
                            subject: device.uniqueID)
        }
        self.device = device
    }
}

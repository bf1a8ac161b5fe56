public import ReelCore
import Dispatch

/// The permission request of seed 004's flow. `requestAccess(for:completionHandler:)`.
extension CaptureDevice {
    /// Asks for access to the default device of `mediaType` and calls `handler` with the
    /// answer, on a global queue as AVFoundation does. Linux has no permission prompt: the
    /// answer is whether this user may open the device now (``authorizationStatus(for:)``;
    /// a denied device's ``authorization`` says how to grant access).
    /// - Parameters:
    ///   - mediaType: `.video` or `.audio`.
    ///   - handler: called once with `true` when access is granted.
    public static func requestAccess(for mediaType: ReelCore.MediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        let granted = authorizationStatus(for: mediaType) == .authorized
        DispatchQueue.global().async { handler(granted) }
    }
}

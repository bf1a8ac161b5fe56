import Foundation
package import ReelCore

/// The one way into the driver: retries EINTR and turns an errno into a ``ReelError``
/// that says what happened to the camera and, where the user can, what to do.
package enum V4L2 {
    /// The driver that cameras opened in this task talk to: the kernel's, or a test's fake
    /// bound with `V4L2.$driver.withValue(fake) { … }` for that test alone. An open camera
    /// keeps the driver it was opened with, so threads that read it later need no binding.
    @TaskLocal package static var driver: any V4L2Driver = KernelV4L2()

    /// `ioctl(descriptor, request, &value)` until it is not interrupted.
    /// - Parameters:
    ///   - driver: the driver to call.
    ///   - descriptor: an open node.
    ///   - request: the ioctl.
    ///   - value: its argument, read and written in place.
    ///   - device: the device ID errors name.
    /// - Throws: ``ReelError`` from ``error(_:operation:device:)``.
    package static func call<T>(_ driver: any V4L2Driver, _ descriptor: Int32, _ request: V4L2Request, _ value: inout T,
                                device: String) throws(ReelError) {
        while true {
            let result = withUnsafeMutableBytes(of: &value) { bytes -> Int32 in
                guard let base = bytes.baseAddress else { return EINVAL }
                return driver.ioctl(descriptor, request.number, base)
            }
            if result == 0 { return }
            if result == EINTR { continue }
            throw error(result, operation: request.name, device: device)
        }
    }

    /// The error for errno `code` from `operation` on `device`.
    /// - Parameters:
    ///   - code: the errno.
    ///   - operation: the call that failed (`open`, `VIDIOC_S_CTRL`…).
    ///   - device: the device ID.
    /// - Returns: a ``ReelError`` whose code and message say what happened, and what to do.
    package static func error(_ code: Int32, operation: String, device: String) -> ReelError {
        let text = String(cString: strerror(code))
        return switch code {
        case EBUSY:
            ReelError(.deviceBusy, "the camera is in use by another program (\(text))", subject: device, operation: operation)
        case ENODEV, ENXIO:
            ReelError(.deviceNotConnected, "the camera is not connected (\(text)); it was unplugged or switched off",
                      subject: device, operation: operation)
        case EACCES, EPERM:
            ReelError(.permissionDenied, "this user may not open the camera (\(text)); add yourself to the video group "
                      + "(usermod -aG video $USER) and log in again", subject: device, operation: operation)
        case ENOENT:
            ReelError(.fileNotFound, "no such device (\(text))", subject: device, operation: operation)
        case EINVAL, ENOTTY:
            ReelError(.unsupported, "the driver does not do \(operation) (\(text))", subject: device, operation: operation)
        default:
            ReelError(.io, text, subject: device, operation: operation)
        }
    }
}

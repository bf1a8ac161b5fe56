import CV4L2
import Foundation
import ReelCore
import Synchronization

/// The ioctl boundary of the V4L2 layer: the kernel here, a fake in the tests. Everything
/// above it speaks Swift; the `v4l2_*` structs pass through it and no further.
protocol V4L2Driver: AnyObject, Sendable {
    /// The camera nodes to look at (`/dev/video*`).
    func nodePaths() -> [String]
    /// A descriptor, or the errno the open failed with.
    func open(_ path: String) -> Result<Int32, V4L2Errno>
    func close(_ descriptor: Int32)
    /// ioctl: 0, or the errno it failed with.
    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    /// How libavdevice reads the node's frames at `rate`.
    func frameOpening(path: String, rate: Double) -> LiveDevice.Opening
}

/// An errno from the driver.
struct V4L2Errno: Error, Sendable { var value: Int32 }

/// The kernel's V4L2: open(2), close(2), ioctl(2). Frames are read by libavdevice's
/// video4linux2 input, which already does mmap streaming, MJPEG and YUYV decoding and
/// timestamps through FFmpeg; Reel's own code keeps to what libavdevice lacks: discovery,
/// the controls and the errors.
final class KernelV4L2: V4L2Driver {
    func nodePaths() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }.map { "/dev/\($0)" }
    }

    func open(_ path: String) -> Result<Int32, V4L2Errno> {
        let descriptor = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        return descriptor >= 0 ? .success(descriptor) : .failure(V4L2Errno(value: errno))
    }

    func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        reel_v4l2_ioctl(descriptor, request, argument) == 0 ? 0 : errno
    }

    func frameOpening(path: String, rate: Double) -> LiveDevice.Opening {
        .init(inputFormat: "video4linux2", url: path, options: ["framerate": String(Int(rate.rounded()))], mediaType: .video)
    }
}

/// The V4L2 ioctls Reel makes, with their request numbers.
enum V4L2Request: Sendable {
    case queryCapability, enumerateFormat, enumerateFrameSizes, enumerateFrameIntervals
    case queryControl, getControl, setControl, getParameters, setParameters

    var number: UInt {
        switch self {
        case .queryCapability: reel_vidioc_querycap()
        case .enumerateFormat: reel_vidioc_enum_fmt()
        case .enumerateFrameSizes: reel_vidioc_enum_framesizes()
        case .enumerateFrameIntervals: reel_vidioc_enum_frameintervals()
        case .queryControl: reel_vidioc_queryctrl()
        case .getControl: reel_vidioc_g_ctrl()
        case .setControl: reel_vidioc_s_ctrl()
        case .getParameters: reel_vidioc_g_parm()
        case .setParameters: reel_vidioc_s_parm()
        }
    }

    var name: String {
        switch self {
        case .queryCapability: "VIDIOC_QUERYCAP"
        case .enumerateFormat: "VIDIOC_ENUM_FMT"
        case .enumerateFrameSizes: "VIDIOC_ENUM_FRAMESIZES"
        case .enumerateFrameIntervals: "VIDIOC_ENUM_FRAMEINTERVALS"
        case .queryControl: "VIDIOC_QUERYCTRL"
        case .getControl: "VIDIOC_G_CTRL"
        case .setControl: "VIDIOC_S_CTRL"
        case .getParameters: "VIDIOC_G_PARM"
        case .setParameters: "VIDIOC_S_PARM"
        }
    }
}

/// The one way into the driver: retries EINTR and turns an errno into a ``ReelError``
/// that says what happened to the camera and, where the user can, what to do.
enum V4L2 {
    private static let _driver = Mutex<any V4L2Driver>(KernelV4L2())

    /// The driver the V4L2 layer talks to (the tests put a fake here).
    static var driver: any V4L2Driver {
        get { _driver.withLock { $0 } }
        set { _driver.withLock { $0 = newValue } }
    }

    /// `ioctl(descriptor, request, &value)` until it is not interrupted.
    /// - Throws: ``ReelError`` from ``error(_:operation:device:)``.
    static func call<T>(_ driver: any V4L2Driver, _ descriptor: Int32, _ request: V4L2Request, _ value: inout T,
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

    /// The error for `code` from `operation` on `device`.
    static func error(_ code: Int32, operation: String, device: String) -> ReelError {
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

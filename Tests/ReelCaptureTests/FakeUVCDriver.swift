import CV4L2
import Foundation
import ReelAV

/// A fake V4L2 driver at the ioctl boundary, replaying a real UVC webcam's answers.
///
/// Sources (no camera here to ask):
/// - The node, driver and formats: a Logitech UVC webcam (USB 046d:0991, driver uvcvideo)
///   as its `v4l2-ctl --all` and `ffmpeg -f video4linux2 -list_formats all` output shows at
///   https://mras2an.webnode.fr/embedded-linux/commandes-utiles/v4l/ : MJPEG and YUYV at
///   160x120 … 1920x1080 (a subset of its list is replayed). That page gives no frame
///   intervals; the ones here are the usual UVC ones (MJPEG 5–30 fps everywhere; YUYV
///   30 fps at 640x480, 10 at 1280x720, 5 at 1920x1080: USB 2 bandwidth), and are marked
///   as assumed. The metadata node /dev/video1 and the capability bits are what uvcvideo
///   reports on kernels since 4.16 (Video Capture and Metadata Capture on separate nodes).
/// - The controls: the Elgato Facecam's table "verified from live device testing" at
///   https://copyleftdev.github.io/facecam-ubuntu/device/controls.html (another UVC
///   camera; the Logitech page lists none): white balance auto and 2800–12500 K in steps
///   of 100, exposure auto (menu 0–3) and exposure time 1–2500 ×100 µs, zoom 1–31.
///   It has no focus, ISO or flash LED, which exercises the unsupported paths.
final class FakeUVCDriver: V4L2Driver, @unchecked Sendable {
    struct Control { var id: UInt32, type: UInt32, minimum: Int32, maximum: Int32, step: Int32, defaultValue: Int32 }

    let lock = NSLock()
    /// The next this many ioctls fail with EINTR, as a signal would make them.
    var pendingInterruptions = 0
    /// open(2) fails with this errno (EBUSY, EACCES…).
    var openError: Int32?
    /// Every ioctl fails with ENODEV from now on.
    var unplugged = false
    var ioctlCount = 0
    var values: [UInt32: Int32] = [:]
    var timePerFrame: (numerator: UInt32, denominator: UInt32)?

    static let sizes: [(UInt32, UInt32)] = [(640, 480), (160, 120), (320, 240), (1280, 720), (1920, 1080)]
    static let formats: [(fourcc: String, description: String)] = [("MJPG", "Motion-JPEG"), ("YUYV", "YUYV 4:2:2")]
    static let controls: [Control] = [
        Control(id: 0x0098_090c, type: 2, minimum: 0, maximum: 1, step: 1, defaultValue: 1), // white_balance_automatic
        Control(id: 0x0098_091a, type: 1, minimum: 2800, maximum: 12500, step: 100, defaultValue: 5000),
        Control(id: 0x009a_0901, type: 3, minimum: 0, maximum: 3, step: 1, defaultValue: 0), // auto_exposure (menu)
        Control(id: 0x009a_0902, type: 1, minimum: 1, maximum: 2500, step: 1, defaultValue: 156),
        Control(id: 0x009a_090d, type: 1, minimum: 1, maximum: 31, step: 1, defaultValue: 1),
    ]

    /// Frames per second the node lists for a format and size (assumed; see above).
    static func rates(_ fourcc: String, _ width: UInt32) -> [UInt32] {
        if fourcc == "MJPG" { return [30, 24, 20, 15, 10, 5] }
        return width >= 1920 ? [5] : width >= 1280 ? [10, 5] : [30, 25, 20, 15, 10, 5]
    }

    static func fourcc(_ text: String) -> UInt32 {
        text.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    func nodePaths() -> [String] { ["/dev/video0", "/dev/video1"] }

    func open(_ path: String) -> Result<Int32, V4L2Errno> {
        lock.withLock {
            if let openError { return .failure(V4L2Errno(value: openError)) }
            if unplugged { return .failure(V4L2Errno(value: ENODEV)) }
            switch path {
            case "/dev/video0": return .success(100)
            case "/dev/video1": return .success(101)
            default: return .failure(V4L2Errno(value: ENOENT))
            }
        }
    }

    func close(_ descriptor: Int32) {}

    func frameInput(path: String, rate: Double) -> V4L2FrameInput {
        // The picture a real node would stream, from libavdevice's lavfi input instead.
        V4L2FrameInput(inputFormat: "lavfi", url: "testsrc2=size=320x240:rate=\(Int(rate.rounded()))", options: [:])
    }

    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        lock.withLock {
            ioctlCount += 1
            if unplugged { return ENODEV }
            if pendingInterruptions > 0 {
                pendingInterruptions -= 1
                return EINTR
            }
            return answer(descriptor, request, argument)
        }
    }

    private func answer(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let metadataNode = descriptor == 101
        switch request {
        case reel_vidioc_querycap():
            let capability = argument.assumingMemoryBound(to: v4l2_capability.self)
            Self.write("uvcvideo", into: &capability.pointee.driver)
            Self.write("UVC Camera (046d:0991)", into: &capability.pointee.card)
            Self.write("usb-0000:00:1d.7-4", into: &capability.pointee.bus_info)
            capability.pointee.capabilities = 0x84a0_0001
            capability.pointee.device_caps = metadataNode ? 0x04a0_0000 : 0x0420_0001
            return 0
        case reel_vidioc_enum_fmt():
            let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            let index = Int(description.pointee.index)
            guard !metadataNode, index < Self.formats.count else { return EINVAL }
            description.pointee.pixelformat = Self.fourcc(Self.formats[index].fourcc)
            description.pointee.flags = Self.formats[index].fourcc == "MJPG" ? 1 : 0 // V4L2_FMT_FLAG_COMPRESSED
            Self.write(Self.formats[index].description, into: &description.pointee.description)
            return 0
        case reel_vidioc_enum_framesizes():
            let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            let index = Int(size.pointee.index)
            guard index < Self.sizes.count, Self.formats.contains(where: { Self.fourcc($0.fourcc) == size.pointee.pixel_format })
            else { return EINVAL }
            size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            size.pointee.discrete = v4l2_frmsize_discrete(width: Self.sizes[index].0, height: Self.sizes[index].1)
            return 0
        case reel_vidioc_enum_frameintervals():
            let interval = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
            guard let format = Self.formats.first(where: { Self.fourcc($0.fourcc) == interval.pointee.pixel_format }) else {
                return EINVAL
            }
            let rates = Self.rates(format.fourcc, interval.pointee.width)
            let index = Int(interval.pointee.index)
            guard index < rates.count else { return EINVAL }
            interval.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            interval.pointee.discrete = v4l2_fract(numerator: 1, denominator: rates[index])
            return 0
        case reel_vidioc_queryctrl():
            let query = argument.assumingMemoryBound(to: v4l2_queryctrl.self)
            guard !metadataNode, let control = Self.controls.first(where: { $0.id == query.pointee.id }) else { return EINVAL }
            query.pointee.type = control.type
            query.pointee.minimum = control.minimum
            query.pointee.maximum = control.maximum
            query.pointee.step = control.step
            query.pointee.default_value = control.defaultValue
            query.pointee.flags = 0
            return 0
        case reel_vidioc_s_ctrl():
            let setting = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let control = Self.controls.first(where: { $0.id == setting.pointee.id }) else { return EINVAL }
            guard (control.minimum...control.maximum).contains(setting.pointee.value) else { return ERANGE }
            values[control.id] = setting.pointee.value
            return 0
        case reel_vidioc_g_ctrl():
            let setting = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let control = Self.controls.first(where: { $0.id == setting.pointee.id }) else { return EINVAL }
            setting.pointee.value = values[control.id] ?? control.defaultValue
            return 0
        case reel_vidioc_s_parm():
            let parameters = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            let fraction = parameters.pointee.parm.capture.timeperframe
            timePerFrame = (fraction.numerator, fraction.denominator)
            return 0
        default:
            return ENOTTY
        }
    }

    static func write<T>(_ text: String, into field: inout T) {
        withUnsafeMutableBytes(of: &field) { bytes in
            let utf8 = Array(text.utf8.prefix(bytes.count - 1))
            bytes.copyBytes(from: utf8)
            bytes[utf8.count] = 0
        }
    }
}

import CV4L2
import Foundation
package import ReelCore

/// An open V4L2 node, in Swift values: what VIDIOC_QUERYCAP, ENUM_FMT, ENUM_FRAMESIZES and
/// ENUM_FRAMEINTERVALS say of it, its controls (VIDIOC_QUERYCTRL, S_CTRL) and its frame
/// interval (VIDIOC_S_PARM). Owns the descriptor, closed in `deinit`. Not thread-safe on
/// its own: the camera above it serialises writes.
package final class V4L2Device: @unchecked Sendable {
    /// One size of one pixel format, with the frame rates the driver lists for it.
    package struct Format: Sendable, Equatable {
        /// The V4L2 fourcc (`MJPG`, `YUYV`…).
        package var fourcc: UInt32
        package var width: Int
        package var height: Int
        /// Frames per second: each discrete interval, or a stepwise range's two ends.
        package var frameRates: [Double]
    }

    /// A control's range as VIDIOC_QUERYCTRL gives it.
    package struct ControlRange: Sendable, Equatable {
        package var minimum: Int32, maximum: Int32, step: Int32, defaultValue: Int32

        package init(minimum: Int32, maximum: Int32, step: Int32, defaultValue: Int32) {
            self.minimum = minimum
            self.maximum = maximum
            self.step = step
            self.defaultValue = defaultValue
        }
    }

    /// The device ID errors name (`v4l2:/dev/video0`).
    package let subject: String
    package let path: String
    /// The card name from VIDIOC_QUERYCAP (`UVC Camera (046d:0991)`), empty if it gave none.
    package let card: String
    /// Every capture format, size and frame rate the driver lists (discrete sizes; a stepwise
    /// range gives its two ends).
    package let formats: [Format]
    /// The driver this node was opened with.
    package let driver: any V4L2Driver
    private let descriptor: Int32

    /// Opens `path` and reads what the driver says of it.
    /// - Parameters:
    ///   - path: the node (`/dev/video0`).
    ///   - subject: the device ID errors name.
    ///   - driver: the kernel's, or a test's fake.
    /// - Throws: ``ReelError`` from the open or an ioctl (busy, unplugged, no permission…),
    ///   or `.unsupported` for a node that captures no video (a UVC metadata node).
    package init(path: String, subject: String, driver: any V4L2Driver) throws(ReelError) {
        self.path = path
        self.subject = subject
        self.driver = driver
        switch driver.open(path) {
        case .success(let descriptor): self.descriptor = descriptor
        case .failure(let failure): throw V4L2.error(failure.value, operation: "open", device: subject)
        }
        do throws(ReelError) {
            var capability = v4l2_capability()
            try V4L2.call(driver, descriptor, .queryCapability, &capability, device: subject)
            let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
            guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
                throw ReelError(.unsupported, "the node captures no video (a metadata or output node)", subject: subject)
            }
            card = Self.string(capability.card)
            formats = try Self.formats(driver, descriptor, device: subject)
        } catch {
            driver.close(descriptor)
            throw error
        }
    }

    deinit { driver.close(descriptor) }

    /// The range of control `id` (from linux/v4l2-controls.h), or nil when the driver has
    /// no such control or it is disabled.
    /// - Parameter id: the control's ID.
    /// - Returns: its range and default.
    /// - Throws: ``ReelError`` for a failure other than "no such control".
    package func controlRange(id: UInt32) throws(ReelError) -> ControlRange? {
        var query = v4l2_queryctrl()
        query.id = id
        do throws(ReelError) {
            try V4L2.call(driver, descriptor, .queryControl, &query, device: subject)
        } catch where error.code == .unsupported {
            return nil
        }
        guard query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { return nil }
        return ControlRange(minimum: query.minimum, maximum: query.maximum, step: query.step,
                            defaultValue: query.default_value)
    }

    /// VIDIOC_S_CTRL: sets control `id` to `value`.
    /// - Parameters:
    ///   - id: the control's ID.
    ///   - value: the new value, inside its range.
    /// - Throws: ``ReelError`` from the driver (`.deviceNotConnected` once it is unplugged).
    package func setControl(id: UInt32, value: Int32) throws(ReelError) {
        var setting = v4l2_control(id: id, value: value)
        try V4L2.call(driver, descriptor, .setControl, &setting, device: subject)
    }

    /// VIDIOC_S_PARM with a time per frame of `numerator`/`denominator` seconds.
    /// - Parameters:
    ///   - numerator: seconds per frame, over `denominator` (1001 for 29.97 fps).
    ///   - denominator: 30000 for 29.97 fps.
    /// - Throws: ``ReelError`` from the driver.
    package func setTimePerFrame(numerator: UInt32, denominator: UInt32) throws(ReelError) {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: numerator, denominator: denominator)
        try V4L2.call(driver, descriptor, .setParameters, &parameters, device: subject)
    }

    /// VIDIOC_QUERYCAP again: throws `.deviceNotConnected` once the camera is unplugged,
    /// even while no control changes.
    /// - Throws: ``ReelError`` from the driver.
    package func checkConnected() throws(ReelError) {
        var capability = v4l2_capability()
        try V4L2.call(driver, descriptor, .queryCapability, &capability, device: subject)
    }

    /// How libavdevice reads this node's frames at `rate`.
    /// - Parameter rate: frames per second.
    /// - Returns: the input format, URL and options for the driver this node was opened with.
    package func frameInput(rate: Double) -> V4L2FrameInput { driver.frameInput(path: path, rate: rate) }

    private static func formats(_ driver: any V4L2Driver, _ descriptor: Int32,
                                device: String) throws(ReelError) -> [Format] {
        var formats: [Format] = []
        for formatIndex in 0..<UInt32(64) {
            var description = v4l2_fmtdesc()
            description.index = formatIndex
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard try more(driver, descriptor, .enumerateFormat, &description, device: device) else { break }
            for sizeIndex in 0..<UInt32(256) {
                var size = v4l2_frmsizeenum()
                size.index = sizeIndex
                size.pixel_format = description.pixelformat
                guard try more(driver, descriptor, .enumerateFrameSizes, &size, device: device) else { break }
                let sizes = size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
                    ? [(size.discrete.width, size.discrete.height)]
                    : [(size.stepwise.min_width, size.stepwise.min_height), (size.stepwise.max_width, size.stepwise.max_height)]
                for (width, height) in sizes {
                    var rates: [Double] = []
                    for intervalIndex in 0..<UInt32(64) {
                        var interval = v4l2_frmivalenum()
                        interval.index = intervalIndex
                        interval.pixel_format = description.pixelformat
                        interval.width = width
                        interval.height = height
                        guard try more(driver, descriptor, .enumerateFrameIntervals, &interval, device: device) else { break }
                        let fractions = interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
                            ? [interval.discrete] : [interval.stepwise.min, interval.stepwise.max]
                        rates += fractions.filter { $0.numerator > 0 }.map { Double($0.denominator) / Double($0.numerator) }
                    }
                    formats.append(Format(fourcc: description.pixelformat, width: Int(width), height: Int(height),
                                          frameRates: rates))
                }
                if size.type != V4L2_FRMSIZE_TYPE_DISCRETE.rawValue { break }
            }
        }
        return formats
    }

    /// An enumeration step: false at the end of the list (EINVAL).
    private static func more<T>(_ driver: any V4L2Driver, _ descriptor: Int32, _ request: V4L2Request, _ value: inout T,
                                device: String) throws(ReelError) -> Bool {
        do throws(ReelError) {
            try V4L2.call(driver, descriptor, request, &value, device: device)
            return true
        } catch where error.code == .unsupported {
            return false
        }
    }

    /// A NUL-terminated C string held in a fixed-size tuple field.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

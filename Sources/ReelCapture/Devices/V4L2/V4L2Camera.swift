import CV4L2
import Foundation
import ReelCore
import Synchronization

/// A V4L2 camera node (`v4l2:/dev/videoN`): what VIDIOC_QUERYCAP, ENUM_FMT,
/// ENUM_FRAMESIZES and ENUM_FRAMEINTERVALS say of it, and its controls, mapped onto
/// ``CaptureDevice``'s focus, exposure, ISO, zoom, white balance, torch and frame rate.
/// The session hands it the device's control state each frame; what changed is written
/// with VIDIOC_S_CTRL (and the frame rate with VIDIOC_S_PARM). Frames themselves are read
/// by libavdevice's video4linux2 input (see ``KernelV4L2``).
final class V4L2Camera: @unchecked Sendable {
    /// The control IDs Reel maps (from linux/v4l2-controls.h).
    enum Control: UInt32, CaseIterable, Sendable {
        case focusAuto = 0x009a_090c, focusAbsolute = 0x009a_090a
        case exposureAuto = 0x009a_0901, exposureAbsolute = 0x009a_0902
        case isoSensitivity = 0x009a_0917, isoSensitivityAuto = 0x009a_0918
        case zoomAbsolute = 0x009a_090d
        case autoWhiteBalance = 0x0098_090c, whiteBalanceTemperature = 0x0098_091a
        case flashLEDMode = 0x009c_0901
    }

    /// A control's range as VIDIOC_QUERYCTRL gives it.
    struct Range: Sendable, Equatable {
        var minimum: Int32, maximum: Int32, step: Int32, defaultValue: Int32

        func clamp(_ value: Double) -> Int32 {
            let step = Double(max(step, 1))
            let stepped = (value - Double(minimum)) / step
            return Int32(min(max(Double(minimum) + stepped.rounded() * step, Double(minimum)), Double(maximum)))
        }
    }

    // V4L2_EXPOSURE_MANUAL, V4L2_EXPOSURE_APERTURE_PRIORITY (UVC's "auto"), V4L2_FLASH_LED_MODE_*.
    static let exposureManual: Int32 = 1, exposureAperturePriority: Int32 = 3
    static let ledNone: Int32 = 0, ledTorch: Int32 = 2

    private static let cameras = Mutex<[String: V4L2Camera]>([:])

    let id: String
    let path: String
    let name: String
    let formats: [CaptureDevice.Format]
    let ranges: [Control: Range]
    private let driver: any V4L2Driver
    private let descriptor: Int32
    private let lock = NSLock()
    private var applied: [Control: Int32] = [:]
    private var appliedRate: Double?

    /// Opens `path` and reads what the driver says of it.
    /// - Throws: ``ReelError`` from the open or an ioctl (busy, unplugged, no permission…),
    ///   or `.unsupported` for a node that captures no video (a UVC metadata node).
    init(path: String, driver: any V4L2Driver) throws(ReelError) {
        let id = "v4l2:\(path)"
        self.id = id
        self.path = path
        self.driver = driver
        switch driver.open(path) {
        case .success(let descriptor): self.descriptor = descriptor
        case .failure(let failure): throw V4L2.error(failure.value, operation: "open", device: id)
        }
        do throws(ReelError) {
            var capability = v4l2_capability()
            try V4L2.call(driver, descriptor, .queryCapability, &capability, device: id)
            let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
            guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
                throw ReelError(.unsupported, "the node captures no video (a metadata or output node)", subject: id)
            }
            name = Self.string(capability.card)
            formats = try Self.formats(driver, descriptor, device: id)
            var ranges: [Control: Range] = [:]
            for control in Control.allCases {
                var query = v4l2_queryctrl()
                query.id = control.rawValue
                do throws(ReelError) {
                    try V4L2.call(driver, descriptor, .queryControl, &query, device: id)
                } catch where error.code == .unsupported {
                    continue
                }
                guard query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { continue }
                ranges[control] = Range(minimum: query.minimum, maximum: query.maximum, step: query.step,
                                        defaultValue: query.default_value)
            }
            self.ranges = ranges
        } catch {
            driver.close(descriptor)
            throw error
        }
    }

    deinit { driver.close(descriptor) }

    /// The camera for `path`, kept open for its controls while the process runs.
    static func shared(path: String) throws(ReelError) -> V4L2Camera {
        if let camera = cameras.withLock({ $0[path] }) { return camera }
        let camera = try V4L2Camera(path: path, driver: V4L2.driver)
        cameras.withLock { $0[path] = camera }
        return camera
    }

    /// Forgets the open cameras (the tests swap drivers).
    static func forgetAll() { cameras.withLock { $0 = [:] } }

    static func shared(for device: CaptureDevice) -> V4L2Camera? {
        guard case .v4l2(let path) = device.source else { return nil }
        return cameras.withLock { $0[path] }
    }

    /// The controls that exist, as the configuration model asks for them.
    var capabilities: CaptureDevice.Capabilities {
        var capabilities: CaptureDevice.Capabilities = []
        if ranges[.focusAuto] != nil || ranges[.focusAbsolute] != nil { capabilities.insert(.focus) }
        if ranges[.exposureAbsolute] != nil { capabilities.insert(.exposure) }
        if ranges[.zoomAbsolute] != nil { capabilities.insert(.zoom) }
        if ranges[.autoWhiteBalance] != nil || ranges[.whiteBalanceTemperature] != nil { capabilities.insert(.whiteBalance) }
        if let led = ranges[.flashLEDMode], led.maximum >= Self.ledTorch { capabilities.insert(.torch) }
        return capabilities
    }

    /// The device as the rest of Reel sees it: formats carry the control ranges.
    func makeDevice() -> CaptureDevice {
        let exposure = ranges[.exposureAbsolute]
        let iso = ranges[.isoSensitivity]
        let zoom = ranges[.zoomAbsolute].map { Double($0.maximum) / Double(max($0.minimum, 1)) } ?? 1
        let formats = formats.map { format in
            var format = format
            // EXPOSURE_ABSOLUTE counts 100 µs.
            format.minExposureSeconds = exposure.map { Double($0.minimum) * 1e-4 } ?? 0
            format.maxExposureSeconds = exposure.map { Double($0.maximum) * 1e-4 } ?? 0
            format.minISO = iso.map { Float($0.minimum) } ?? 0
            format.maxISO = iso.map { Float($0.maximum) } ?? 0
            format.videoMaxZoomFactor = zoom
            return format
        }
        return CaptureDevice(uniqueID: id, localizedName: name.isEmpty ? path : name, deviceType: .camera, position: .external,
                             formats: formats, source: .v4l2(path: path), capabilities: capabilities)
    }

    /// Writes the controls that differ from what was last written: one VIDIOC_S_CTRL each,
    /// and VIDIOC_S_PARM for a new frame rate.
    /// - Throws: ``ReelError`` from the driver (`.deviceNotConnected` once it is unplugged).
    func apply(_ controls: DeviceControls, frameRate: Double) throws(ReelError) {
        var wanted: [(Control, Int32)] = []
        func want(_ control: Control, _ value: Double) {
            if let range = ranges[control] { wanted.append((control, range.clamp(value))) }
        }
        let focusLocked = controls.focusMode == .locked
        want(.focusAuto, focusLocked ? 0 : 1)
        if focusLocked, let range = ranges[.focusAbsolute] {
            want(.focusAbsolute, Double(range.minimum) + Double(controls.lensPosition) * Double(range.maximum - range.minimum))
        }
        let manualExposure = controls.exposureMode == .custom || controls.exposureMode == .locked
        want(.exposureAuto, Double(manualExposure ? Self.exposureManual : Self.exposureAperturePriority))
        if manualExposure {
            want(.exposureAbsolute, controls.exposureSeconds / 1e-4)
            if ranges[.isoSensitivity] != nil {
                want(.isoSensitivityAuto, 0)
                want(.isoSensitivity, Double(controls.iso))
            }
        }
        if let range = ranges[.zoomAbsolute] { want(.zoomAbsolute, controls.zoomFactor * Double(max(range.minimum, 1))) }
        let whiteLocked = controls.whiteBalanceMode == .locked
        want(.autoWhiteBalance, whiteLocked ? 0 : 1)
        if whiteLocked { want(.whiteBalanceTemperature, Double(controls.temperatureAndTint.temperature)) }
        if capabilities.contains(.torch) {
            want(.flashLEDMode, Double(controls.torchMode == .on ? Self.ledTorch : Self.ledNone))
        }
        try lock.locked { () throws(ReelError) in
            for (control, value) in wanted where applied[control] != value {
                var setting = v4l2_control(id: control.rawValue, value: value)
                try V4L2.call(driver, descriptor, .setControl, &setting, device: id)
                applied[control] = value
            }
            if appliedRate != frameRate {
                try setFrameRate(frameRate)
                appliedRate = frameRate
            }
        }
    }

    /// VIDIOC_S_PARM with a time per frame of 1/`rate` (1001/30000 for 29.97).
    private func setFrameRate(_ rate: Double) throws(ReelError) {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let duration = CaptureDevice.frameDuration(for: rate)
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(duration.value),
                                                          denominator: UInt32(duration.timescale))
        try V4L2.call(driver, descriptor, .setParameters, &parameters, device: id)
    }

    /// VIDIOC_QUERYCAP again: throws `.deviceNotConnected` once the camera is unplugged,
    /// even while no control changes.
    func checkConnected() throws(ReelError) {
        var capability = v4l2_capability()
        try V4L2.call(driver, descriptor, .queryCapability, &capability, device: id)
    }

    /// The last value written to `control`, for the tests and `reel devices`.
    func appliedValue(_ control: Control) -> Int32? { lock.withLock { applied[control] } }

    /// Every capture format, size and interval the driver lists (discrete ones; a stepwise
    /// range gives its two ends).
    private static func formats(_ driver: any V4L2Driver, _ descriptor: Int32,
                                device: String) throws(ReelError) -> [CaptureDevice.Format] {
        var formats: [CaptureDevice.Format] = []
        for formatIndex in 0..<UInt32(64) {
            var description = v4l2_fmtdesc()
            description.index = formatIndex
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard try more(driver, descriptor, .enumerateFormat, &description, device: device) else { break }
            let pixelFormat = Self.pixelFormatName(description.pixelformat)
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
                    formats.append(CaptureDevice.Format(width: Int(width), height: Int(height), pixelFormat: pixelFormat,
                                                        minFrameRate: rates.min() ?? 30, maxFrameRate: rates.max() ?? 30))
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

    /// FFmpeg's name for a V4L2 fourcc where Reel decodes it (`mjpeg`, `yuyv422`), else the fourcc.
    static func pixelFormatName(_ fourcc: UInt32) -> String {
        let text = String(decoding: (0..<4).map { UInt8((fourcc >> (8 * UInt32($0))) & 0xFF) }, as: UTF8.self)
        return switch text {
        case "MJPG": "mjpeg"
        case "YUYV": "yuyv422"
        case "H264": "h264"
        case "NV12": "nv12"
        default: text.trimmingCharacters(in: .whitespaces)
        }
    }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The V4L2 cameras the driver has, leaving out nodes that capture no video.
    static func discover() -> [CaptureDevice] {
        V4L2.driver.nodePaths().compactMap { path in (try? shared(path: path))?.makeDevice() }
    }
}

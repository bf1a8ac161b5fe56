import Foundation
import ReelAV
import ReelCore

/// A V4L2 camera node (`v4l2:/dev/videoN`): what VIDIOC_QUERYCAP, ENUM_FMT,
/// ENUM_FRAMESIZES and ENUM_FRAMEINTERVALS say of it, and its controls, mapped onto
/// ``CaptureDevice``'s focus, exposure, ISO, zoom, white balance, torch and frame rate.
/// The session hands it the device's control state each frame; what changed is written
/// with VIDIOC_S_CTRL (and the frame rate with VIDIOC_S_PARM). Frames themselves are read
/// by libavdevice's video4linux2 input. The ioctls themselves are ReelAV's `V4L2Device`:
/// no V4L2 struct reaches this module.
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

    private static let cameras = PosixMutex<[String: V4L2Camera]>([:])

    let id: String
    let path: String
    let name: String
    let formats: [CaptureDevice.Format]
    let ranges: [Control: Range]
    private let device: V4L2Device
    private let lock = NSLock()
    private var applied: [Control: Int32] = [:]
    private var appliedRate: Double?

    /// Opens `path` and reads what the driver says of it.
    /// - Parameters:
    ///   - path: the node (`/dev/video0`).
    ///   - driver: the kernel's, or a test's fake.
    /// - Throws: ``ReelError`` from the open or an ioctl (busy, unplugged, no permission…),
    ///   or `.unsupported` for a node that captures no video (a UVC metadata node).
    init(path: String, driver: any V4L2Driver) throws(ReelError) {
        let id = "v4l2:\(path)"
        self.id = id
        self.path = path
        device = try V4L2Device(path: path, subject: id, driver: driver)
        name = device.card
        formats = device.formats.map { format in
            CaptureDevice.Format(width: format.width, height: format.height, pixelFormat: Self.pixelFormatName(format.fourcc),
                                 minFrameRate: format.frameRates.min() ?? 30, maxFrameRate: format.frameRates.max() ?? 30)
        }
        var ranges: [Control: Range] = [:]
        for control in Control.allCases {
            guard let range = try device.controlRange(id: control.rawValue) else { continue }
            ranges[control] = Range(minimum: range.minimum, maximum: range.maximum, step: range.step,
                                    defaultValue: range.defaultValue)
        }
        self.ranges = ranges
    }

    /// The camera for `path`, kept open for its controls while the process runs.
    /// A camera opened with another driver than this task's (a test's fake, or the kernel's
    /// after one) is opened again with this task's.
    static func shared(path: String) throws(ReelError) -> V4L2Camera {
        let driver = V4L2.driver
        if let camera = cameras.withLock({ $0[path] }), camera.device.driver === driver { return camera }
        let camera = try V4L2Camera(path: path, driver: driver)
        cameras.withLock { $0[path] = camera }
        return camera
    }

    /// Forgets the open cameras (the tests swap drivers).
    static func forgetAll() { cameras.withLock { $0 = [:] } }

    /// How libavdevice reads the frames of the camera at `path` at `rate`: through the driver
    /// the camera was opened with (a device thread has no task to ask), else this task's.
    static func frameOpening(path: String, rate: Double) -> LiveDevice.Opening {
        let camera = cameras.withLock { $0[path] }
        let input = camera?.device.frameInput(rate: rate) ?? V4L2.driver.frameInput(path: path, rate: rate)
        return LiveDevice.Opening(inputFormat: input.inputFormat, url: input.url, options: input.options, mediaType: .video)
    }

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
                try device.setControl(id: control.rawValue, value: value)
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
        let duration = CaptureDevice.frameDuration(for: rate)
        guard let numerator = UInt32(exactly: duration.value), let denominator = UInt32(exactly: duration.timescale),
              numerator > 0, denominator > 0 else {
            throw ReelError(.invalidArgument, "no V4L2 frame interval for \(rate) frames a second", subject: id)
        }
        try device.setTimePerFrame(numerator: numerator, denominator: denominator)
    }

    /// VIDIOC_QUERYCAP again: throws `.deviceNotConnected` once the camera is unplugged,
    /// even while no control changes.
    func checkConnected() throws(ReelError) {
        try device.checkConnected()
    }

    /// The last value written to `control`, for the tests and `reel devices`.
    func appliedValue(_ control: Control) -> Int32? { lock.withLock { applied[control] } }

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

    /// The V4L2 cameras the driver has, leaving out nodes that capture no video.
    static func discover() -> [CaptureDevice] {
        // A node that will not open (busy, no permission, a metadata node) is not listed;
        // asking for it by ID gives the reason.
        V4L2.driver.nodePaths().compactMap { path in (try? shared(path: path))?.makeDevice() }
    }
}

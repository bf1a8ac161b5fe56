import Foundation
import ReelCapture
import ReelCore

/// The camera page's controls over the current ``CaptureDevice``: tap to focus and
/// expose, zoom (1–3x, ramped), ISO, torch, flash mode for photos, slow motion and
/// stabilization. Each is offered only as far as the device can do it; otherwise it
/// is listed as off with the reason in words.
final class DeviceControlPanel: @unchecked Sendable {
    static let zoomLimit = 3.0
    /// Doublings a second for the zoom slider's ramp.
    static let zoomRate: Float = 3

    private let camera: LiveCamera
    private let photos: PhotoDesk
    private let shortVideo: ShortVideoDesk
    private let lock = NSLock()
    /// The preset, format and frame rate to go back to when slow motion ends.
    private var beforeSlowMotion: (preset: CaptureSession.Preset, format: CaptureDevice.Format?, rate: Double)?
    /// Where the zoom ramp under way goes: the value every page shows while it moves.
    private var zoomTarget: Double?

    init(camera: LiveCamera, photos: PhotoDesk, shortVideo: ShortVideoDesk) {
        self.camera = camera
        self.photos = photos
        self.shortVideo = shortVideo
    }

    private var device: CaptureDevice { camera.currentCamera }
    var isSlowMotion: Bool { lock.withLock { beforeSlowMotion != nil } }

    /// Where the camera focuses, for the page and the tests.
    struct Focus: Encodable, Sendable {
        var x: Double
        var y: Double
        var lensPosition: Double
        var adjusting: Bool
        var exposureX: Double
        var exposureY: Double
    }

    var focus: Focus {
        let device = self.device
        let point = device.focusPointOfInterest, exposure = device.exposurePointOfInterest
        return Focus(x: point.x, y: point.y, lensPosition: Double(device.lensPosition), adjusting: device.isAdjustingFocus,
                     exposureX: exposure.x, exposureY: exposure.y)
    }

    /// Focuses and exposes at the point `x`, `y` (0–1) of the picture the page shows,
    /// which is `viewWidth`×`viewHeight` on screen (turned as the preview is). Returns the device point.
    /// - Throws: ``ReelError`` `.unsupported` for a camera without focus.
    func focus(atViewX x: Double, y: Double, viewWidth: Double, viewHeight: Double) throws(ReelError) -> Point {
        let device = self.device
        guard device.isFocusPointOfInterestSupported else {
            throw ReelError(.unsupported, "\(device.localizedName) cannot focus: \(Self.noFocusReason(device))")
        }
        guard x.isFinite, y.isFinite, viewWidth.isFinite, viewHeight.isFinite, viewWidth > 0, viewHeight > 0 else {
            throw ReelError(.invalidArgument, "a tap needs x, y and the view's size as numbers", subject: "focus")
        }
        let size = camera.session.frameSize
        let geometry = PreviewGeometry(bounds: Size(width: viewWidth, height: viewHeight),
                                       videoSize: Size(width: Double(size.width), height: Double(size.height)),
                                       videoGravity: .resizeAspect, rotationAngle: camera.previewRotationAngle, device: device)
        let point = geometry.captureDevicePointOfInterest(for: Point(x: x * viewWidth, y: y * viewHeight))
        let clamped = Point(x: min(max(point.x, 0), 1), y: min(max(point.y, 0), 1))
        try device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        device.focusPointOfInterest = clamped
        try device.setFocusMode(.autoFocus)
        if device.isExposurePointOfInterestSupported {
            device.exposurePointOfInterest = clamped
            try device.setExposureMode(.autoExpose)
        }
        return clamped
    }

    /// Changes control `id` to `value` (sliders and switches) or `option` (flash).
    /// - Throws: ``ReelError`` naming the control and why it cannot change.
    func set(_ id: String, value: Double?, option: String?) throws(ReelError) {
        // The recordings' connection, not the device: no configuration lock, and it may wait
        // for a release under way (``ShortVideoDesk/applyStabilizationBetweenSegments()``).
        if id == "stabilization" { return try setStabilization((value ?? 0) > 0) }
        let device = self.device
        try device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        switch id {
        case "zoom":
            guard let value, value.isFinite else { throw ReelError(.invalidArgument, "zoom needs a value", subject: id) }
            let limit = min(Self.zoomLimit, device.maxAvailableVideoZoomFactor)
            let target = min(max(value, 1), limit)
            try device.ramp(toVideoZoomFactor: target, withRate: Self.zoomRate)
            lock.withLock { zoomTarget = target }
        case "iso":
            guard let value, value.isFinite else { throw ReelError(.invalidArgument, "ISO needs a value", subject: id) }
            try device.setExposureModeCustom(duration: CaptureDevice.currentExposureDuration, iso: Float(value))
        case "torch":
            try device.setTorchMode((value ?? 0) > 0 ? .on : .off)
        case "flash":
            try photos.use(flashMode: option ?? "")
        case "slowMotion":
            try setSlowMotion((value ?? 0) > 0, device: device)
        default:
            throw ReelError(.invalidArgument, "no such control", subject: id)
        }
    }

    private func setSlowMotion(_ on: Bool, device: CaptureDevice) throws(ReelError) {
        let before = lock.withLock { beforeSlowMotion }
        if on {
            guard before == nil else { return }
            let previous = (preset: camera.session.sessionPreset, format: device.activeFormat, rate: device.activeFrameRate)
            try device.configureForHighFrameRate(preferring: [240, 120])
            if let format = device.activeFormat,
               let preset = CaptureSession.Preset.allCases.first(where: { $0.rawValue == "\(format.width)x\(format.height)" }) {
                camera.session.sessionPreset = preset
            }
            lock.withLock { beforeSlowMotion = previous }
        } else {
            guard let before else { return }
            // The format and rate the camera had (the rate is within that format's limits);
            // a rate it refuses now is said, not left at slow motion's.
            if let format = before.format { device.activeFormat = format } else { device.restoreDefaultFormat() }
            camera.session.sessionPreset = before.preset
            lock.withLock { beforeSlowMotion = nil }
            try device.setFrameRate(before.rate)
        }
    }

    /// Turns the recordings' stabilization on (``RecordingStabilization/onMode``) or off; a
    /// change while a segment records reaches the next one.
    /// - Throws: ``ReelError`` `.unsupported` for on when the camera's format cannot be steadied.
    private func setStabilization(_ on: Bool) throws(ReelError) {
        let stabilization = camera.stabilization
        if on, !stabilization.isSupported {
            throw ReelError(.unsupported, noStabilizationReason(device), subject: "stabilization")
        }
        stabilization.choose(on ? RecordingStabilization.onMode : .off)
        shortVideo.applyStabilizationBetweenSegments()
    }

    private func noStabilizationReason(_ device: CaptureDevice) -> String {
        guard let format = device.activeFormat, format.width > 0 else {
            return "\(device.localizedName) cannot be steadied: its format does not allow stabilization"
        }
        return "\(device.localizedName) cannot be steadied at \(format.width)x\(format.height)"
    }

    /// The switch: on or off as chosen, with what it does, or that the recording under way
    /// keeps the mode it started with; `active` is what the recordings have now.
    private func stabilizationControl(_ device: CaptureDevice) -> StudioState.Control {
        let stabilization = camera.stabilization
        let chosen = stabilization.chosenMode, active = stabilization.active
        guard stabilization.isSupported else {
            return .init(id: "stabilization", label: "Stabilization", supported: false, reason: noStabilizationReason(device),
                         value: chosen == .off ? 0 : 1, active: active.name)
        }
        let note = switch (chosen != .off, active != .off) {
        case (true, false): "On from the next recording; this one goes on unsteadied"
        case (false, true): "Off from the next recording; this one goes on steadied"
        default: "Steadies what is recorded (a 10 % crop); the preview shows the camera as it moves"
        }
        return .init(id: "stabilization", label: "Stabilization", supported: true, value: chosen == .off ? 0 : 1,
                     note: note, active: active.name)
    }

    static func noFocusReason(_ device: CaptureDevice) -> String {
        device.uniqueID.hasPrefix("file:") ? "it plays a file, which has no lens" : "it has no focus control"
    }

    /// The controls as the page draws them.
    func controls() -> [StudioState.Control] {
        let device = self.device
        let name = device.localizedName
        let format = device.activeFormat
        var list: [StudioState.Control] = []
        let zoomMax = min(Self.zoomLimit, device.maxAvailableVideoZoomFactor)
        // While the ramp moves, the value it settles at too (the slider would jump back otherwise).
        let ramping = device.isRampingVideoZoom
        let target = lock.withLock { ramping ? zoomTarget : nil }
        list.append(zoomMax > 1
            ? .init(id: "zoom", label: "Zoom", supported: true, value: device.videoZoomFactor, target: target, minimum: 1,
                    maximum: zoomMax)
            : .init(id: "zoom", label: "Zoom", supported: false, reason: "\(name) has no zoom", minimum: 1, maximum: Self.zoomLimit))
        if device.isExposureModeSupported(.custom), let format, format.maxISO > format.minISO {
            list.append(.init(id: "iso", label: "ISO", supported: true, value: Double(device.iso),
                              minimum: Double(format.minISO), maximum: Double(format.maxISO)))
        } else {
            list.append(.init(id: "iso", label: "ISO", supported: false, reason: "\(name) has no exposure control",
                              minimum: 50, maximum: 1600))
        }
        list.append(device.hasTorch
            ? .init(id: "torch", label: "Torch", supported: true, value: device.torchMode == .on ? 1 : 0)
            : .init(id: "torch", label: "Torch", supported: false, reason: "\(name) has no torch", value: 0))
        let flashModes = camera.photos.supportedFlashModes
        list.append(flashModes.count > 1
            ? .init(id: "flash", label: "Flash for photos", supported: true, options: flashModes.map(\.rawValue),
                    option: photos.flashMode.rawValue)
            : .init(id: "flash", label: "Flash for photos", supported: false, reason: "\(name) has no flash", options: ["off"],
                    option: "off"))
        let fastest = device.formats.map(\.maxFrameRate).max() ?? 0
        let slow = isSlowMotion
        list.append(fastest >= 120
            ? .init(id: "slowMotion", label: "Slow motion (\(Int(slow ? device.activeFrameRate : min(fastest, 240))) fps)",
                    supported: true, value: slow ? 1 : 0)
            : .init(id: "slowMotion", label: "Slow motion", supported: false,
                    reason: "\(name) reaches only \(Int(fastest)) fps; slow motion needs 120", value: 0))
        list.append(stabilizationControl(device))
        list.append(device.isFocusPointOfInterestSupported
            ? .init(id: "focus", label: "Tap to focus", supported: true)
            : .init(id: "focus", label: "Tap to focus", supported: false, reason: "\(name) cannot focus: \(Self.noFocusReason(device))"))
        return list
    }
}

public import ReelCore

/// Focus, exposure, zoom, torch, flash and white balance, with AVFoundation's names.
///
/// Each setting has a property, shaped like AVFoundation's, that clamps numbers into
/// range and ignores a mode the device lacks (ask `isXSupported` first), and a throwing
/// `set…` method that says why a change cannot be made.
extension CaptureDevice {
    /// `AVCaptureDevice.FocusMode`.
    public enum FocusMode: String, Sendable, Codable, CaseIterable {
        case locked, autoFocus, continuousAutoFocus
    }

    /// `AVCaptureDevice.ExposureMode`.
    public enum ExposureMode: String, Sendable, Codable, CaseIterable {
        case locked, autoExpose, continuousAutoExposure, custom
    }

    /// `AVCaptureDevice.TorchMode`.
    public enum TorchMode: String, Sendable, Codable, CaseIterable {
        case off, on, auto
    }

    /// `AVCaptureDevice.FlashMode`, as photo settings ask for it.
    public enum FlashMode: String, Sendable, Codable, CaseIterable {
        case off, on, auto
    }

    /// `AVCaptureDevice.WhiteBalanceMode`.
    public enum WhiteBalanceMode: String, Sendable, Codable, CaseIterable {
        case locked, autoWhiteBalance, continuousAutoWhiteBalance
    }

    /// A white point as colour temperature (kelvin) and green–magenta tint.
    /// `AVCaptureDevice.WhiteBalanceTemperatureAndTintValues`.
    public struct WhiteBalanceTemperatureAndTintValues: Sendable, Hashable, Codable {
        public var temperature: Float
        public var tint: Float
        /// A white point to lock white balance to with ``CaptureDevice/setWhiteBalanceModeLocked(with:)``.
        /// - Parameters:
        ///   - temperature: The light's colour temperature in kelvin (2000–10000 are accepted).
        ///   - tint: Green (negative) to magenta (positive), −150–150.
        public init(temperature: Float, tint: Float) {
            self.temperature = temperature
            self.tint = tint
        }
    }

    /// `AVCaptureDevice.currentLensPosition`: keep the lens where it is.
    public static let currentLensPosition: Float = -1
    /// `AVCaptureDevice.currentISO`.
    public static let currentISO: Float = 0
    /// `AVCaptureDevice.currentExposureDuration`.
    public static let currentExposureDuration = MediaTime.invalid

    private func unsupported(_ what: String) -> ReelError {
        ReelError(.unsupported, "the device has no \(what)", subject: uniqueID)
    }

    // MARK: Focus

    /// Whether ``setFocusMode(_:)`` accepts `mode`: any mode on a device with a focus control.
    /// `isFocusModeSupported(_:)`.
    /// - Parameter mode: The focus mode to ask about.
    /// - Returns: False on a device without focus (setting the mode would throw `.unsupported`).
    public func isFocusModeSupported(_ mode: FocusMode) -> Bool { capabilities.contains(.focus) }
    public var isFocusPointOfInterestSupported: Bool { capabilities.contains(.focus) }
    /// `isLockingFocusWithCustomLensPositionSupported`.
    public var isLockingFocusWithCustomLensPositionSupported: Bool { capabilities.contains(.focus) }

    /// `focusMode`. Auto focus runs once and then locks; continuous auto focus keeps following.
    public var focusMode: FocusMode {
        get { lock.withLock { controls.focusMode } }
        set { try? setFocusMode(newValue) }
    }

    /// - Parameter mode: How the device focuses from now on.
    /// - Throws: ``ReelError`` `.unsupported` for a camera without focus.
    public func setFocusMode(_ mode: FocusMode) throws(ReelError) {
        guard isFocusModeSupported(mode) else { throw unsupported("focus control") }
        lock.withLock { controls.focusMode = mode }
    }

    /// Where auto focus looks, from (0, 0) top left to (1, 1) bottom right of the unrotated
    /// picture. Takes effect with the next focus mode set, as in AVFoundation.
    /// `focusPointOfInterest`.
    public var focusPointOfInterest: Point {
        get { lock.withLock { controls.focusPointOfInterest } }
        set { lock.withLock { controls.focusPointOfInterest = Self.clamped(newValue) } }
    }

    /// The lens position, 0 (nearest) to 1 (farthest). `lensPosition`.
    public var lensPosition: Float { lock.withLock { controls.lensPosition } }
    /// Whether the lens is moving. `isAdjustingFocus`.
    public var isAdjustingFocus: Bool { lock.withLock { controls.isAdjustingFocus } }

    /// Locks focus with the lens at `lensPosition` (0–1, or ``currentLensPosition``).
    /// `setFocusModeLocked(lensPosition:completionHandler:)`.
    /// - Parameter lensPosition: 0 (nearest) to 1 (farthest), or ``currentLensPosition`` to lock
    ///   the lens where it is.
    /// - Throws: ``ReelError`` `.unsupported`, or `.invalidArgument` outside 0–1.
    public func setFocusModeLocked(lensPosition: Float) throws(ReelError) {
        guard isLockingFocusWithCustomLensPositionSupported else { throw unsupported("focus control") }
        guard lensPosition == Self.currentLensPosition || (0...1).contains(lensPosition) else {
            throw ReelError(.invalidArgument, "lens position \(lensPosition) is outside 0-1", subject: uniqueID)
        }
        lock.withLock {
            controls.focusMode = .locked
            if lensPosition != Self.currentLensPosition { controls.lensPosition = lensPosition }
        }
    }

    // MARK: Exposure

    /// Whether ``setExposureMode(_:)`` accepts `mode`: any mode on a device with exposure control.
    /// `isExposureModeSupported(_:)`.
    /// - Parameter mode: The exposure mode to ask about.
    /// - Returns: False on a device without exposure control (setting the mode would throw `.unsupported`).
    public func isExposureModeSupported(_ mode: ExposureMode) -> Bool { capabilities.contains(.exposure) }
    public var isExposurePointOfInterestSupported: Bool { capabilities.contains(.exposure) }

    /// `exposureMode`. Auto exposure meters once and locks; continuous keeps metering.
    public var exposureMode: ExposureMode {
        get { lock.withLock { controls.exposureMode } }
        set { try? setExposureMode(newValue) }
    }

    /// - Parameter mode: How the device exposes from now on.
    /// - Throws: ``ReelError`` `.unsupported` for a camera without exposure control.
    public func setExposureMode(_ mode: ExposureMode) throws(ReelError) {
        guard isExposureModeSupported(mode) else { throw unsupported("exposure control") }
        lock.withLock { controls.exposureMode = mode }
    }

    /// Where auto exposure meters, in the same coordinates as ``focusPointOfInterest``.
    /// `exposurePointOfInterest`.
    public var exposurePointOfInterest: Point {
        get { lock.withLock { controls.exposurePointOfInterest } }
        set { lock.withLock { controls.exposurePointOfInterest = Self.clamped(newValue) } }
    }

    /// `exposureDuration`.
    public var exposureDuration: MediaTime {
        MediaTime(seconds: lock.withLock { controls.exposureSeconds }, preferredTimescale: 1_000_000)
    }
    /// `iso`.
    public var iso: Float { lock.withLock { controls.iso } }
    /// `isAdjustingExposure`.
    public var isAdjustingExposure: Bool { lock.withLock { controls.isAdjustingExposure } }

    /// Fixes the exposure time and ISO, each within the active format's range
    /// (``currentExposureDuration`` and ``currentISO`` keep a value).
    /// `setExposureModeCustom(duration:iso:completionHandler:)`.
    /// - Parameters:
    ///   - duration: The exposure time, within the format's `minExposureSeconds`–`maxExposureSeconds`,
    ///     or ``currentExposureDuration`` to keep it.
    ///   - iso: The gain, within the format's `minISO`–`maxISO`, or ``currentISO`` to keep it.
    /// - Throws: ``ReelError`` `.unsupported`, or `.invalidArgument` naming the range.
    public func setExposureModeCustom(duration: MediaTime, iso: Float) throws(ReelError) {
        guard isExposureModeSupported(.custom), let format = activeFormat else { throw unsupported("exposure control") }
        if duration.isValid {
            guard duration.isNumeric, duration.seconds >= format.minExposureSeconds * 0.999,
                  duration.seconds <= format.maxExposureSeconds * 1.001 else {
                throw ReelError(.invalidArgument, "exposure \(duration.seconds) s is outside the format's "
                                + "\(format.minExposureSeconds)-\(format.maxExposureSeconds) s", subject: uniqueID)
            }
        }
        guard iso == Self.currentISO || (format.minISO...format.maxISO).contains(iso) else {
            throw ReelError(.invalidArgument, "ISO \(iso) is outside the format's \(format.minISO)-\(format.maxISO)",
                            subject: uniqueID)
        }
        lock.withLock {
            controls.exposureMode = .custom
            if duration.isValid { controls.exposureSeconds = duration.seconds }
            if iso != Self.currentISO { controls.iso = iso }
        }
    }

    // MARK: Zoom

    /// `minAvailableVideoZoomFactor`.
    public var minAvailableVideoZoomFactor: Double { 1 }
    /// `maxAvailableVideoZoomFactor`: the active format's limit.
    public var maxAvailableVideoZoomFactor: Double {
        capabilities.contains(.zoom) ? (activeFormat?.videoMaxZoomFactor ?? 1) : 1
    }

    /// The zoom, 1 (none) up to ``maxAvailableVideoZoomFactor``; setting it stops a ramp.
    /// `videoZoomFactor`.
    public var videoZoomFactor: Double {
        get { lock.withLock { controls.zoomFactor } }
        set {
            let limit = maxAvailableVideoZoomFactor
            lock.withLock {
                controls.zoomTarget = nil
                controls.zoomFactor = min(max(newValue, 1), limit)
            }
        }
    }

    /// - Parameter factor: 1 (no zoom) to the active format's `videoMaxZoomFactor`.
    /// - Throws: ``ReelError`` `.unsupported`, or `.invalidArgument` outside 1–maximum.
    public func setVideoZoomFactor(_ factor: Double) throws(ReelError) {
        try checkZoom(factor)
        videoZoomFactor = factor
    }

    /// Moves the zoom smoothly to `factor`, `rate` doublings a second.
    /// `ramp(toVideoZoomFactor:withRate:)`.
    /// - Parameters:
    ///   - factor: Where the zoom ends, 1 to the active format's `videoMaxZoomFactor`.
    ///   - rate: How fast, in doublings of the zoom factor a second (positive).
    /// - Throws: ``ReelError`` `.unsupported`, or `.invalidArgument` for a factor out of range
    ///   or a rate that is not positive.
    public func ramp(toVideoZoomFactor factor: Double, withRate rate: Float) throws(ReelError) {
        try checkZoom(factor)
        guard rate > 0, rate.isFinite else {
            throw ReelError(.invalidArgument, "a zoom ramp's rate must be positive, not \(rate)", subject: uniqueID)
        }
        lock.withLock {
            controls.zoomTarget = factor
            controls.zoomRate = Double(rate)
        }
    }

    /// `cancelVideoZoomRamp()`: the zoom stays where the ramp had reached.
    public func cancelVideoZoomRamp() { lock.withLock { controls.zoomTarget = nil } }
    /// `isRampingVideoZoom`.
    public var isRampingVideoZoom: Bool { lock.withLock { controls.zoomTarget != nil } }

    private func checkZoom(_ factor: Double) throws(ReelError) {
        guard capabilities.contains(.zoom) else { throw unsupported("zoom") }
        let limit = maxAvailableVideoZoomFactor
        guard factor >= 1, factor <= limit else {
            throw ReelError(.invalidArgument, "zoom \(factor) is outside 1-\(limit.formatted())", subject: uniqueID)
        }
    }

    // MARK: Torch and flash

    public var hasTorch: Bool { capabilities.contains(.torch) }
    /// Whether ``setTorchMode(_:)`` accepts `mode`: any mode on a device with a torch.
    /// `isTorchModeSupported(_:)`.
    /// - Parameter mode: The torch mode to ask about.
    /// - Returns: ``hasTorch``: false for every mode on a device without a torch.
    public func isTorchModeSupported(_ mode: TorchMode) -> Bool { hasTorch }
    public var hasFlash: Bool { capabilities.contains(.flash) }
    /// `isFlashAvailable`.
    public var isFlashAvailable: Bool { hasFlash }

    /// `torchMode`.
    public var torchMode: TorchMode {
        get { lock.withLock { controls.torchMode } }
        set { try? setTorchMode(newValue) }
    }

    /// - Parameter mode: Off, on at full level, or automatic.
    /// - Throws: ``ReelError`` `.unsupported` for a device without a torch.
    public func setTorchMode(_ mode: TorchMode) throws(ReelError) {
        guard isTorchModeSupported(mode) else { throw unsupported("torch") }
        lock.withLock { controls.torchMode = mode }
    }

    /// `torchLevel`, 0–1.
    public var torchLevel: Float { lock.withLock { controls.torchMode == .off ? 0 : controls.torchLevel } }
    /// `isTorchActive`.
    public var isTorchActive: Bool { lock.withLock { controls.isTorchActive } }

    /// Turns the torch on at `level` (0 exclusive to 1). `setTorchModeOn(level:)`.
    /// - Parameter level: The brightness, above 0 up to 1 (full).
    /// - Throws: ``ReelError`` `.unsupported`, or `.invalidArgument` outside (0, 1].
    public func setTorchModeOn(level: Float) throws(ReelError) {
        guard hasTorch else { throw unsupported("torch") }
        guard level > 0, level <= 1 else {
            throw ReelError(.invalidArgument, "torch level \(level) is outside (0, 1]", subject: uniqueID)
        }
        lock.withLock {
            controls.torchMode = .on
            controls.torchLevel = level
        }
    }

    // MARK: White balance

    /// Whether ``setWhiteBalanceMode(_:)`` accepts `mode`: any mode on a device with white balance.
    /// `isWhiteBalanceModeSupported(_:)`.
    /// - Parameter mode: The white balance mode to ask about.
    /// - Returns: False on a device without white balance (setting the mode would throw `.unsupported`).
    public func isWhiteBalanceModeSupported(_ mode: WhiteBalanceMode) -> Bool { capabilities.contains(.whiteBalance) }

    /// `whiteBalanceMode`.
    public var whiteBalanceMode: WhiteBalanceMode {
        get { lock.withLock { controls.whiteBalanceMode } }
        set { try? setWhiteBalanceMode(newValue) }
    }

    /// - Parameter mode: How the device balances white from now on.
    /// - Throws: ``ReelError`` `.unsupported` for a device without white balance.
    public func setWhiteBalanceMode(_ mode: WhiteBalanceMode) throws(ReelError) {
        guard isWhiteBalanceModeSupported(mode) else { throw unsupported("white balance") }
        lock.withLock {
            controls.whiteBalanceMode = mode
            if mode != .locked { controls.temperatureAndTint = .init(temperature: 5500, tint: 0) }
        }
    }

    /// The white point in use. `temperatureAndTintValues(for: deviceWhiteBalanceGains)`.
    public var temperatureAndTintValues: WhiteBalanceTemperatureAndTintValues { lock.withLock { controls.temperatureAndTint } }

    /// Locks white balance for light of `values` (2000–10000 K, tint −150–150).
    /// `setWhiteBalanceModeLocked(with: deviceWhiteBalanceGains(for: values))`.
    /// - Parameter values: The light to correct for: its temperature and tint.
    /// - Throws: ``ReelError`` `.unsupported`, or `.invalidArgument` out of range.
    public func setWhiteBalanceModeLocked(with values: WhiteBalanceTemperatureAndTintValues) throws(ReelError) {
        guard isWhiteBalanceModeSupported(.locked) else { throw unsupported("white balance") }
        guard (2000...10000).contains(values.temperature), (-150...150).contains(values.tint) else {
            throw ReelError(.invalidArgument, "white balance \(values.temperature) K, tint \(values.tint) is outside "
                            + "2000-10000 K, -150-150", subject: uniqueID)
        }
        lock.withLock {
            controls.whiteBalanceMode = .locked
            controls.temperatureAndTint = values
        }
    }

    // MARK: Subject area

    /// Post ``CaptureSession/subjectAreaDidChangeNotification`` when the picture changes a
    /// lot and stays changed. `isSubjectAreaChangeMonitoringEnabled`.
    public var isSubjectAreaChangeMonitoringEnabled: Bool {
        get { lock.withLock { controls.isSubjectAreaChangeMonitoringEnabled } }
        set { lock.withLock { controls.isSubjectAreaChangeMonitoringEnabled = newValue } }
    }

    // MARK: Slow motion

    /// The seed's slow-motion recipe: the widest format that reaches the first of
    /// `rates` it can, made active at that rate. Returns the rate chosen; undo with
    /// ``restoreDefaultFormat()``.
    /// - Parameter rates: Frame rates in order of preference; the first any format reaches wins.
    /// - Returns: The frame rate now active, so the caller can set a slow-motion playback rate from it.
    /// - Throws: ``ReelError`` `.unsupported` when no format reaches any of the rates.
    @discardableResult
    public func configureForHighFrameRate(preferring rates: [Double] = [240, 120, 60]) throws(ReelError) -> Double {
        for rate in rates {
            if let format = formats.filter({ $0.supports(frameRate: rate) }).max(by: { $0.width < $1.width }) {
                activeFormat = format
                try setFrameRate(rate)
                return rate
            }
        }
        throw ReelError(.unsupported, "no format reaches \(rates.map { $0.formatted() }.joined(separator: ", ")) fps",
                        subject: uniqueID)
    }

    /// Moves the automatic controls on by one frame and returns the state the frame is made with.
    func advanceControls(by seconds: Double, scene: (any SceneProbe)?) -> DeviceControls {
        let format = activeFormat
        return lock.withLock {
            controls.advance(by: seconds, format: format, scene: scene)
            return controls
        }
    }

    static func clamped(_ point: Point) -> Point {
        Point(x: min(max(point.x, 0), 1), y: min(max(point.y, 0), 1))
    }
}

import Foundation
public import ReelCore

/// A camera, microphone or other source of live media. `AVCaptureDevice`.
///
/// Devices are named by ID: `virtual:camera` and `virtual:microphone` exist on every
/// machine (the camera renders a moving scene with a frame counter, a timecode and a
/// flash every second, and simulates optics so that its controls visibly act; the
/// microphone clicks at each flash), and `file:PATH` plays a media file as a live
/// camera and microphone, looping.
public final class CaptureDevice: @unchecked Sendable {
    /// Where a camera faces. `AVCaptureDevice.Position`.
    public enum Position: String, Sendable, Codable, CaseIterable {
        case unspecified, front, back, external
    }

    /// The kind of device. `AVCaptureDevice.DeviceType`.
    public enum DeviceType: String, Sendable, Codable, CaseIterable {
        /// A camera (`builtInWideAngleCamera`); on Linux every camera is this, and so is a
        /// screen (`x11:DISPLAY`), which everything reads as a camera.
        case camera
        /// A microphone (`microphone`).
        case microphone
        /// A media file played as a live camera and microphone.
        case file

        /// AVFoundation's name for a camera. `builtInWideAngleCamera`.
        public static var builtInWideAngleCamera: DeviceType { .camera }
        /// AVFoundation's name for a microphone. `builtInMicrophone` / `.microphone`.
        public static var builtInMicrophone: DeviceType { .microphone }
    }

    /// What produces the device's media.
    enum Source: Sendable, Hashable {
        case virtualCamera, virtualMicrophone
        case file(path: String)
        /// A PulseAudio (or PipeWire-Pulse) source: its name, or `default`.
        case pulse(name: String)
        /// An ALSA capture device: `default`, `hw:0`, `plughw:1,0`…
        case alsa(name: String)
        /// An X11 display's screen, as x11grab names it (`:99`, `host:0.0`).
        case x11(display: String)
        /// A V4L2 camera node.
        case v4l2(path: String)
    }

    /// The controls a device has; what is missing answers `isXSupported == false`.
    struct Capabilities: OptionSet, Sendable {
        let rawValue: Int
        static let focus = Capabilities(rawValue: 1 << 0)
        static let exposure = Capabilities(rawValue: 1 << 1)
        static let zoom = Capabilities(rawValue: 1 << 2)
        static let torch = Capabilities(rawValue: 1 << 3)
        static let flash = Capabilities(rawValue: 1 << 4)
        static let whiteBalance = Capabilities(rawValue: 1 << 5)
        static let all: Capabilities = [.focus, .exposure, .zoom, .torch, .flash, .whiteBalance]
    }

    public let uniqueID: String
    public let localizedName: String
    public let deviceType: DeviceType
    public let position: Position
    public let formats: [Format]
    let source: Source
    let capabilities: Capabilities
    let lock = NSLock()
    var controls = DeviceControls()
    private var _activeFormat: Format?
    private var _frameRate: Double = 30
    private var configurationLocks = 0

    init(uniqueID: String, localizedName: String, deviceType: DeviceType, position: Position, formats: [Format],
         source: Source, capabilities: Capabilities) {
        self.uniqueID = uniqueID
        self.localizedName = localizedName
        self.deviceType = deviceType
        self.position = position
        self.formats = formats
        self.source = source
        self.capabilities = capabilities
        _activeFormat = Self.defaultFormat(in: formats)
    }

    /// The medium the device gives first: video for cameras and files, audio for microphones.
    public var mediaType: MediaType { deviceType == .microphone ? .audio : .video }

    /// Whether the device gives `mediaType`: a file camera gives its sound too. `hasMediaType(_:)`.
    /// - Parameter type: The medium to ask about.
    /// - Returns: True when an input of this device can feed outputs of `type` (what
    ///   ``CaptureSession/canAddInput(_:)`` counts).
    public func hasMediaType(_ type: MediaType) -> Bool {
        type == mediaType || (deviceType == .file && type == .audio)
    }

    // MARK: - Format and frame rate

    /// The format in use. Setting one resets the frame rate into its range. `activeFormat`.
    public var activeFormat: Format? {
        get { lock.withLock { _activeFormat } }
        set {
            lock.withLock {
                _activeFormat = newValue
                if let newValue {
                    _frameRate = min(max(_frameRate, newValue.minFrameRate), newValue.maxFrameRate)
                    controls.zoomFactor = min(controls.zoomFactor, newValue.videoMaxZoomFactor)
                }
            }
        }
    }

    /// The format a device starts in: 1280x720 where it has one (the seeds' preset).
    static func defaultFormat(in formats: [Format]) -> Format? { formats.first { $0.width == 1280 } ?? formats.first }

    /// Goes back to the format the device started in, at 30 fps (the seed's slow-motion
    /// recipe ends with this).
    public func restoreDefaultFormat() {
        activeFormat = Self.defaultFormat(in: formats)
        lock.withLock { _frameRate = min(max(30, _activeFormat?.minFrameRate ?? 30), _activeFormat?.maxFrameRate ?? 30) }
    }

    /// The frame rate in use, between the active format's limits.
    public var activeFrameRate: Double { lock.withLock { _frameRate } }

    /// The shortest time between frames: one over the frame rate. `activeVideoMinFrameDuration`.
    public var activeVideoMinFrameDuration: MediaTime { Self.frameDuration(for: activeFrameRate) }
    /// The longest time between frames; the same, as capture here runs at a fixed rate.
    /// `activeVideoMaxFrameDuration`.
    public var activeVideoMaxFrameDuration: MediaTime { activeVideoMinFrameDuration }

    /// Sets the frame rate, the way `activeVideoMinFrameDuration = CMTime(1, fps)` does.
    /// - Parameter rate: Frames per second, within the active format's `minFrameRate`–`maxFrameRate`.
    /// - Throws: ``ReelError`` `.invalidArgument` for a rate outside the active format's range.
    public func setFrameRate(_ rate: Double) throws(ReelError) {
        lock.lock()
        defer { lock.unlock() }
        guard let format = _activeFormat, format.supports(frameRate: rate) else {
            let range = _activeFormat.map { "\($0.minFrameRate.formatted())-\($0.maxFrameRate.formatted()) fps" } ?? "none"
            throw ReelError(.invalidArgument, "\(rate.formatted()) fps is outside the active format's \(range)", subject: uniqueID)
        }
        _frameRate = rate
    }

    /// Sets the frame rate from a frame duration: `activeVideoMinFrameDuration = duration`.
    /// - Parameter duration: The time between frames (1/30 s for 30 fps); positive and within
    ///   the active format's frame rates.
    /// - Throws: ``ReelError`` `.invalidArgument` for a duration the active format cannot do.
    public func setActiveVideoMinFrameDuration(_ duration: MediaTime) throws(ReelError) {
        guard duration.isNumeric, duration.seconds > 0 else {
            throw ReelError(.invalidArgument, "a frame duration must be positive, not \(duration)", subject: uniqueID)
        }
        try setFrameRate(1 / duration.seconds)
    }

    static func frameDuration(for rate: Double) -> MediaTime {
        let rounded = rate.rounded()
        if abs(rate - rounded) < 1e-9, rounded >= 1 { return MediaTime(value: 1, timescale: Int32(rounded)) }
        return MediaTime(value: 1001, timescale: Int32((rate * 1001).rounded()))
    }

    // MARK: - Locking

    /// Claims the device's controls for this process. `lockForConfiguration()`.
    ///
    /// Unlike AVFoundation, Reel applies a change made without the lock too; the lock
    /// matters for hardware devices, where it holds the device against other programs.
    public func lockForConfiguration() throws(ReelError) { lock.withLock { configurationLocks += 1 } }

    /// `unlockForConfiguration()`.
    public func unlockForConfiguration() { lock.withLock { configurationLocks = max(0, configurationLocks - 1) } }

    /// Whether ``lockForConfiguration()`` is held.
    public var isLockedForConfiguration: Bool { lock.withLock { configurationLocks > 0 } }

    // MARK: - Authorization

    /// Whether this process may open a device. `AVAuthorizationStatus`.
    public enum AuthorizationStatus: String, Sendable, Codable {
        case notDetermined, restricted, denied, authorized
    }

    /// Whether this process may open the device, and if not, how to grant access.
    /// Virtual and file devices are always authorised (a file's own permissions are checked
    /// when it is opened).
    public var authorization: (status: AuthorizationStatus, remedy: String?) { (.authorized, nil) }

    /// Whether this process may open the device.
    public var isAuthorized: Bool { authorization.status == .authorized }

    /// The status for the default device of `mediaType`. `authorizationStatus(for:)`.
    /// - Parameter mediaType: `.video` or `.audio`.
    /// - Returns: Whether this process may open that device: ask before adding an input, so the
    ///   user can be told how to grant access rather than meet a thrown error.
    public static func authorizationStatus(for mediaType: MediaType) -> AuthorizationStatus {
        `default`(for: mediaType)?.authorization.status ?? .notDetermined
    }
}

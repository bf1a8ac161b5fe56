import Foundation
public import ReelCore

extension CaptureDevice {
    /// The device with `id`: `virtual:camera`, `virtual:microphone`, `file:PATH`,
    /// `pulse:NAME` (`pulse:default`), `alsa:NAME` (`alsa:default`), `x11:DISPLAY`
    /// (`x11::99`) or `v4l2:/dev/videoN`. A live device is opened once here, so that a
    /// wrong name fails now with the library's own reason.
    /// - Parameter id: The device's ``uniqueID``, as `reel devices` lists it.
    /// - Returns: The device, its formats and controls read; a built-in device is the same
    ///   object each time, so its settings carry over.
    /// - Throws: ``ReelError`` `.fileNotFound` naming the ID and listing the devices there
    ///   are, or the error opening the live device gave.
    public static func device(withUniqueID id: String) throws(ReelError) -> CaptureDevice {
        if let device = builtIn.first(where: { $0.uniqueID == id }) { return device }
        // Not listed among the devices: the shaking camera is for stabilization's tests and demos.
        if id == HandheldCamera.uniqueID { return HandheldCamera.device }
        if let device = try liveDevice(withUniqueID: id) { return device }
        if id.hasPrefix("file:") {
            let path = String(id.dropFirst(5))
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ReelError(.fileNotFound, "no such file for a file camera", subject: id)
            }
            return fileCamera(path: path)
        }
        throw ReelError(.fileNotFound,
                        "no such device; there are \(builtIn.map(\.uniqueID).joined(separator: ", ")), file:PATH, "
                        + "pulse:NAME, alsa:NAME, x11:DISPLAY and v4l2:/dev/videoN", subject: id)
    }

    /// The default device for a medium: the virtual camera and microphone. `default(for:)`.
    /// - Parameter mediaType: `.video` for the camera, `.audio` for the microphone.
    /// - Returns: The virtual device of that medium (always present, so capture works on a
    ///   machine without hardware); nil for any other medium.
    public static func `default`(for mediaType: MediaType) -> CaptureDevice? {
        builtIn.first { $0.mediaType == mediaType }
    }

    /// Every device this machine has: the virtual ones, then the PulseAudio sources, ALSA
    /// capture devices, X11 displays and V4L2 cameras found now (file cameras are made on
    /// request, so are not listed).
    public static var devices: [CaptureDevice] { builtIn + discoverLiveDevices() }

    /// The sizes and rates of the virtual camera: small formats reach 240 fps for slow
    /// motion, as phone cameras' do; 4K stops at 30.
    static let virtualCameraFormats: [Format] = [
        (320, 240, 240.0), (640, 480, 240), (960, 540, 120), (1280, 720, 120), (1920, 1080, 60), (3840, 2160, 30),
    ].map { width, height, rate in
        Format(width: width, height: height, pixelFormat: "yuv420p", minFrameRate: 1, maxFrameRate: rate,
               minISO: 50, maxISO: 1600, minExposureSeconds: 1.0 / 8000, maxExposureSeconds: 1.0 / 30,
               videoMaxZoomFactor: width >= 1280 ? 8 : 4, supportsVideoStabilization: true)
    }

    static let builtIn: [CaptureDevice] = [
        CaptureDevice(uniqueID: "virtual:camera", localizedName: "Reel Virtual Camera", deviceType: .camera, position: .back,
                      formats: virtualCameraFormats, source: .virtualCamera, capabilities: .all),
        CaptureDevice(uniqueID: "virtual:microphone", localizedName: "Reel Virtual Microphone", deviceType: .microphone,
                      position: .unspecified, formats: [], source: .virtualMicrophone, capabilities: []),
        // The selfie camera: the same scene, facing the user, with no flash or torch (as a
        // phone's front camera has none); its preview is mirrored (PreviewGeometry(device:)).
        CaptureDevice(uniqueID: "virtual:front-camera", localizedName: "Reel Virtual Front Camera", deviceType: .camera,
                      position: .front, formats: virtualCameraFormats, source: .virtualCamera,
                      capabilities: [.focus, .exposure, .zoom, .whiteBalance]),
    ]

    /// The default device of `deviceType` at `position` giving `mediaType`, as seed 001's
    /// camera switch asks for the camera facing the other way.
    /// `default(_:for:position:)`.
    /// - Parameters:
    ///   - deviceType: `.builtInWideAngleCamera` (`.camera`), `.microphone` or `.file`.
    ///   - mediaType: the medium the device must give, or nil for any.
    ///   - position: where it faces; `.unspecified` for any.
    /// - Returns: the first such device, or nil.
    public static func `default`(_ deviceType: DeviceType, for mediaType: MediaType?, position: Position) -> CaptureDevice? {
        DiscoverySession(deviceTypes: [deviceType], mediaType: mediaType, position: position).devices.first
    }

    /// A file as a camera: any size (its own unless a preset asks for another), digital zoom only.
    static func fileCamera(path: String) -> CaptureDevice {
        CaptureDevice(uniqueID: "file:\(path)", localizedName: "File \(URL(fileURLWithPath: path).lastPathComponent)",
                      deviceType: .file, position: .external,
                      formats: [Format(width: 0, height: 0, pixelFormat: "yuv420p", minFrameRate: 1, maxFrameRate: 60,
                                       videoMaxZoomFactor: 4)],
                      source: .file(path: path), capabilities: [.zoom])
    }
}

/// Finds devices by type and position. `AVCaptureDevice.DiscoverySession`.
public struct DiscoverySession: Sendable {
    public let devices: [CaptureDevice]

    /// The devices of `deviceTypes` at `position` (`.unspecified`: any), giving `mediaType` if set.
    /// - Parameters:
    ///   - deviceTypes: The kinds of device wanted; a device of another kind is left out.
    ///   - mediaType: Only devices giving this medium; nil for any.
    ///   - position: Only devices facing this way; `.unspecified` for any.
    public init(deviceTypes: [CaptureDevice.DeviceType], mediaType: MediaType? = nil,
                position: CaptureDevice.Position = .unspecified) {
        devices = CaptureDevice.devices.filter { device in
            deviceTypes.contains(device.deviceType)
                && (mediaType.map(device.hasMediaType) ?? true)
                && (position == .unspecified || device.position == position)
        }
    }
}

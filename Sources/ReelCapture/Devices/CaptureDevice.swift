import Foundation
public import ReelCore

/// A camera, microphone or other source of live media. `AVCaptureDevice`.
///
/// Devices are named by ID: `virtual:camera` and `virtual:microphone` exist on every
/// machine (the camera renders a moving scene with a frame counter and a flash every
/// second; the microphone clicks at each flash), and `file:PATH` plays a media file as
/// a live source.
public final class CaptureDevice: @unchecked Sendable {
    /// Where a camera faces. `AVCaptureDevice.Position`.
    public enum Position: String, Sendable, Codable {
        case unspecified, front, back, external
    }

    /// One mode the device can capture in. `AVCaptureDevice.Format`.
    public struct Format: Sendable, Hashable, Codable {
        public var width: Int
        public var height: Int
        public var pixelFormat: String
        /// Frames per second the format supports, lowest and highest. `videoSupportedFrameRateRanges`.
        public var minFrameRate: Double
        public var maxFrameRate: Double
    }

    public let uniqueID: String
    public let localizedName: String
    public let mediaType: MediaType
    public let position: Position
    public let formats: [Format]
    private let lock = NSLock()
    private var _activeFormat: Format?
    private var _frameRate: Double = 30
    private var locked = false

    init(uniqueID: String, localizedName: String, mediaType: MediaType, position: Position, formats: [Format]) {
        self.uniqueID = uniqueID
        self.localizedName = localizedName
        self.mediaType = mediaType
        self.position = position
        self.formats = formats
        _activeFormat = formats.first { $0.width == 1280 } ?? formats.first
    }

    /// Whether the device gives `mediaType`. `hasMediaType(_:)`.
    public func hasMediaType(_ type: MediaType) -> Bool { type == mediaType || (uniqueID.hasPrefix("file:") && type == .audio) }

    /// The format in use. `activeFormat`.
    public var activeFormat: Format? {
        get { lock.withLock { _activeFormat } }
        set { lock.withLock { _activeFormat = newValue } }
    }

    /// The frame rate in use, between the active format's limits.
    public var activeFrameRate: Double { lock.withLock { _frameRate } }

    /// `activeVideoMinFrameDuration`.
    public var activeVideoMinFrameDuration: MediaTime {
        MediaTime(value: 1, timescale: Int32(max(1, activeFrameRate.rounded())))
    }

    /// Sets the frame rate. `activeVideoMinFrameDuration = CMTime(1, fps)`.
    /// - Throws: ``ReelError`` `.invalidArgument` for a rate outside every range of the active format.
    public func setFrameRate(_ rate: Double) throws(ReelError) {
        guard let format = activeFormat, rate >= format.minFrameRate, rate <= format.maxFrameRate else {
            let range = activeFormat.map { "\($0.minFrameRate)...\($0.maxFrameRate)" } ?? "none"
            throw ReelError(.invalidArgument, "\(rate) fps is outside the format's \(range)", subject: uniqueID)
        }
        lock.withLock { _frameRate = rate }
    }

    /// `lockForConfiguration()`: always succeeds for devices this process owns.
    public func lockForConfiguration() throws(ReelError) { lock.withLock { locked = true } }
    /// `unlockForConfiguration()`.
    public func unlockForConfiguration() { lock.withLock { locked = false } }

    // MARK: - Finding devices

    /// The device with `id`: `virtual:camera`, `virtual:microphone` or `file:PATH`.
    /// - Throws: ``ReelError`` `.fileNotFound` naming the ID and listing the devices there are.
    public static func device(withUniqueID id: String) throws(ReelError) -> CaptureDevice {
        if let device = builtIn.first(where: { $0.uniqueID == id }) { return device }
        if id.hasPrefix("file:") {
            let path = String(id.dropFirst(5))
            guard FileManager.default.fileExists(atPath: path) else {
                throw ReelError(.fileNotFound, "no such file for a file camera", subject: id)
            }
            return CaptureDevice(uniqueID: id, localizedName: "File \(URL(fileURLWithPath: path).lastPathComponent)",
                                 mediaType: .video, position: .external,
                                 formats: [Format(width: 0, height: 0, pixelFormat: "yuv420p", minFrameRate: 1, maxFrameRate: 60)])
        }
        throw ReelError(.fileNotFound,
                        "no such device; there are \(builtIn.map(\.uniqueID).joined(separator: ", ")) and file:PATH", subject: id)
    }

    /// The default device for a medium: the virtual camera and microphone. `default(for:)`.
    public static func `default`(for mediaType: MediaType) -> CaptureDevice? {
        builtIn.first { $0.mediaType == mediaType }
    }

    /// Every device this machine has.
    public static var devices: [CaptureDevice] { builtIn }

    static let builtIn: [CaptureDevice] = [
        CaptureDevice(uniqueID: "virtual:camera", localizedName: "Reel Virtual Camera", mediaType: .video, position: .back,
                      formats: [(320, 240), (640, 480), (960, 540), (1280, 720), (1920, 1080), (3840, 2160)].map {
                          Format(width: $0.0, height: $0.1, pixelFormat: "yuv420p", minFrameRate: 1,
                                 maxFrameRate: $0.0 >= 3840 ? 30 : ($0.0 <= 640 ? 240 : 60))
                      }),
        CaptureDevice(uniqueID: "virtual:microphone", localizedName: "Reel Virtual Microphone", mediaType: .audio,
                      position: .unspecified, formats: []),
    ]

    /// Whether this process may open the device. `authorizationStatus(for:)`: virtual and
    /// file devices are always authorised.
    public var isAuthorized: Bool { true }
}

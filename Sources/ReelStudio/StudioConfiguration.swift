public import Foundation
public import ReelCapture

/// How `reel studio` runs: where it listens, which devices it opens, where the
/// library is.
public struct StudioConfiguration: Sendable {
    /// The address to listen on. Loopback (the default) needs no token; any other
    /// address makes every request need the access token.
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    /// The camera's ID (`virtual:camera` when nil; `file:PATH` plays a file).
    public var cameraID: String?
    /// The microphone's ID (`virtual:microphone` when nil, `none` for no sound).
    public var microphoneID: String?
    /// Where photos and videos go; the XDG pictures and videos folders' `Reel`
    /// subfolders when nil.
    public var library: URL?
    /// The access token for a non-loopback host; a random one when nil.
    public var accessToken: String?
    /// How the device is held, for the recordings' display matrix and the photos' EXIF
    /// orientation (as `videoOrientation` on their connections); nil records the picture
    /// the sensor's own way, unturned.
    public var heldOrientation: DeviceOrientation?
    /// An accelerometer to follow instead of ``heldOrientation``: read at each photo and
    /// at the first segment of each video (the segments of one video share its matrix).
    public var orientationSource: (any OrientationSource)?
    /// Seconds of replay buffer (`--replay-buffer`): the last N seconds kept on disk, saved to
    /// the library by the camera page's Save replay button or `POST /api/replay`; nil for none.
    public var replaySeconds: Double?

    public init(host: String = "127.0.0.1", port: Int = 8080, cameraID: String? = nil, microphoneID: String? = nil,
                library: URL? = nil, accessToken: String? = nil) {
        self.host = host
        self.port = port
        self.cameraID = cameraID
        self.microphoneID = microphoneID
        self.library = library
        self.accessToken = accessToken
    }
}

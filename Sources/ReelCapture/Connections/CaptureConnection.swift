public import ReelCore

/// The link between a session's input port of one medium and an output: what turns,
/// mirrors and steadies the pictures on their way there. `AVCaptureConnection`.
///
/// The session makes one for every output and medium it can take (a movie file output has
/// a video and an audio one); ``CaptureOutput/connection(with:)`` finds it. As on iOS,
/// orientation and mirroring reach a movie file as its display matrix and a photo as its
/// EXIF orientation (the pixels stay as the sensor gave them), while a
/// ``VideoDataOutput`` gets its pixel buffers physically turned and flipped.
/// Stabilization applies to the movie file and video data outputs.
public final class CaptureConnection: @unchecked Sendable {
    /// Settings and the stabilizer in use: one state, one lock.
    struct State {
        var isEnabled = true
        var orientation: CaptureVideoOrientation = .landscapeRight
        var isVideoMirrored = false
        var automaticallyAdjustsVideoMirroring = true
        var preferredStabilization: CaptureVideoStabilizationMode = .off
        /// Made when stabilization is first active; reset when the mode changes or the run restarts.
        var stabilizer: LiveStabilizer?
    }

    /// The medium flowing through. `inputPorts.first.mediaType`.
    public let mediaType: MediaType
    /// The output the connection leads to. `output`.
    public private(set) weak var output: CaptureOutput?
    let state = PosixMutex(State())

    init(mediaType: MediaType) {
        self.mediaType = mediaType
    }

    func attach(_ output: CaptureOutput) { self.output = output }

    /// Whether media flows: a disabled connection's output gets none of its medium. `isEnabled`.
    public var isEnabled: Bool {
        get { state.withLock { $0.isEnabled } }
        set { state.withLock { $0.isEnabled = newValue } }
    }

    /// Whether the session now has an input of this medium for the output. `isActive`.
    public var isActive: Bool {
        guard let session = output?.session else { return false }
        return session.inputs.contains { $0.device.hasMediaType(mediaType) }
    }

    // MARK: - Orientation

    /// Whether the pictures can be turned: every video connection. `isVideoOrientationSupported`.
    public var isVideoOrientationSupported: Bool { mediaType == .video }

    /// Which way up the pictures are meant to be seen (default ``CaptureVideoOrientation/landscapeRight``,
    /// the sensor's: no turn). Read by a movie file output when a recording starts and by a
    /// photo output when a photo is taken. Ignored on an audio connection. `videoOrientation`.
    public var videoOrientation: CaptureVideoOrientation {
        get { state.withLock { $0.orientation } }
        set {
            guard isVideoOrientationSupported else { return }
            state.withLock { $0.orientation = newValue }
        }
    }

    /// ``videoOrientation`` as the clockwise turn in degrees: 0, 90, 180 or 270. Another
    /// angle is ignored (check ``isVideoRotationAngleSupported(_:)``; AVFoundation raises an
    /// exception). `videoRotationAngle`.
    public var videoRotationAngle: Double {
        get { Double(videoOrientation.rotationAngle) }
        set { if let orientation = CaptureVideoOrientation(rotationAngle: newValue) { videoOrientation = orientation } }
    }

    /// Whether `angle` is a turn the connection can make: a multiple of 90 on a video
    /// connection. `isVideoRotationAngleSupported(_:)`.
    /// - Parameter angle: The clockwise turn in degrees, as ``videoRotationAngle`` would be set.
    /// - Returns: True when setting ``videoRotationAngle`` to `angle` takes effect; false on an
    ///   audio connection or for an angle that is not a multiple of 90.
    public func isVideoRotationAngleSupported(_ angle: Double) -> Bool {
        isVideoOrientationSupported && CaptureVideoOrientation(rotationAngle: angle) != nil
    }

    // MARK: - Mirroring

    /// Whether the pictures can be mirrored: every video connection. `isVideoMirroringSupported`.
    public var isVideoMirroringSupported: Bool { mediaType == .video }

    /// Whether the session decides ``isVideoMirrored`` (default true). On iOS it mirrors a
    /// front camera's preview only, and so does Reel (`PreviewGeometry(bounds:videoSize:device:)`):
    /// the connections to outputs stay unmirrored until the app turns this off and sets
    /// ``isVideoMirrored``. `automaticallyAdjustsVideoMirroring`.
    public var automaticallyAdjustsVideoMirroring: Bool {
        get { state.withLock { $0.automaticallyAdjustsVideoMirroring } }
        set {
            state.withLock {
                $0.automaticallyAdjustsVideoMirroring = newValue
                if newValue { $0.isVideoMirrored = false }
            }
        }
    }

    /// Whether the pictures are flipped left to right (after turning). Setting it while
    /// ``automaticallyAdjustsVideoMirroring`` is on is ignored (AVFoundation raises an
    /// exception); ``setVideoMirrored(_:)`` says why. `isVideoMirrored`.
    public var isVideoMirrored: Bool {
        get { state.withLock { $0.isVideoMirrored } }
        set { try? setVideoMirrored(newValue) }
    }

    /// Sets ``isVideoMirrored``, or says why not.
    /// - Parameter mirrored: True to flip the pictures left to right after turning them.
    /// - Throws: ``ReelError`` `.invalidState` while ``automaticallyAdjustsVideoMirroring`` is
    ///   on or on an audio connection.
    public func setVideoMirrored(_ mirrored: Bool) throws(ReelError) {
        guard isVideoMirroringSupported else { throw ReelError(.invalidState, "an audio connection cannot be mirrored") }
        try state.withLock { (state) throws(ReelError) -> Void in
            guard !state.automaticallyAdjustsVideoMirroring else {
                throw ReelError(.invalidState, "turn automaticallyAdjustsVideoMirroring off before setting isVideoMirrored")
            }
            state.isVideoMirrored = mirrored
        }
    }

    /// How a viewer turns the sensor's picture to show it as this connection means it:
    /// the display matrix of a recording, the EXIF orientation of a photo.
    public var displayOrientation: Orientation {
        state.withLock { $0.orientation.displayOrientation(mirrored: $0.isVideoMirrored) }
    }

    // MARK: - Stabilization

    /// Whether the session's camera can be steadied on this connection: a video connection
    /// to a movie file or video data output, with a format that supports it.
    /// `isVideoStabilizationSupported`.
    public var isVideoStabilizationSupported: Bool {
        guard mediaType == .video, output is MovieFileOutput || output is VideoDataOutput else { return false }
        guard let camera = output?.session?.inputs.first(where: { $0.device.mediaType == .video })?.device else { return true }
        return camera.activeFormat?.supportsVideoStabilization ?? false
    }

    /// The stabilization asked for (default off). `preferredVideoStabilizationMode`.
    public var preferredVideoStabilizationMode: CaptureVideoStabilizationMode {
        get { state.withLock { $0.preferredStabilization } }
        set {
            state.withLock {
                if $0.preferredStabilization != newValue { $0.stabilizer = nil }
                $0.preferredStabilization = newValue
            }
        }
    }

    /// The stabilization in effect: the preferred mode (`auto` as `standard`) where
    /// ``isVideoStabilizationSupported``, otherwise off. `activeVideoStabilizationMode`.
    public var activeVideoStabilizationMode: CaptureVideoStabilizationMode {
        isVideoStabilizationSupported ? preferredVideoStabilizationMode.resolved : .off
    }

    /// How long a picture is held back by stabilization before it reaches the output:
    /// the mode's latency in frames at the camera's rate (zero when off).
    public var videoStabilizationLatency: MediaTime {
        let frames = activeVideoStabilizationMode.latencyFrames
        guard frames > 0 else { return .zero }
        let rate = output?.session?.frameRate ?? 30
        return MediaTime(seconds: Double(frames) / max(rate, 1), preferredTimescale: 90000)
    }
}

import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelCore
import ReelFilters

/// The studio's capture: one ``CaptureSession`` with the chosen camera and
/// microphone, the live filter, and a ``VideoDataOutput`` that turns the filtered
/// frames into preview JPEGs.
///
/// The preview is encoded on its own queue; when that queue is still busy with the
/// frame before, the data output drops the new frame (latest wins), so the camera and
/// the recorders never wait for the preview.
final class LiveCamera: @unchecked Sendable {
    /// The largest preview picture; bigger frames are scaled down to fit.
    static let previewBox = (width: 960, height: 540)
    static let previewQuality = 5

    let session = CaptureSession()
    let filter = FilterChain()
    let photos = PhotoOutput()
    /// The Stabilization switch: the recordings' mode (the preview is not steadied).
    let stabilization: RecordingStabilization
    private let preview = VideoDataOutput()
    private let previewQueue = DispatchQueue(label: "reel.studio.preview")
    /// The sound the session captures, measured for the page's level meter.
    let meter = MicrophoneMeter()
    /// The preview with sound: the preview's pictures and the meter's sound as fMP4
    /// fragments, encoded only while a page plays them.
    let soundStream: LiveSoundStream
    private let sound = AudioDataOutput()
    private let soundQueue = DispatchQueue(label: "reel.studio.meter")
    private let feed: PreviewFeed
    private let lock = NSLock()
    private var camera: CaptureDevice
    private var microphone: CaptureDevice?
    private var extraCameras: [CaptureDevice]
    private var _filterName = "none"
    private var previewPool: PixelBufferPool?
    private var encodeSeconds = 0.0
    private var encoded = 0
    private var previewDrops = 0
    private var lastError: String?
    /// The least seen (uptime − presentation time) of the frames, in seconds: how the
    /// session's clock maps onto this process's, with the capture's lag taken out.
    private var clockOffset: Double?
    private var latestTime = -Double.infinity
    private let caughtUp = NSCondition()
    /// An accelerometer the recordings and photos follow, read by ``followOrientation()``.
    private var orientationSource: (any OrientationSource)?
    /// How the preview pictures are turned to show upright: as the recordings' display matrix.
    private var previewTurn: Orientation = .up

    /// - Throws: ``ReelError`` naming a camera or microphone ID that does not exist.
    init(cameraID: String?, microphoneID: String?, feed: PreviewFeed) throws(ReelError) {
        self.feed = feed
        soundStream = LiveSoundStream()
        stabilization = RecordingStabilization(session: session)
        let camera = try CaptureDevice.device(withUniqueID: cameraID ?? "virtual:camera")
        guard camera.hasMediaType(.video) else {
            throw ReelError(.invalidArgument, "is not a camera", subject: camera.uniqueID)
        }
        self.camera = camera
        extraCameras = CaptureDevice.devices.contains { $0.uniqueID == camera.uniqueID } ? [] : [camera]
        if microphoneID != "none" {
            let microphone = try CaptureDevice.device(withUniqueID: microphoneID ?? "virtual:microphone")
            guard microphone.mediaType == .audio else {
                throw ReelError(.invalidArgument, "is not a microphone", subject: microphone.uniqueID)
            }
            self.microphone = microphone
        }
        session.videoFilter = filter
        session.sessionPreset = .hd1280x720
        preview.alwaysDiscardsLateVideoFrames = true
        let dropped: @Sendable (SampleBuffer, VideoDataOutput.DropReason) -> Void = { [weak self] sample, _ in
            self?.observe(sample)
            self?.lock.withLock { self?.previewDrops += 1 }
        }
        preview.setSampleBufferHandler(queue: previewQueue, didDrop: dropped) { [weak self] sample in
            self?.observe(sample)
            self?.show(sample)
        }
        try session.add(preview)
        try session.add(photos)
        let meter = self.meter, soundStream = self.soundStream
        sound.setSampleBufferHandler(queue: soundQueue) { sample in
            meter.measure(sample)
            soundStream.appendSound(sample)
        }
        try session.add(sound)
        try attachInputs()
    }

    private func attachInputs() throws(ReelError) {
        try session.add(try CaptureDeviceInput(device: camera))
        if let microphone { try session.add(try CaptureDeviceInput(device: microphone)) }
    }

    /// Marks the recordings and photos as taken held `held`: each file output's video
    /// connection gets the `videoOrientation` (a display matrix on movies, EXIF orientation
    /// on photos; their pictures are not turned). The preview is turned the same way, after
    /// it is scaled down (on the preview's queue, so the camera never waits for the turn), so
    /// that it shows what the recording will play: upright, as iOS's preview layer does.
    /// Face up, face down and unknown leave the orientation as it was.
    func hold(_ held: DeviceOrientation) {
        guard let orientation = CaptureVideoOrientation(held) else { return }
        for output in session.outputs where !(output is VideoDataOutput) {
            output.connection(with: .video)?.videoOrientation = orientation
        }
        lock.withLock { previewTurn = orientation.displayOrientation(mirrored: false) }
    }

    /// The clockwise turn of the preview against the sensor's picture: 0, 90, 180 or 270.
    var previewRotationAngle: Int { lock.withLock { previewTurn.rotationDegrees } }

    /// Follows `source` from now on: ``followOrientation()`` reads it.
    func follow(_ source: any OrientationSource) {
        lock.withLock { orientationSource = source }
        followOrientation()
    }

    /// Holds the orientation the followed accelerometer reads now (nothing without one).
    func followOrientation() {
        guard let source = lock.withLock({ orientationSource }) else { return }
        hold(source.orientation)
    }

    func start() { session.startRunning() }
    func stop() { session.stopRunning() }

    var cameras: [CaptureDevice] { CaptureDevice.devices.filter { $0.mediaType == .video } + lock.withLock { extraCameras } }
    var microphones: [CaptureDevice] { CaptureDevice.devices.filter { $0.mediaType == .audio } }
    var currentCamera: CaptureDevice { lock.withLock { camera } }
    var currentMicrophone: CaptureDevice? { lock.withLock { microphone } }
    var filterName: String { lock.withLock { _filterName } }

    /// Changes camera or microphone at the next frame, between begin and commit
    /// configuration, so that a recording goes on through the switch.
    /// - Throws: ``ReelError`` for an unknown ID or a device of the wrong kind.
    func use(cameraID: String? = nil, microphoneID: String? = nil) throws(ReelError) {
        var newCamera = currentCamera, newMicrophone = currentMicrophone
        if let cameraID {
            guard let found = cameras.first(where: { $0.uniqueID == cameraID }) else {
                throw ReelError(.fileNotFound, "no such camera; there are \(cameras.map(\.uniqueID).joined(separator: ", "))",
                                subject: cameraID)
            }
            newCamera = found
        }
        if let microphoneID {
            if microphoneID == "none" {
                newMicrophone = nil
            } else {
                guard let found = microphones.first(where: { $0.uniqueID == microphoneID }) else {
                    throw ReelError(.fileNotFound,
                                    "no such microphone; there are \(microphones.map(\.uniqueID).joined(separator: ", ")) and none",
                                    subject: microphoneID)
                }
                newMicrophone = found
            }
        }
        let cameraInput = try CaptureDeviceInput(device: newCamera)
        let microphoneInput = try newMicrophone.map { (device) throws(ReelError) in try CaptureDeviceInput(device: device) }
        session.beginConfiguration()
        for input in session.inputs { session.removeInput(input) }
        do throws(ReelError) {
            try session.add(cameraInput)
            if let microphoneInput { try session.add(microphoneInput) }
        } catch {
            session.commitConfiguration()
            throw error
        }
        session.commitConfiguration()
        lock.withLock {
            camera = newCamera
            microphone = newMicrophone
        }
        // The meter shows the new microphone only (nothing for no sound).
        if microphoneID != nil { meter.reset() }
    }

    /// The presets the current camera can do.
    var presets: [CaptureSession.Preset] {
        [.hd1920x1080, .hd1280x720, .iFrame960x540, .vga640x480, .low].filter { session.canSetSessionPreset($0) }
    }

    /// The preset in words for the picker: what it records at most, since a camera
    /// without that size records its nearest smaller one (no "1920x1080" that writes 720p).
    static func label(of preset: CaptureSession.Preset) -> String {
        switch preset {
        case .hd1920x1080: "Up to 1080p"
        case .hd1280x720: "Up to 720p"
        case .iFrame960x540: "Up to 540p"
        case .vga640x480: "Up to 480p"
        case .low: "Low (up to 360p)"
        default: preset.rawValue
        }
    }

    /// - Throws: ``ReelError`` `.unsupported` for a preset the camera cannot do.
    func use(preset name: String) throws(ReelError) {
        guard let preset = CaptureSession.Preset.allCases.first(where: { $0.rawValue == name }), presets.contains(preset) else {
            throw ReelError(.unsupported, "the camera cannot do this preset; it can do \(presets.map(\.rawValue).joined(separator: ", "))",
                            subject: name)
        }
        session.sessionPreset = preset
    }

    /// The filters the picker offers: every catalogue entry that needs no file.
    static var filterNames: [String] { FilterCatalog.entries.filter { $0.name != "ColorCube" }.map(\.name) }

    /// Sets the live filter by name (`none` for no filter); it applies from the next frame.
    /// - Throws: ``ReelError`` `.invalidArgument` for a name the picker does not have.
    func use(filter name: String) throws(ReelError) {
        if name == "none" {
            filter.filters = []
        } else {
            guard Self.filterNames.contains(name) else {
                throw ReelError(.invalidArgument, "no such filter; 'reel filters' lists them", subject: name)
            }
            filter.filters = try FilterChain.parse(name)
        }
        lock.withLock { _filterName = name }
    }

    /// A filter other than the current one, chosen at random (the seed's random button).
    func useRandomFilter() throws(ReelError) -> String {
        let current = filterName
        let name = Self.filterNames.filter { $0 != current }.randomElement() ?? "none"
        try use(filter: name)
        return name
    }

    struct Statistics: Sendable {
        var deliveredFrames: Int
        var droppedFrames: Int
        var previewFrames: Int
        var previewDrops: Int
        var encodeMilliseconds: Double
        var frameRate: Double
        var width: Int
        var height: Int
        var lastError: String?
    }

    var statistics: Statistics {
        let size = session.frameSize
        return lock.withLock {
            Statistics(deliveredFrames: session.deliveredFrames, droppedFrames: session.droppedFrames, previewFrames: encoded,
                       previewDrops: previewDrops, encodeMilliseconds: encoded > 0 ? encodeSeconds / Double(encoded) * 1000 : 0,
                       frameRate: session.frameRate, width: size.width, height: size.height, lastError: lastError)
        }
    }

    private func observe(_ sample: SampleBuffer) {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let time = sample.presentationTime.seconds
        caughtUp.withLock {
            // The session started again: its clock starts from zero.
            if time < latestTime - 1 { clockOffset = nil }
            clockOffset = min(clockOffset ?? .infinity, now - time)
            latestTime = time
            caughtUp.broadcast()
        }
    }

    /// Waits (at most `timeout`) until the session has handed the outputs the frame of
    /// the moment `uptime` (`DispatchTime.now().uptimeNanoseconds` then).
    ///
    /// A loaded machine's capture runs behind the clock; a hold of the record button
    /// should start with the frame of the moment it was pressed, not with one the
    /// capture had not yet caught up with.
    func waitUntilCaptured(uptime: UInt64, timeout: Double = 0.75) {
        let deadline = Date().addingTimeInterval(timeout)
        caughtUp.withLock {
            guard let offset = clockOffset else { return }
            let target = Double(uptime) / 1e9 - offset
            while latestTime < target, caughtUp.wait(until: deadline) {}
        }
    }

    private func show(_ sample: SampleBuffer) {
        let viewers = feed.hasViewers
        let streaming = soundStream.isWanted || soundStream.isRunning
        guard viewers || streaming, let picture = sample.pixelBuffer else { return }
        let started = DispatchTime.now().uptimeNanoseconds
        do throws(ReelError) {
            let turn = lock.withLock { previewTurn }
            var small = try previewPicture(picture, turned: turn.swapsDimensions)
            if turn != .up { small = try small.oriented(turn) }
            // The same picture, scaled and turned once, for the stream with sound.
            if streaming { soundStream.appendPicture(small, at: sample.presentationTime, frameRate: session.frameRate) }
            guard viewers else { return }
            let jpeg = try ImageFile.data(small, format: .jpeg(quality: Self.previewQuality))
            let rate = max(1, session.frameRate.rounded())
            let index = Int64((sample.presentationTime.seconds * rate).rounded())
            feed.publish(jpeg: jpeg, frameIndex: index, width: small.width, height: small.height)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            lock.withLock {
                encoded += 1
                encodeSeconds += seconds
                lastError = nil
            }
        } catch {
            lock.withLock { lastError = "the preview could not be encoded: \(StudioResponse.words(error))" }
        }
    }

    /// The frame fitted inside ``previewBox`` (even sides) once it is `turned` a quarter,
    /// or the frame itself when it fits.
    private func previewPicture(_ picture: PixelBuffer, turned: Bool) throws(ReelError) -> PixelBuffer {
        let box = turned ? (width: Self.previewBox.height, height: Self.previewBox.width) : Self.previewBox
        let scale = min(1, min(Double(box.width) / Double(picture.width), Double(box.height) / Double(picture.height)))
        guard scale < 1 else { return picture }
        let width = max(2, Int(Double(picture.width) * scale) / 2 * 2), height = max(2, Int(Double(picture.height) * scale) / 2 * 2)
        if previewPool?.width != width || previewPool?.height != height {
            previewPool = try PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 3)
        }
        guard let pool = previewPool else { return picture }
        let target = pool.makePixelBuffer()
        try PixelScaler.scale(picture, into: target)
        return target
    }
}

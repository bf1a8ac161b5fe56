import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// Capture connections: orientation and mirroring reach each output as iOS has them
/// (movies: display matrix; photos: EXIF; data outputs: turned pixels), judged by ffprobe,
/// exiftool and Chromium.
@Suite(.serialized) struct ConnectionTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-connections")
    }

    /// A 640x480 clip whose top-left quarter is red and the rest blue: where the red lands
    /// shows how a viewer turned the sensor's picture.
    func markedClip() throws -> URL {
        let url = directory.appendingPathComponent("marked.mp4")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let result = try ProcessRunner.run("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
            "color=c=blue:s=640x480:r=30:d=4,drawbox=x=0:y=0:w=320:h=240:color=red:t=fill",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", url.path,
        ])
        guard result.status == 0 else { throw TestFailure("ffmpeg: \(result.standardError)") }
        return url
    }

    /// A session with the marked clip as its camera and `output` in it.
    func session(with output: CaptureOutput) throws -> CaptureSession {
        let session = CaptureSession()
        session.sessionPreset = .vga640x480
        let camera = try CaptureDevice.device(withUniqueID: "file:\(try markedClip().path)")
        try session.add(try CaptureDeviceInput(device: camera))
        try session.add(output)
        return session
    }

    /// Records 1.2 s through a movie file output whose connection is set by `configure`, on
    /// the harness's clock (the subject is the file's display matrix, not real time).
    func record(_ name: String, _ configure: (CaptureConnection) throws -> Void) async throws -> URL {
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = .vga640x480
        let camera = try CaptureDevice.device(withUniqueID: "file:\(try markedClip().path)")
        try session.add(try CaptureDeviceInput(device: camera))
        let movie = MovieFileOutput()
        try session.add(movie)
        let connection = try #require(movie.connection(with: .video))
        try configure(connection)
        let url = directory.appendingPathComponent(name)
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        capture.advance(0.3)
        try movie.startRecording(to: url, audio: false) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        capture.advance(1.2)
        try capture.stopRecording(movie)
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }
        return url
    }

    @Test func connectionsFollowTheOutputsAndInputs() throws {
        let movie = MovieFileOutput(), data = VideoDataOutput(), sound = AudioDataOutput()
        #expect(movie.connection(with: .video) == nil, "no session, no connection")
        let session = CaptureSession()
        try session.add(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        for output in [movie, data, sound] as [CaptureOutput] { try session.add(output) }
        #expect(movie.connection(with: .video) != nil && movie.connection(with: .audio) == nil, "no microphone yet")
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        #expect(movie.connections.count == 2 && data.connections.map(\.mediaType) == [.video])
        #expect(sound.connection(with: .video) == nil && sound.connection(with: .audio)?.isActive == true)
        let connection = try #require(data.connection(with: .video))
        #expect(connection.videoOrientation == .landscapeRight && connection.videoRotationAngle == 0)
        connection.videoRotationAngle = 90
        #expect(connection.videoOrientation == .portrait)
        connection.videoRotationAngle = 45
        #expect(connection.videoOrientation == .portrait, "an angle that is no quarter turn is ignored")
        #expect(!connection.isVideoRotationAngleSupported(45) && connection.isVideoRotationAngleSupported(-90))
        connection.videoOrientation = .portraitUpsideDown
        #expect(connection.videoRotationAngle == 270)
        // Mirroring is the session's until automatic adjustment is turned off.
        #expect(connection.automaticallyAdjustsVideoMirroring && !connection.isVideoMirrored)
        connection.isVideoMirrored = true
        #expect(!connection.isVideoMirrored)
        #expect(throws: ReelError.self) { try connection.setVideoMirrored(true) }
        connection.automaticallyAdjustsVideoMirroring = false
        connection.isVideoMirrored = true
        #expect(connection.isVideoMirrored)
        // Stabilization: movie and data outputs, not photos or sound.
        #expect(connection.isVideoStabilizationSupported && connection.activeVideoStabilizationMode == .off)
        connection.preferredVideoStabilizationMode = .auto
        #expect(connection.activeVideoStabilizationMode == .standard)
        // Standard holds each picture back six frames: its latency at the camera's rate.
        let latencyFrames = connection.videoStabilizationLatency.seconds * session.frameRate
        #expect(abs(latencyFrames - 6) < 0.01, "latency \(connection.videoStabilizationLatency.seconds) s")
        let format = try #require(session.inputs.first?.device.activeFormat)
        #expect(format.supportsVideoStabilization && format.isVideoStabilizationModeSupported(.cinematic)
            && format.isVideoStabilizationModeSupported(.off))
        #expect(connection.isVideoMirroringSupported && sound.connection(with: .audio)?.isVideoMirroringSupported == false)
        let photo = PhotoOutput()
        try session.add(photo)
        #expect(photo.connection(with: .video)?.isVideoStabilizationSupported == false)
        // A preview that follows the connection: turned with it, mirrored for a front camera.
        let front = try CaptureDevice.device(withUniqueID: "virtual:front-camera")
        let photoConnection = try #require(photo.connection(with: .video))
        photoConnection.videoOrientation = .portrait
        let preview = PreviewGeometry(bounds: Size(width: 360, height: 640), videoSize: Size(width: 640, height: 360),
                                      connection: photoConnection, device: front)
        #expect(preview.rotationAngle == 90 && preview.isMirrored && preview.videoRect.size == Size(width: 360, height: 640))
        #expect(sound.connection(with: .audio)?.isVideoOrientationSupported == false)
    }

    /// A disabled connection passes nothing to its output; enabled again, pictures flow.
    @Test func aDisabledConnectionDeliversNothing() throws {
        let capture = SteppedCapture()
        let session = capture.session
        try session.add(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        let data = VideoDataOutput()
        try session.add(data)
        let received = PosixMutex(0)
        let queue = DispatchQueue(label: "test.connection")
        data.setSampleBufferHandler(queue: queue) { _ in received.withLock { $0 += 1 } }
        let connection = try #require(data.connection(with: .video))
        session.startRunning()
        defer { session.stopRunning() }
        capture.advance(0.3)
        #expect(received.withLock { $0 } > 0, "pictures flow while enabled")
        connection.isEnabled = false
        capture.advance(0.1)
        queue.sync {}  // what was handed over before the change has been handled
        let before = received.withLock { $0 }
        capture.advance(1)
        queue.sync {}
        #expect(received.withLock { $0 } == before, "a disabled connection delivers nothing")
        connection.isEnabled = true
        #expect(capture.advance(until: { received.withLock { $0 } > before }, limit: 1), "enabled again, pictures flow")
    }

    /// iio-sensor-proxy is how a Linux tablet says which way up it is held; on a machine
    /// without it there is no sensor, and asking for one says so at once.
    @Test(.enabled(if: !["/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy"].contains {
        FileManager.default.fileExists(atPath: $0)
    }, "this machine has iio-sensor-proxy"))
    func noSensorProxyMeansNoAccelerometer() {
        #expect(SensorProxyAccelerometer() == nil)
    }

    @Test func gravityGivesTheSeedsOrientations() {
        let accelerometer = VirtualAccelerometer()
        #expect(accelerometer.orientation == .portrait)
        for orientation in [DeviceOrientation.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown] {
            accelerometer.tilt(to: orientation)
            #expect(accelerometer.orientation == orientation)
        }
        // Seed 003's rule: the larger of x and y decides.
        #expect(DeviceOrientation(gravityX: 0.6, y: -0.7) == .portrait)
        #expect(DeviceOrientation(gravityX: 0.7, y: -0.6) == .landscapeRight)
        #expect(DeviceOrientation(gravityX: -0.7, y: 0.6) == .landscapeLeft)
        #expect(DeviceOrientation(gravityX: 0.1, y: 0.8) == .portraitUpsideDown)
        // The seed's cast from a device orientation to a video orientation keeps its meaning.
        for device in [DeviceOrientation.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight] {
            #expect(CaptureVideoOrientation(rawValue: device.rawValue) == CaptureVideoOrientation(device))
        }
        #expect(DeviceOrientation(sensorProxyName: "(<'left-up'>,)") == .landscapeRight)
        #expect(DeviceOrientation(sensorProxyName: "normal") == .portrait)
        #expect(DeviceOrientation(sensorProxyName: "undefined") == nil)
    }

    /// The recordings' display matrices, as ffprobe and Reel read them, and as Chromium shows them.
    @Test func orientationIsTheRecordingsDisplayMatrix() async throws {
        let accelerometer = VirtualAccelerometer()
        // (device held, ffprobe's rotation (counter-clockwise), Reel's clockwise turn, where the red quarter shows)
        let cases: [(DeviceOrientation, Double, Int, String)] = [
            (.portrait, -90, 90, "topRight"), (.landscapeLeft, 0, 0, "topLeft"),
            (.landscapeRight, 180, 180, "bottomRight"), (.portraitUpsideDown, 90, 270, "bottomLeft"),
        ]
        var urls: [(URL, String, Int)] = []
        for (held, ffprobeRotation, clockwise, corner) in cases {
            accelerometer.tilt(to: held)
            let url = try await record("held-\(held).mp4") { connection in
                connection.videoOrientation = try #require(CaptureVideoOrientation(accelerometer.orientation))
            }
            let stream = try #require(try FFprobe.probe(url).streams(ofType: "video").first)
            #expect(abs(stream.rotation) == abs(ffprobeRotation) && (ffprobeRotation == 180 || stream.rotation == ffprobeRotation),
                    "\(held): ffprobe rotation \(stream.rotation)")
            #expect(stream.width == 640 && stream.height == 480, "the pixels stay as the sensor gave them")
            let track = try #require(try Asset(url: url).tracks(withMediaType: .video).first)
            #expect(track.rotation == clockwise, "\(held): Reel reads \(track.rotation)")
            urls.append((url, corner, clockwise))
        }
        guard BrowserPlayer.available else { return }
        for (url, corner, clockwise) in urls {
            let shown = try Self.corners(url)
            let size = (shown["videoWidth"] as? Int ?? 0, shown["videoHeight"] as? Int ?? 0)
            #expect(clockwise % 180 == 0 ? size == (640, 480) : size == (480, 640), "\(url.lastPathComponent): \(size)")
            for name in ["topLeft", "topRight", "bottomLeft", "bottomRight"] {
                let rgb = shown[name] as? [Int] ?? []
                let red = rgb.count == 3 && rgb[0] > 150 && rgb[2] < 100
                let blue = rgb.count == 3 && rgb[2] > 150 && rgb[0] < 100
                #expect(name == corner ? red : blue, "\(url.lastPathComponent): \(name) is \(rgb); red belongs \(corner)")
            }
        }
    }

    /// iOS mirrors a front camera's preview by itself, not its outputs; a mirrored movie
    /// connection writes a mirrored display matrix (the pixels are not flipped).
    @Test func mirroringIsMetadataInAMovie() async throws {
        let front = try CaptureDevice.device(withUniqueID: "virtual:front-camera")
        #expect(PreviewGeometry(bounds: Size(width: 100, height: 100), videoSize: Size(width: 640, height: 480), device: front)
            .isMirrored)
        let url = try await record("mirrored.mp4") { connection in
            #expect(!connection.isVideoMirrored, "outputs are not mirrored by default")
            connection.automaticallyAdjustsVideoMirroring = false
            connection.isVideoMirrored = true
            connection.videoOrientation = .portrait
        }
        let track = try #require(try Asset(url: url).tracks(withMediaType: .video).first)
        #expect(track.orientation == .leftMirrored, "\(track.orientation)")
        #expect(track.preferredTransform.determinant < 0)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/exiftool"), "needs exiftool (make deps)"))
    func photosCarryTheConnectionsOrientationInEXIF() async throws {
        let photo = PhotoOutput()
        let session = try session(with: photo)
        session.startRunning()
        defer { session.stopRunning() }
        try await Task.sleep(nanoseconds: 300_000_000)
        let connection = try #require(photo.connection(with: .video))
        var tags: [String] = []
        for (orientation, mirrored) in [(CaptureVideoOrientation.portrait, false), (.landscapeRight, false),
                                        (.landscapeLeft, false), (.portrait, true)] {
            connection.videoOrientation = orientation
            connection.automaticallyAdjustsVideoMirroring = !mirrored
            if mirrored { connection.isVideoMirrored = true }
            let taken = try await photo.capturePhoto(with: PhotoSettings())
            #expect(taken.width == 640 && taken.height == 480, "the pixels stay as the sensor gave them")
            let url = directory.appendingPathComponent("photo-\(orientation)-\(mirrored).jpg")
            try taken.write(to: url)
            let result = try ProcessRunner.run("/usr/bin/exiftool", ["-s", "-s", "-s", "-Orientation", url.path])
            tags.append(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(tags == ["Rotate 90 CW", "Horizontal (normal)", "Rotate 180", "Mirror horizontal and rotate 270 CW"], "\(tags)")
    }

    /// Seed 000's writer takes the rotation transform from the device orientation.
    @Test func theSeedPipelineWritesItsOrientation() async throws {
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = .low
        try session.add(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 320)))
        let pipeline = try FilteredCapturePipeline(session: session, filter: nil)
        let accelerometer = VirtualAccelerometer()
        accelerometer.tilt(to: .portraitUpsideDown)
        pipeline.videoOrientation = try #require(CaptureVideoOrientation(accelerometer.orientation))
        session.startRunning()
        defer { session.stopRunning() }
        capture.advance(0.3)
        // The frames up to now reach the pipeline's queue; the recording starts after them.
        pipeline.waitForQueuedFrames()
        let url = directory.appendingPathComponent("pipeline-upside-down.mp4")
        try pipeline.startRecording(to: url)
        capture.advance(0.7)
        let frames = try await pipeline.stopRecording()
        #expect(frames == 21, "0.7 s at 30 fps: \(frames) frames")
        let stream = try #require(try FFprobe.probe(url).streams(ofType: "video").first)
        #expect(stream.rotation == 90, "ffprobe rotation \(stream.rotation) (270° clockwise)")
    }

    /// A video data output gets its pixel buffers turned (and flipped) as AVFoundation's are.
    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture"))
    func dataOutputsGetTurnedPixels() async throws {
        let data = VideoDataOutput()
        let session = try session(with: data)
        let connection = try #require(data.connection(with: .video))
        connection.videoOrientation = .portrait
        let frames = data.frames
        session.startRunning()
        defer { session.stopRunning() }
        var seen: PixelBuffer?
        var count = 0
        for await frame in frames {
            count += 1
            // The file camera's first pictures may come before the file is open.
            if count > 5, let picture = frame.pixelBuffer {
                seen = picture
                break
            }
        }
        let picture = try #require(seen)
        #expect(picture.width == 480 && picture.height == 640)
        // Red (V high) now at the top right, blue at the top left.
        let topRight = picture.element(plane: 2, x: 180, y: 40)?[0] ?? 0
        let topLeft = picture.element(plane: 2, x: 40, y: 40)?[0] ?? 255
        #expect(topRight > 180 && topLeft < 128, "V at top right \(topRight), top left \(topLeft)")
    }
}

extension ConnectionTests {
    /// How Chromium displays `url`: its size after the display matrix and the colour near each corner.
    static func corners(_ url: URL) throws -> [String: Any] {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/corners.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, url.path], timeout: 90)
        guard result.status == 0, let line = result.standardOutput.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw TestFailure("corners.py \(url.path): \(result.standardError)") }
        return json
    }
}

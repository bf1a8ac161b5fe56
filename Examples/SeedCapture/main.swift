// Seed 001 (custom photo camera and video recording): the 1280x720 session with the back
// camera and a still-image output, tap to focus and expose at a point through the preview
// layer's geometry, subject-area monitoring, the device's flash mode, the front/back switch
// inside begin/commitConfiguration, a photo from each camera, then the movie session with
// a microphone and a movie file output (stabilized, and turned by the orientation gravity
// gives, seed 003's lines), ported call by call to Reel. A comment marks each
// line that had to change and why. There is no screen: taps and buttons are calls.
//
//   swift run SeedCapture OUTDIR
//
// Writes photo-back.jpg, photo-front.jpg and movie.mov; exits nonzero if any step fails.

import Dispatch
import Foundation
import ReelCapture
import ReelCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SeedCapture: \(message)\n".utf8))
    exit(1)
}

final class PhotoViewController: @unchecked Sendable {
    let outputDirectory: URL
    var session = CaptureSession()
    var captureDeviceInput: CaptureDeviceInput?
    // AVCaptureStillImageOutput (deprecated on iOS, absent in Reel) → PhotoOutput, which takes
    // the same JPEG from the next frame.
    let imageOutput = PhotoOutput()
    // AVCaptureVideoPreviewLayer → its geometry; the view is a phone's 375x667 points.
    var previewLayer: PreviewGeometry?
    let viewBounds = Size(width: 375, height: 667)
    var areaObserver: (any NSObjectProtocol)?

    init(outputDirectory: URL) {
        self.outputDirectory = outputDirectory
    }

    func viewDidLoad() {
        session = CaptureSession()
        if session.canSetSessionPreset(.hd1280x720) {
            session.sessionPreset = .hd1280x720
        }
        guard let captureDevice = getCameraDevice(withPosition: .back) else { fail("no back camera") }
        // initWithDevice:error: → a throwing initialiser.
        do { captureDeviceInput = try CaptureDeviceInput(device: captureDevice) } catch { fail("\(error)") }
        // outputSettings @{AVVideoCodecKey: AVVideoCodecJPEG} → PhotoSettings(codec: .jpeg) at capture.
        if let captureDeviceInput, session.canAddInput(captureDeviceInput) {
            session.addInput(captureDeviceInput)
        }
        if session.canAddOutput(imageOutput) {
            session.addOutput(imageOutput)
        }
        previewLayer = PreviewGeometry(bounds: viewBounds, videoSize: Size(width: 1280, height: 720),
                                       videoGravity: .resizeAspectFill, device: captureDevice)
        addNotificationToCaptureDevice(captureDevice)
        session.startRunning()
    }

    /// Locks the device, changes it, unlocks it.
    func changeDeviceProperty(_ block: (CaptureDevice) -> Void) {
        guard let device = captureDeviceInput?.device else { return }
        do {
            try device.lockForConfiguration()
            block(device)
            device.unlockForConfiguration()
        } catch {
            print("changing the device failed: \(error)")
        }
    }

    func addNotificationToCaptureDevice(_ device: CaptureDevice) {
        changeDeviceProperty { device in
            device.isSubjectAreaChangeMonitoringEnabled = true
        }
        // addObserver:selector:name:object: → the block form.
        areaObserver = NotificationCenter.default.addObserver(forName: CaptureSession.subjectAreaDidChangeNotification,
                                                              object: device, queue: nil) { _ in
            print("subject area changed...")
        }
    }

    func removeNotificationFromCaptureDevice(_ device: CaptureDevice) {
        if let areaObserver { NotificationCenter.default.removeObserver(areaObserver) }
        areaObserver = nil
    }

    /// A tap on the screen: the view point to the device's point of interest, then focus and exposure there.
    func tapScreen(at point: Point) {
        guard let previewLayer else { return }
        let cameraPoint = previewLayer.captureDevicePointOfInterest(for: point)
        // setFocusPoint: (the focus cursor's animation) has no view to draw in.
        focus(withMode: .autoFocus, exposureMode: .autoExpose, atPoint: cameraPoint)
        print("focus and exposure at \(cameraPoint.x), \(cameraPoint.y)")
    }

    func focus(withMode focusMode: CaptureDevice.FocusMode, exposureMode exposeMode: CaptureDevice.ExposureMode, atPoint point: Point) {
        changeDeviceProperty { device in
            if device.isFocusModeSupported(focusMode) {
                device.focusMode = focusMode
            }
            if device.isExposureModeSupported(exposeMode) {
                device.exposureMode = exposeMode
            }
            if device.isFocusPointOfInterestSupported {
                device.focusPointOfInterest = point
            }
            if device.isExposurePointOfInterestSupported {
                device.exposurePointOfInterest = point
            }
        }
    }

    /// The flash buttons: off, on, auto.
    func setFlashMode(_ mode: CaptureDevice.FlashMode) {
        changeDeviceProperty { device in
            if device.isFlashModeSupported(mode) {
                device.flashMode = mode
            }
        }
        print("flash mode: \(captureDeviceInput?.device.flashMode.rawValue ?? "none")")
    }

    /// takePhoto: `captureStillImageAsynchronouslyFromConnection:` → capturePhoto, with the
    /// device's flash mode passed in the settings (the still-image output read it from the device).
    func takePhoto(named name: String) {
        let done = DispatchSemaphore(value: 0)
        let settings = PhotoSettings(codec: .jpeg(quality: 0.9), flashMode: captureDeviceInput?.device.flashMode ?? .off)
        let url = outputDirectory.appendingPathComponent(name)
        imageOutput.capturePhoto(with: settings) { result in
            switch result {
            case .success(let photo):
                // UIImageWriteToSavedPhotosAlbum → a file.
                do { try photo.write(to: url) } catch { fail("\(error)") }
                print("photo: \(name) \(photo.width)x\(photo.height) flash \(photo.metadata.flashFired ? "fired" : "off")")
            case .failure(let error):
                fail("photo \(name): \(error)")
            }
            done.signal()
        }
        done.wait()
    }

    /// The switch button: the camera facing the other way, swapped inside begin/commitConfiguration.
    func toggleCamera() {
        guard let oldCaptureDevice = captureDeviceInput?.device else { return }
        removeNotificationFromCaptureDevice(oldCaptureDevice)
        let currentPosition = oldCaptureDevice.position
        var targetPosition = CaptureDevice.Position.front
        // The seed's `|| AVCaptureDevicePositionUnspecified` is always true (the constant is 0)
        // and so always picks the back camera; the port keeps what the button means.
        if currentPosition == .front || currentPosition == .unspecified {
            targetPosition = .back
        }
        guard let currentCaptureDevice = getCameraDevice(withPosition: targetPosition) else { return }
        addNotificationToCaptureDevice(currentCaptureDevice)
        guard let currentInput = try? CaptureDeviceInput(device: currentCaptureDevice) else { return }
        session.beginConfiguration()
        if let captureDeviceInput { session.removeInput(captureDeviceInput) }
        if session.canAddInput(currentInput) {
            session.addInput(currentInput)
            captureDeviceInput = currentInput
        }
        session.commitConfiguration()
        print("camera: \(currentCaptureDevice.position.rawValue) \(currentCaptureDevice.uniqueID)")
    }

    /// devicesWithMediaType: (deprecated) → a discovery session, as iOS 10 and later ask.
    func getCameraDevice(withPosition position: CaptureDevice.Position) -> CaptureDevice? {
        let cameras = DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video, position: .unspecified).devices
        for device in cameras where device.position == position {
            return device
        }
        return nil
    }
}

/// The seed's second controller: recording a movie with the microphone.
final class VideoViewController: @unchecked Sendable {
    let outputDirectory: URL
    let session = CaptureSession()
    let movieFileOutput = MovieFileOutput()

    init(outputDirectory: URL) {
        self.outputDirectory = outputDirectory
    }

    func viewDidLoad() {
        if session.canSetSessionPreset(.hd1280x720) {
            session.sessionPreset = .hd1280x720
        }
        let cameraDevice = DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video, position: .back).devices.first
        // devicesWithMediaType:AVMediaTypeAudio].firstObject → the default microphone.
        let audioDevice = CaptureDevice.default(for: .audio)
        guard let cameraDevice, let audioDevice else { fail("no camera or microphone") }
        let cameraDeviceInput: CaptureDeviceInput, audioDeviceInput: CaptureDeviceInput
        do {
            cameraDeviceInput = try CaptureDeviceInput(device: cameraDevice)
            audioDeviceInput = try CaptureDeviceInput(device: audioDevice)
        } catch {
            fail("\(error)")
        }
        if session.canAddInput(cameraDeviceInput) {
            session.addInput(cameraDeviceInput)
        }
        if session.canAddInput(audioDeviceInput) {
            session.addInput(audioDeviceInput)
        }
        if session.canAddOutput(movieFileOutput) {
            session.addOutput(movieFileOutput)
        }
        // connectionWithMediaType:AVMediaTypeVideo, then stabilization where it is supported.
        if let connection = movieFileOutput.connection(with: .video), connection.isVideoStabilizationSupported {
            connection.preferredVideoStabilizationMode = .auto
        }
        session.startRunning()
    }

    /// The record button, with the recording limited to `seconds` (the issue's "movie file
    /// with max duration"; the seed stops by a second press).
    func record(seconds: Double) {
        let done = DispatchSemaphore(value: 0)
        movieFileOutput.maxRecordedDuration = MediaTime(seconds: seconds, preferredTimescale: 600)
        let url = outputDirectory.appendingPathComponent("movie.mov")
        // connection.videoOrientation = previewLayer.connection.videoOrientation; the
        // orientation comes from gravity as in seed 003 (CMMotionManager → an accelerometer,
        // here the virtual one, held upright), cast from the device's orientation as the seed does.
        let motion = VirtualAccelerometer()
        motion.tilt(to: .portrait)
        let deviceOrientation = DeviceOrientation(gravityX: motion.gravity.x, y: motion.gravity.y)
        if let orientation = CaptureVideoOrientation(rawValue: deviceOrientation.rawValue) {
            movieFileOutput.connection(with: .video)?.videoOrientation = orientation
        }
        if movieFileOutput.isRecording {
            movieFileOutput.stopRecording()
        } else {
            // startRecordingToOutputFileURL:recordingDelegate: → closures for the delegate.
            do {
                try movieFileOutput.startRecording(to: url, fileType: .mov, handlers: MovieFileOutput.RecordingHandlers(
                    didStart: { _ in print("recording started") },
                    didFinish: { url, error in
                        if let error { fail("recording: \(error)") }
                        print("recording finished: \(url.lastPathComponent)")
                        done.signal()
                    }))
            } catch {
                fail("\(error)")
            }
        }
        done.wait()
        session.stopRunning()
    }
}

let arguments = CommandLine.arguments
let folder = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : FileManager.default.currentDirectoryPath)
let photos = PhotoViewController(outputDirectory: folder)
photos.viewDidLoad()
usleep(500_000)
photos.tapScreen(at: Point(x: 100, y: 200))
photos.setFlashMode(.auto)
usleep(300_000)
photos.takePhoto(named: "photo-back.jpg")
photos.toggleCamera()
photos.setFlashMode(.auto)  // the new camera has no flash: the mode stays off
usleep(500_000)
photos.takePhoto(named: "photo-front.jpg")
photos.session.stopRunning()

let video = VideoViewController(outputDirectory: folder)
video.viewDidLoad()
usleep(300_000)
video.record(seconds: 2)

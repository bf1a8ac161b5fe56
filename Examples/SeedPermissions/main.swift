// Seed 004 (BSFramework's photo component): the camera permission flow, the session preset
// with its fallback, the session set up off the main thread, and a JPEG photo, ported call
// by call to Reel. A comment marks each line that had to change and why.
//
//   swift run SeedPermissions OUT.jpg
//
// Prints the permission status, the preset and the photo's size; exits nonzero on failure.

import Dispatch
import Foundation
import ReelCapture
import ReelCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SeedPermissions: \(message)\n".utf8))
    exit(1)
}

final class BSCameraViewController: @unchecked Sendable {
    let session = CaptureSession()
    // The seed's serial queue for session work, off the main thread.
    let sessionQueue = DispatchQueue(label: "session queue")
    let photoOutput = PhotoOutput()
    let outputPath: String

    init(outputPath: String) {
        self.outputPath = outputPath
    }

    /// The permission flow: not determined → ask; denied → tell the user how to allow it; authorized → go.
    func checkAuthorization() {
        switch CaptureDevice.authorizationStatus(for: .video) {
        case .notDetermined:
            print("permission: not determined, asking")
            CaptureDevice.requestAccess(for: .video) { granted in
                if granted {
                    self.setUpSession()
                } else {
                    self.showPermissionMessage()
                }
            }
        case .restricted, .denied:
            showPermissionMessage()
        case .authorized:
            print("permission: authorized")
            setUpSession()
        }
    }

    func showPermissionMessage() {
        // UIAlertController pointing at Settings → the device's own remedy (a group to join, a node's mode).
        let remedy = CaptureDevice.default(for: .video)?.authorization.remedy ?? "allow this user to open the camera"
        fail("camera access is denied: \(remedy)")
    }

    func setUpSession() {
        sessionQueue.async {
            self.session.beginConfiguration()
            // The camera first: whether a preset can be set depends on it (the seed sets the
            // preset first; AVFoundation answers for the device it will get).
            guard let device = CaptureDevice.default(for: .video) else { fail("no camera") }
            let input: CaptureDeviceInput
            do { input = try CaptureDeviceInput(device: device) } catch { fail("\(error)") }
            if self.session.canAddInput(input) {
                self.session.addInput(input)
            }
            if self.session.canSetSessionPreset(.high) {
                self.session.sessionPreset = .high
            } else {
                self.session.sessionPreset = .iFrame960x540
            }
            print("preset: \(self.session.sessionPreset)")
            if self.session.canAddOutput(self.photoOutput) {
                self.session.addOutput(self.photoOutput)
            }
            self.session.commitConfiguration()
            self.session.startRunning()
            // A moment for the first frames, as a user would take before pressing the shutter.
            self.sessionQueue.asyncAfter(deadline: .now() + 0.5) { self.takePhoto() }
        }
    }

    func takePhoto() {
        // AVCapturePhotoSettings(format: [AVVideoCodecKey: AVVideoCodecTypeJPEG]) → PhotoSettings(codec:);
        // the delegate's didFinishProcessingPhoto → the completion closure.
        photoOutput.capturePhoto(with: PhotoSettings(codec: .jpeg(quality: 0.9))) { result in
            switch result {
            case .success(let photo):
                // UIImage(data: photo.fileDataRepresentation()) shown for review → written to the path.
                do { try photo.write(to: URL(fileURLWithPath: self.outputPath)) } catch { fail("\(error)") }
                print("photo: \(photo.width)x\(photo.height) \(self.outputPath)")
                self.session.stopRunning()
                exit(0)
            case .failure(let error):
                fail("\(error)")
            }
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count > 1 else { fail("usage: SeedPermissions OUT.jpg") }
let controller = BSCameraViewController(outputPath: arguments[1])
controller.checkAuthorization()
dispatchMain()

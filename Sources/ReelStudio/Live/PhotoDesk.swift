import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelCore

/// The shutter: a ``PhotoOutput`` photo with the chosen flash mode, written into the
/// library with its thumbnail.
final class PhotoDesk: @unchecked Sendable {
    private let camera: LiveCamera
    private let library: MediaLibrary
    private let lock = NSLock()
    private var _flashMode: CaptureDevice.FlashMode = .off

    init(camera: LiveCamera, library: MediaLibrary) {
        self.camera = camera
        self.library = library
    }

    /// The flash mode for the next photos.
    var flashMode: CaptureDevice.FlashMode {
        let supported = camera.photos.supportedFlashModes
        let mode = lock.withLock { _flashMode }
        return supported.contains(mode) ? mode : .off
    }

    /// - Throws: ``ReelError`` `.unsupported` for a mode the camera lacks.
    func use(flashMode name: String) throws(ReelError) {
        guard let mode = CaptureDevice.FlashMode(rawValue: name) else {
            throw ReelError(.invalidArgument, "a flash mode is off, on or auto", subject: name)
        }
        guard camera.photos.supportedFlashModes.contains(mode) else {
            throw ReelError(.unsupported, "\(camera.currentCamera.localizedName) has no flash", subject: name)
        }
        lock.withLock { _flashMode = mode }
    }

    struct Taken: Encodable, Sendable {
        var item: MediaLibrary.Item
        var flashFired: Bool
    }

    /// Takes a photo and saves it; waits at most 5 s for the camera.
    /// - Throws: ``ReelError`` from the photo output, or `.io` when the file cannot be written.
    func take() throws(ReelError) -> Taken {
        let settings = PhotoSettings(codec: .jpeg(quality: 0.92), flashMode: flashMode)
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        camera.followOrientation()
        camera.photos.capturePhoto(with: settings) { result in
            box.set(result)
            done.signal()
        }
        guard done.wait(timeout: .now() + 5) == .success, let result = box.result else {
            throw ReelError(.invalidState, "the camera gave no photo within 5 s")
        }
        let photo = try result.get()
        let url = library.newFile(kind: .photo, prefix: "Photo", extension: photo.fileExtension)
        try photo.write(to: url)
        // Made now from the picture in memory to save decoding it later; if it fails, the
        // gallery's request makes it from the file.
        try? library.writeThumbnail(photo.pixelBuffer, for: url)
        guard let item = library.item(at: url) else {
            throw ReelError(.io, "the photo was written but cannot be read back", subject: url.path)
        }
        return Taken(item: item, flashFired: photo.metadata.flashFired)
    }

    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Result<CapturePhoto, ReelError>?
        func set(_ result: Result<CapturePhoto, ReelError>) { lock.withLock { value = result } }
        var result: Result<CapturePhoto, ReelError>? { lock.withLock { value } }
    }
}

import Dispatch
import Foundation
import ReelAsset
public import ReelCore

/// Takes still photos from the session's camera: the next frame, filtered like every
/// other output's, lit by the flash when it fires, encoded as JPEG or PNG with EXIF.
/// `AVCapturePhotoOutput`.
public final class PhotoOutput: CaptureOutput, @unchecked Sendable {
    /// The mean luma below which `.auto` flash fires.
    static let darkScene = 70.0
    private let lock = NSLock()
    private var latestPicture: PixelBuffer?
    private var previousPicture: PixelBuffer?

    public override init() {}

    /// The flash modes the session's camera offers. `supportedFlashModes`.
    public var supportedFlashModes: [CaptureDevice.FlashMode] {
        let camera = session?.inputs.first { $0.device.mediaType == .video }?.device
        return camera?.hasFlash == true ? [.off, .on, .auto] : [.off]
    }

    /// Takes a photo; `completion` runs off the capture queue with the photo or why there
    /// is none. A flash mode outside ``supportedFlashModes`` is taken as `.off` (the photo's
    /// ``CapturePhoto`` reports the mode used). `capturePhoto(with:delegate:)`.
    /// - Parameters:
    ///   - settings: The photo's format, flash, size and orientation.
    ///   - completion: Called once, with the photo or the reason there is none (no session,
    ///     no camera, an encoding error).
    public func capturePhoto(with settings: PhotoSettings,
                             completion: @escaping @Sendable (Result<CapturePhoto, ReelError>) -> Void) {
        guard let session else {
            return completion(.failure(ReelError(.invalidState, "add the photo output to a session first")))
        }
        guard let camera = session.inputs.first(where: { $0.device.mediaType == .video })?.device else {
            return completion(.failure(ReelError(.invalidState, "the session has no camera")))
        }
        // A flash mode the camera lacks (kept across a switch to the front camera) falls
        // back to no flash: the photo is taken, and says the flash did not fire.
        var resolved = settings
        if !supportedFlashModes.contains(resolved.flashMode) { resolved.flashMode = .off }
        // The connection's orientation and mirroring reach the photo as its EXIF orientation.
        if resolved.orientation == .up { resolved.orientation = videoConnection.displayOrientation }
        let settings = resolved
        if case .jpeg(let quality) = settings.codec, !(0...1).contains(quality) {
            return completion(.failure(ReelError(.invalidArgument, "JPEG quality \(quality) is outside 0-1")))
        }
        let fires = settings.flashMode == .on || (settings.flashMode == .auto && sceneLuma < Self.darkScene)
        do throws(ReelError) {
            try session.requestStill(flash: fires) { sample in
                DispatchQueue.global(qos: .userInitiated).async {
                    completion(Result { () throws(ReelError) -> CapturePhoto in
                        try Self.photo(from: sample, camera: camera, settings: settings, flashFired: fires)
                    })
                }
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// ``capturePhoto(with:completion:)`` for async code.
    /// - Parameter settings: The photo's format, flash, size and orientation.
    /// - Returns: The photo taken from the next frame.
    /// - Throws: ``ReelError`` the completion would have been given.
    public func capturePhoto(with settings: PhotoSettings) async throws(ReelError) -> CapturePhoto {
        let result = await withCheckedContinuation { continuation in
            capturePhoto(with: settings) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    private static func photo(from sample: SampleBuffer, camera: CaptureDevice, settings: PhotoSettings,
                              flashFired: Bool) throws(ReelError) -> CapturePhoto {
        guard var picture = sample.pixelBuffer else { throw ReelError(.invalidState, "the camera gave no picture") }
        if let box = settings.maxPhotoDimensions {
            guard box.width >= 2, box.height >= 2 else {
                throw ReelError(.invalidArgument, "a photo must be at least 2x2, not \(Int(box.width))x\(Int(box.height))")
            }
            let scale = min(box.width / Double(picture.width), box.height / Double(picture.height), 1)
            if scale < 1 {
                picture = try PixelScaler.converted(picture, to: .yuv420p, width: Int(Double(picture.width) * scale) & ~1,
                                                    height: Int(Double(picture.height) * scale) & ~1)
            }
        }
        let metadata = ImageMetadata(make: "Reel", model: camera.localizedName, date: Date(), orientation: settings.orientation,
                                     flashFired: flashFired, flashMode: .init(rawValue: settings.flashMode.rawValue) ?? .off)
        let format: ImageFile.Format
        switch settings.codec {
        case .png: format = .png
        // FFmpeg's JPEG scale runs from 1 (best) to 31.
        case .jpeg(let quality): format = .jpeg(quality: Int((1 + (1 - quality) * 30).rounded()))
        }
        var described = metadata
        described.width = picture.width
        described.height = picture.height
        let data = try ImageFile.data(picture, format: format, metadata: metadata)
        return CapturePhoto(pixelBuffer: picture, timestamp: sample.presentationTime, metadata: described, settings: settings,
                            data: data)
    }

    /// Keeps the newest picture (a reference, no copy): auto flash meters it only when a
    /// photo is asked for, not on every frame.
    override func deliver(_ sample: SampleBuffer) {
        guard sample.mediaType == .video, let picture = sample.pixelBuffer else { return }
        lock.withLock {
            previousPicture = latestPicture
            latestPicture = picture
        }
    }

    /// The mean luma of the scene, from the newest picture that is not the camera's own flash.
    private var sceneLuma: Double {
        let (latest, previous) = lock.withLock { (latestPicture, previousPicture) }
        for picture in [latest, previous].compactMap({ $0 }) {
            let grid = SubjectAreaMonitor.grid(of: picture)
            let mean = grid.reduce(0, +) / Double(max(grid.count, 1))
            if mean < 225 { return mean }
        }
        return 128
    }
}

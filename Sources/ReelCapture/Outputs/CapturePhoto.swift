public import Foundation
public import ReelAsset
public import ReelCore

/// A photo taken by a ``PhotoOutput``: the encoded file, the picture and what the file
/// says about itself. `AVCapturePhoto`.
public struct CapturePhoto: Sendable {
    /// The picture as taken (yuv420p).
    public let pixelBuffer: PixelBuffer
    /// When it was taken on the session clock. `timestamp`.
    public let timestamp: MediaTime
    /// The EXIF it carries. `metadata`.
    public let metadata: ImageMetadata
    /// The settings it was taken with. `resolvedSettings`.
    public let settings: PhotoSettings
    private let data: Data

    init(pixelBuffer: PixelBuffer, timestamp: MediaTime, metadata: ImageMetadata, settings: PhotoSettings, data: Data) {
        self.pixelBuffer = pixelBuffer
        self.timestamp = timestamp
        self.metadata = metadata
        self.settings = settings
        self.data = data
    }

    /// `resolvedSettings.photoDimensions`.
    public var width: Int { pixelBuffer.width }
    public var height: Int { pixelBuffer.height }
    /// The file's bytes, EXIF included. `fileDataRepresentation()`.
    /// - Returns: The encoded photo (JPEG or PNG, as ``PhotoSettings/codec`` asked), ready to
    ///   store or send as it is.
    public func fileDataRepresentation() -> Data { data }
    /// `jpg` or `png`.
    public var fileExtension: String {
        if case .png = settings.codec { return "png" }
        return "jpg"
    }

    /// Writes the file under a temporary name, renamed into place when complete.
    /// - Parameter url: Where the file goes; an existing file there is replaced only once the
    ///   new one is whole.
    /// - Throws: ``ReelError`` `.io` naming the file.
    public func write(to url: URL) throws(ReelError) {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw ReelError(.io, "cannot write the photo: \(error.localizedDescription)", subject: url.path)
        }
    }
}

public import Foundation
import ReelAV
public import ReelCore

/// Still pictures as files: PNG and JPEG, written atomically.
public enum ImageFile {
    /// A still image format.
    public enum Format: Sendable, Hashable {
        case png
        /// JPEG at `quality` from 1 (best) to 31 (smallest); 3 is visually lossless.
        case jpeg(quality: Int)

        /// The format a file extension names (`.png`, `.jpg`, `.jpeg`).
        /// - Parameter pathExtension: The extension without its dot, in any case; nil for other extensions.
        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg(quality: 3)
            default: return nil
            }
        }
    }

    /// The encoded bytes of `picture`.
    /// - Parameters:
    ///   - picture: the picture, in any supported pixel format.
    ///   - format: PNG or JPEG.
    /// - Returns: the file's bytes.
    /// - Throws: ``ReelError`` with FFmpeg's message when the picture cannot be encoded.
    public static func data(_ picture: PixelBuffer, format: Format) throws(ReelError) -> Data {
        switch format {
        case .png: Data(try ImageEncoder.png(picture))
        case .jpeg(let quality): Data(try ImageEncoder.jpeg(picture, quality: min(max(quality, 1), 31)))
        }
    }

    /// The encoded bytes of `picture` with `metadata` as EXIF (its size filled in).
    /// - Parameters:
    ///   - picture: the picture, in any supported pixel format.
    ///   - format: PNG or JPEG.
    ///   - metadata: the camera, date, orientation and place to record.
    /// - Returns: the file's bytes.
    /// - Throws: ``ReelError`` with FFmpeg's message when the picture cannot be encoded.
    public static func data(_ picture: PixelBuffer, format: Format, metadata: ImageMetadata) throws(ReelError) -> Data {
        var metadata = metadata
        metadata.width = picture.width
        metadata.height = picture.height
        switch format {
        case .png: return Data(ExifEncoder.insert(metadata, intoPNG: try ImageEncoder.png(picture)))
        case .jpeg(let quality):
            return Data(ExifEncoder.insert(metadata, intoJPEG: try ImageEncoder.jpeg(picture, quality: min(max(quality, 1), 31))))
        }
    }

    /// Writes `picture` to `url`, under a temporary name renamed when complete.
    /// The format follows the extension unless given.
    /// - Parameters:
    ///   - picture: the picture, in any supported pixel format.
    ///   - url: the file to write; an existing one is replaced only once the new one is complete.
    ///   - format: PNG or JPEG; by default, from the extension.
    /// - Throws: ``ReelError`` `.unsupported` for an extension other than png/jpg/jpeg, or `.io`.
    public static func write(_ picture: PixelBuffer, to url: URL, format: Format? = nil) throws(ReelError) {
        guard let format = format ?? Format(pathExtension: url.pathExtension) else {
            throw ReelError(.unsupported, "pictures are written as .png or .jpg, not '.\(url.pathExtension)'",
                            subject: url.path)
        }
        let bytes = try data(picture, format: format)
        do {
            try bytes.write(to: url, options: .atomic)
        } catch {
            throw ReelError(.io, "cannot write the picture: \(error.localizedDescription)", subject: url.path)
        }
    }
}

import Foundation
import ReelAsset
import ReelCore

/// `file:PATH` as a camera: the file's pictures at the session's frame rate, looping.
final class FileCamera: @unchecked Sendable {
    private let asset: Asset
    private var reader: AssetReader?
    private var output: AssetReaderTrackOutput?
    private var last: PixelBuffer?
    private var size: (Int, Int) = (0, 0)
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cameras: [String: FileCamera] = [:]

    static func shared(for id: String) -> FileCamera? {
        lock.withLock {
            if let camera = cameras[id] { return camera }
            guard let asset = try? Asset(path: String(id.dropFirst(5))) else { return nil }
            let camera = FileCamera(asset: asset)
            cameras[id] = camera
            return camera
        }
    }

    private init(asset: Asset) { self.asset = asset }

    func render(frame index: Int64, rate: Double, into picture: PixelBuffer) {
        if output == nil || size != (picture.width, picture.height) { open(width: picture.width, height: picture.height) }
        var next = try? output?.copyNextSampleBuffer()
        if next == nil {
            open(width: picture.width, height: picture.height) // loop
            next = try? output?.copyNextSampleBuffer()
        }
        if let frame = next?.pixelBuffer { last = frame }
        if let last { try? picture.copyPixels(from: last) }
    }

    private func open(width: Int, height: Int) {
        size = (width, height)
        guard let track = asset.tracks(withMediaType: .video).first, let reader = try? AssetReader(asset: asset) else { return }
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p, width: width,
                                                                                              height: height))
        try? reader.add(output)
        try? reader.startReading()
        self.reader = reader
        self.output = output
    }
}

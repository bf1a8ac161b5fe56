import Foundation
import ReelAV
public import ReelCore

/// Pictures of an asset's video at chosen times. `AVAssetImageGenerator`.
///
/// Each request seeks to the keyframe before the time and decodes forward. With the
/// default tolerances of zero the picture is the frame on screen at that time; a
/// tolerance before the time lets it stop at the first frame within it, which is faster.
public final class ImageGenerator {
    public let asset: Asset
    /// Turn pictures upright by the track's preferred transform. `appliesPreferredTrackTransform`.
    /// Off by default, as in AVFoundation.
    public var appliesPreferredTrackTransform = false
    /// The largest picture to return, after turning; the picture is scaled down to fit,
    /// keeping its aspect. Zero means the track's own size. `maximumSize`.
    public var maximumSize: Size = .zero
    /// How much earlier than asked the frame may be. `requestedTimeToleranceBefore`.
    /// Reel defaults to zero (exact), where AVFoundation defaults to infinity.
    public var requestedTimeToleranceBefore: MediaTime = .zero
    /// How much later than asked the frame may be. `requestedTimeToleranceAfter`.
    public var requestedTimeToleranceAfter: MediaTime = .zero
    /// The pixel format of the pictures: RGBA by default, for drawing and PNG.
    public var pixelFormat: PixelFormat = .rgba

    /// A generator of `asset`'s pictures.
    /// - Parameter asset: The movie or image to take pictures from.
    public init(asset: Asset) {
        self.asset = asset
    }

    /// The picture at `time` and the time of the frame it shows.
    /// `copyCGImage(at:actualTime:)` / `image(at:)`.
    /// - Parameter time: the time wanted, within the asset's duration.
    /// - Returns: the picture (in ``pixelFormat``, turned upright when
    ///   ``appliesPreferredTrackTransform`` is set) and the time of the frame it shows.
    /// - Throws: ``ReelError`` `.invalidData` for an asset with no video, `.invalidArgument`
    ///   for a time outside the asset, or a decode error.
    public func image(at time: MediaTime) throws(ReelError) -> (image: PixelBuffer, actualTime: MediaTime) {
        guard let track = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: asset.url.path)
        }
        guard time.isNumeric, time >= .zero else {
            throw ReelError(.invalidArgument, "time \(time.seconds) s is not a time in the asset", subject: asset.url.path)
        }
        let reader = try AssetReader(asset: asset)
        let before = requestedTimeToleranceBefore.isNumeric ? requestedTimeToleranceBefore : time
        let start = max(.zero, time - max(before, .zero))
        reader.timeRange = MediaTimeRange(start: start, duration: .positiveInfinity)
        let (width, height) = decodeSize(for: track)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(
            pixelFormat: pixelFormat == .rgba || pixelFormat == .bgra ? pixelFormat : .rgba, width: width, height: height))
        output.appliesPreferredTrackTransform = appliesPreferredTrackTransform
        try reader.add(output)
        try reader.startReading()
        // The reader starts at the first frame whose interval overlaps `start`: the frame on
        // screen at `time` when the tolerance is zero, else the earliest inside the window.
        var first = try output.copyNextSampleBuffer()
        if let early = first, before > .zero, early.presentationTime < start,
           let next = try output.copyNextSampleBuffer(), next.presentationTime <= time {
            first = next // the frame on screen at `start` began before the window; the next is inside it
        }
        reader.cancelReading()
        guard let chosen = first, let picture = chosen.pixelBuffer else {
            throw ReelError(.invalidArgument,
                            "no frame at \(String(format: "%.3f", time.seconds)) s (the video ends at \(String(format: "%.3f", track.timeRange.end.seconds)) s)",
                            subject: asset.url.path)
        }
        let after = requestedTimeToleranceAfter.isNumeric ? requestedTimeToleranceAfter : .positiveInfinity
        if chosen.presentationTime > time + after {
            throw ReelError(.invalidArgument, "no frame within the tolerance of \(time.seconds) s", subject: asset.url.path)
        }
        return (picture, chosen.presentationTime)
    }

    /// The size to decode at: the track's, scaled down so the turned picture fits ``maximumSize``.
    private func decodeSize(for track: AssetTrack) -> (Int?, Int?) {
        guard maximumSize.width > 0 || maximumSize.height > 0 else { return (nil, nil) }
        let natural = track.naturalSize
        let turned = appliesPreferredTrackTransform && (track.orientation?.swapsDimensions ?? false)
        let shown = turned ? Size(width: natural.height, height: natural.width) : natural
        let limitW = maximumSize.width > 0 ? maximumSize.width : .infinity
        let limitH = maximumSize.height > 0 ? maximumSize.height : .infinity
        let scale = min(1, limitW / shown.width, limitH / shown.height)
        guard scale < 1 else { return (nil, nil) }
        let width = max(1, Int((natural.width * scale).rounded()))
        let height = max(1, Int((natural.height * scale).rounded()))
        return (width, height)
    }
}

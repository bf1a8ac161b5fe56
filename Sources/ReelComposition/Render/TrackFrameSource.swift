import ReelAsset
import ReelCore

/// The pictures of one segment's source, read in order: the frame on screen at each
/// source time asked for, decoded already scaled to `decodeSize`.
final class TrackFrameSource {
    let segment: CompositionTrackSegment
    private let reader: AssetReader
    private let output: AssetReaderTrackOutput
    private var current: SampleBuffer?
    private var next: SampleBuffer?
    private var ended = false

    /// The stored size of this segment's own source (each clip on a track may differ).
    let naturalSize: Size

    /// - Parameter scale: how much smaller than its stored size the source is drawn (≤ 1):
    ///   it is decoded at that size, so no work is spent on pixels the output throws away.
    init(segment: CompositionTrackSegment, scale: Double) throws(ReelError) {
        self.segment = segment
        guard let url = segment.sourceURL else { throw ReelError(.invalidArgument, "an empty segment has no frames") }
        let asset = try Asset(url: url)
        guard let track = asset.track(withTrackID: segment.sourceTrackID) else {
            throw ReelError(.invalidArgument, "has no track \(segment.sourceTrackID)", subject: url.path)
        }
        naturalSize = track.naturalSize
        let natural = track.naturalSize
        let k = min(1, max(scale, 1.0 / 16))
        let decodeSize = k > 0.99 ? (width: Int(natural.width) & ~1, height: Int(natural.height) & ~1)
            : (width: max(2, Int((natural.width * k / 2).rounded()) * 2), height: max(2, Int((natural.height * k / 2).rounded()) * 2))
        reader = try AssetReader(asset: asset)
        reader.timeRange = MediaTimeRange(start: segment.timeMapping.source.start, duration: .positiveInfinity)
        output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(
            pixelFormat: .yuv420p, width: decodeSize.width, height: decodeSize.height))
        try reader.add(output)
        try reader.startReading()
        current = try output.copyNextSampleBuffer()
        next = try output.copyNextSampleBuffer()
    }

    /// The frame shown at source time `time` (the last frame holds past the end).
    func frame(at time: MediaTime) throws(ReelError) -> PixelBuffer? {
        while let upcoming = next, upcoming.presentationTime <= time {
            current = upcoming
            next = ended ? nil : try output.copyNextSampleBuffer()
            if next == nil {
                ended = true
                reader.cancelReading()
            }
        }
        return current?.pixelBuffer
    }

    func close() { reader.cancelReading() }
}

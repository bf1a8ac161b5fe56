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

    init(segment: CompositionTrackSegment, decodeSize: (width: Int, height: Int)) throws(ReelError) {
        self.segment = segment
        guard let url = segment.sourceURL else { throw ReelError(.invalidArgument, "an empty segment has no frames") }
        let asset = try Asset(url: url)
        guard let track = asset.track(withTrackID: segment.sourceTrackID) else {
            throw ReelError(.invalidArgument, "has no track \(segment.sourceTrackID)", subject: url.path)
        }
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

import ReelAsset
import ReelCore

/// The pictures of one segment's source, read in order: the frame on screen at each
/// source time asked for, decoded already scaled to `decodeSize`, on a thread of its own
/// a few frames ahead (``ReadAhead``) when `readAhead` is above 0.
final class TrackFrameSource {
    let segment: CompositionTrackSegment
    private let frames: ReadAhead
    private var current: SampleBuffer?
    private var next: SampleBuffer?
    private var started = false

    /// The stored size of this segment's own source (each clip on a track may differ).
    let naturalSize: Size

    /// - Parameters:
    ///   - scale: how much smaller than its stored size the source is drawn (≤ 1): it is
    ///     decoded at that size, so no work is spent on pixels the output throws away.
    ///   - readAhead: decoded frames that may wait; 0 decodes on the caller's thread.
    ///   - from: the first source time wanted (a player's seek), when later than the segment's
    ///     start: reading begins at the frame on screen then instead of at the segment's start.
    ///   - grid: the composition times ``frame(at:)`` will be asked for, when only those (an
    ///     export's frames, `start + k × step`): pictures shown at none of them are skipped.
    ///   - pixelFormat: the pictures' format: yuv420p, or rgba for a styled layer (its alpha kept).
    ///   - matrix: the YCbCr matrix of the frame they are drawn into (the output's), which
    ///     yuv420p pictures are converted to.
    init(segment: CompositionTrackSegment, scale: Double, readAhead: Int = 0, from: MediaTime? = nil,
         grid: FrameGrid? = nil, pixelFormat: PixelFormat = .yuv420p, matrix: ColorMatrix) throws(ReelError) {
        self.segment = segment
        guard let url = segment.sourceURL else { throw ReelError(.invalidArgument, "an empty segment has no frames") }
        let asset = try segment.sourceAsset()
        guard let track = asset.track(withTrackID: segment.sourceTrackID) else {
            throw ReelError(.invalidArgument, "has no track \(segment.sourceTrackID)", subject: url.path)
        }
        naturalSize = track.naturalSize
        let natural = track.naturalSize
        let k = min(1, max(scale, 1.0 / 16))
        let decodeSize = k > 0.99 ? (width: Int(natural.width) & ~1, height: Int(natural.height) & ~1)
            : (width: max(2, Int((natural.width * k / 2).rounded()) * 2), height: max(2, Int((natural.height * k / 2).rounded()) * 2))
        let start = max(segment.timeMapping.source.start, from ?? .zero)
        let mapping = segment.timeMapping
        frames = ReadAhead(capacity: readAhead, name: "reel.decode \(url.lastPathComponent)") { () throws(ReelError) in
            let reader = try AssetReader(asset: asset)
            reader.timeRange = MediaTimeRange(start: start, duration: .positiveInfinity)
            var settings = VideoOutputSettings(pixelFormat: pixelFormat, width: decodeSize.width, height: decodeSize.height)
            settings.colorMatrix = matrix
            let output = AssetReaderTrackOutput(track: track, videoSettings: settings)
            if let grid { output.picturesWanted = { grid.showsSource(of: mapping, in: $0) } }
            try reader.add(output)
            try reader.startReading()
            return ReadAhead.Reading(reader: reader, output: output)
        }
    }

    deinit { frames.close() }

    /// The frame shown at source time `time` (the last frame holds past the end).
    func frame(at time: MediaTime) throws(ReelError) -> PixelBuffer? {
        if !started {
            started = true
            current = try frames.next()
            next = current == nil ? nil : try frames.next()
        }
        while let upcoming = next, upcoming.presentationTime <= time {
            current = upcoming
            next = try frames.next()
        }
        return current?.pixelBuffer
    }

    /// Reads from source time `time` on instead, keeping the file and the decoder open (a
    /// player's seek): the next ``frame(at:)`` is the frame on screen at `time`.
    func seek(to time: MediaTime) throws(ReelError) {
        started = false
        current = nil
        next = nil
        try frames.restart(at: max(segment.timeMapping.source.start, time))
    }

    func close() { frames.close() }
}

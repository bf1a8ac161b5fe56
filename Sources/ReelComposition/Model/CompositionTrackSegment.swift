public import Foundation
public import ReelCore
package import ReelAsset

/// A piece of a composition track: a range of one source track placed on the
/// composition's timeline, or an empty gap. `AVCompositionTrackSegment`.
public struct CompositionTrackSegment: Sendable, Hashable {
    /// The file the media comes from; nil for an empty segment.
    public var sourceURL: URL?
    /// The track of that file (its ``ReelAsset/AssetTrack/trackID``).
    public var sourceTrackID: Int
    /// Where the source range lands: `source` in the file, `target` on the composition's timeline.
    /// Durations differ when the segment is sped up or slowed down.
    public var timeMapping: MediaTimeMapping
    /// For an image sequence's track, the frames a second its asset played it at: readers of
    /// the segment open its pattern at that rate (another asset of the same frames can have
    /// another). Nil for a file.
    package var sourceImageSequenceFrameRate: Double?

    /// A segment that plays part of a file. `init(url:trackID:sourceTimeRange:targetTimeRange:)`.
    /// - Parameters:
    ///   - url: The source file.
    ///   - trackID: The source track in it.
    ///   - sourceTimeRange: The part of that track played.
    ///   - targetTimeRange: Where it plays on the composition; another length changes its speed.
    public init(url: URL, trackID: Int, sourceTimeRange: MediaTimeRange, targetTimeRange: MediaTimeRange) {
        sourceURL = url
        sourceTrackID = trackID
        timeMapping = MediaTimeMapping(source: sourceTimeRange, target: targetTimeRange)
    }

    /// A gap of `timeRange`. `init(timeRange:)`.
    /// - Parameter timeRange: Where the gap is on the composition's timeline.
    public init(emptyTimeRange timeRange: MediaTimeRange) {
        sourceURL = nil
        sourceTrackID = 0
        timeMapping = .empty(timeRange)
    }

    /// The asset the segment reads: its file, or its image sequence at the rate the segment
    /// was inserted with.
    /// - Returns: The asset.
    /// - Throws: ``ReelError`` `.invalidArgument` for a gap; what ``ReelAsset/Asset/init(url:)``
    ///   throws for a file that cannot be read.
    package func sourceAsset() throws(ReelError) -> Asset {
        guard let url = sourceURL else { throw ReelError(.invalidArgument, "an empty segment has no media") }
        return try Asset(url: url, imageSequenceFrameRate: sourceImageSequenceFrameRate)
    }

    /// True for a gap. `isEmpty`.
    public var isEmpty: Bool { sourceURL == nil || timeMapping.isEmpty }

    /// The playback speed: source duration over target duration (1 is normal, 5 is x5 fast).
    public var rate: Double {
        guard !isEmpty, timeMapping.target.duration > .zero else { return 1 }
        return timeMapping.source.duration.seconds / timeMapping.target.duration.seconds
    }
}

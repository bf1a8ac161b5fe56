public import Foundation
public import ReelCore

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

    /// True for a gap. `isEmpty`.
    public var isEmpty: Bool { sourceURL == nil || timeMapping.isEmpty }

    /// The playback speed: source duration over target duration (1 is normal, 5 is x5 fast).
    public var rate: Double {
        guard !isEmpty, timeMapping.target.duration > .zero else { return 1 }
        return timeMapping.source.duration.seconds / timeMapping.target.duration.seconds
    }
}

import Foundation
public import ReelAsset
public import ReelCore

/// One track of a ``MutableComposition``: segments of source tracks laid end to end
/// on the composition's timeline. `AVMutableCompositionTrack`.
///
/// Segments never overlap and leave no holes: time that holds no media is an empty
/// segment. Edits keep that invariant and are exact in rational time.
public final class CompositionTrack: @unchecked Sendable {
    public let trackID: Int
    public let mediaType: MediaType
    /// The segments in timeline order.
    public private(set) var segments: [CompositionTrackSegment] = []
    /// How the track's pictures are turned for display: only ever what it is set to (the
    /// identity until then); inserting media never changes it, as in AVFoundation.
    /// `preferredTransform`.
    public var preferredTransform: ReelCore.AffineTransform = .identity
    /// The size of the first source's pictures. `naturalSize`.
    public private(set) var naturalSize: Size = .zero
    /// Frames per second of the first video inserted, for a default frame duration.
    public private(set) var nominalFrameRate: Double = 0
    /// The shortest frame duration of the first video inserted (its base rate), or invalid.
    public private(set) var minFrameDuration: MediaTime = .invalid
    /// The timescale new segment times are expressed in. `naturalTimeScale`.
    public var naturalTimeScale: Int32 = 600

    init(trackID: Int, mediaType: MediaType) {
        self.trackID = trackID
        self.mediaType = mediaType
    }

    /// From the first segment's start to the last one's end. `timeRange`.
    public var timeRange: MediaTimeRange {
        guard let last = segments.last else { return .zero }
        return MediaTimeRange(start: .zero, end: last.timeMapping.target.end)
    }

    /// Inserts `timeRange` of `track` at `time`, pushing later media back by its
    /// duration. A gap fills any time between the track's end and `time`. The range may
    /// run to the end of the track's file even where the track itself ends sooner (as
    /// the seeds insert `asset.duration`); the last picture then holds. `insertTimeRange(_:of:at:)`.
    /// - Parameters:
    ///   - timeRange: The part of the source track to insert.
    ///   - track: The source track.
    ///   - time: Where it goes on this track; later media moves back by its length.
    /// - Throws: ``ReelError`` `.invalidArgument` when the track is of another medium, the
    ///   range is empty or outside the source, or `time` is negative.
    public func insertTimeRange(_ timeRange: MediaTimeRange, of track: AssetTrack, at time: MediaTime) throws(ReelError) {
        let path = track.assetURL.path
        guard track.mediaType == mediaType else {
            throw ReelError(.invalidArgument, "cannot put \(track.mediaType) into a \(mediaType) track", subject: path)
        }
        guard timeRange.isValid, timeRange.duration > .zero, timeRange.start.isNumeric, timeRange.duration.isNumeric else {
            throw ReelError(.invalidArgument, "the range to insert \(timeRange) is empty or invalid", subject: path)
        }
        let end = track.assetDuration.isNumeric ? max(track.timeRange.end, track.assetDuration) : track.timeRange.end
        guard timeRange.start >= .zero, timeRange.end <= end + MediaTime(value: 1, timescale: 1000) else {
            throw ReelError(.invalidArgument,
                            "the range \(timeRange) is outside the source, which lasts \(end.seconds) s", subject: path)
        }
        guard time.isNumeric, time >= .zero else {
            throw ReelError(.invalidArgument, "cannot insert at \(time)", subject: path)
        }
        if naturalSize == .zero, mediaType == .video {
            naturalSize = track.naturalSize
            nominalFrameRate = track.nominalFrameRate
            minFrameDuration = track.minFrameDuration
        }
        var segment = CompositionTrackSegment(
            url: track.assetURL, trackID: track.trackID, sourceTimeRange: timeRange,
            targetTimeRange: MediaTimeRange(start: time, duration: timeRange.duration))
        segment.sourceImageSequenceFrameRate = track.imageSequenceFrameRate
        insert(segment, at: time)
    }

    /// Inserts a gap at `timeRange.start`, pushing later media back. `insertEmptyTimeRange(_:)`.
    /// - Parameter timeRange: Where the gap starts and how long it is.
    public func insertEmptyTimeRange(_ timeRange: MediaTimeRange) {
        guard timeRange.isValid, timeRange.duration > .zero else { return }
        insert(CompositionTrackSegment(emptyTimeRange: timeRange), at: timeRange.start)
    }

    /// Removes `timeRange` from the timeline and pulls later media forward. `removeTimeRange(_:)`.
    /// - Parameter timeRange: The stretch of the track's timeline to take out.
    public func removeTimeRange(_ timeRange: MediaTimeRange) {
        guard timeRange.isValid, timeRange.duration > .zero else { return }
        var kept: [CompositionTrackSegment] = []
        for segment in segments {
            let target = segment.timeMapping.target
            if target.end <= timeRange.start {
                kept.append(segment)
            } else if target.start >= timeRange.end {
                kept.append(Self.shifted(segment, by: .zero - timeRange.duration))
            } else {
                if target.start < timeRange.start {
                    kept.append(Self.trimmed(segment, to: MediaTimeRange(start: target.start, end: timeRange.start)))
                }
                if target.end > timeRange.end {
                    let tail = Self.trimmed(segment, to: MediaTimeRange(start: timeRange.end, end: target.end))
                    kept.append(Self.shifted(tail, by: .zero - timeRange.duration))
                }
            }
        }
        segments = kept
        dropTrailingGaps()
    }

    /// Stretches or squeezes `timeRange` of the timeline to last `duration`: the media in
    /// it plays slower or faster, and later media moves. `scaleTimeRange(_:toDuration:)`.
    /// - Parameters:
    ///   - timeRange: The stretch of the track's timeline to change.
    ///   - duration: Its new length (twice as long plays it at half speed).
    public func scaleTimeRange(_ timeRange: MediaTimeRange, toDuration duration: MediaTime) {
        guard timeRange.isValid, timeRange.duration > .zero, duration.isNumeric, duration > .zero else { return }
        splitAt(timeRange.start)
        splitAt(timeRange.end)
        let change = duration - timeRange.duration
        segments = segments.map { segment in
            let target = segment.timeMapping.target
            if target.start >= timeRange.end { return Self.shifted(segment, by: change) }
            guard target.start >= timeRange.start, target.end <= timeRange.end else { return segment }
            // Position and length inside the range scale by duration / range.
            func scale(_ t: MediaTime) -> MediaTime {
                timeRange.start + (t - timeRange.start).scaled(by: duration, over: timeRange.duration)
            }
            var copy = segment
            copy.timeMapping.target = MediaTimeRange(start: scale(target.start), end: scale(target.end))
            return copy
        }
    }

    /// The segment showing at `time`, if any. `segment(forTrackTime:)`.
    /// - Parameter time: A time on the track.
    /// - Returns: The segment, with the source it reads then; nil past the end.
    public func segment(forTrackTime time: MediaTime) -> CompositionTrackSegment? {
        segments.first { $0.timeMapping.target.contains(time) }
    }

    // MARK: - Editing helpers

    private func insert(_ segment: CompositionTrackSegment, at time: MediaTime) {
        let end = timeRange.end
        if time > end, !segments.isEmpty || time > .zero {
            segments.append(CompositionTrackSegment(emptyTimeRange: MediaTimeRange(start: end, end: time)))
        }
        // At the end (how a sequence is built, clip after clip): nothing to split or shift.
        // Walking and copying every segment for each one made 100,000 clips quadratic.
        if time >= end {
            segments.append(segment)
            return
        }
        splitAt(time)
        let duration = segment.timeMapping.target.duration
        var result: [CompositionTrackSegment] = []
        var placed = false
        for existing in segments {
            if !placed, existing.timeMapping.target.start >= time {
                result.append(segment)
                placed = true
            }
            result.append(existing.timeMapping.target.start >= time ? Self.shifted(existing, by: duration) : existing)
        }
        if !placed { result.append(segment) }
        segments = result
    }

    private func splitAt(_ time: MediaTime) {
        guard let index = segments.firstIndex(where: {
            $0.timeMapping.target.start < time && $0.timeMapping.target.end > time
        }) else { return }
        let segment = segments[index]
        let target = segment.timeMapping.target
        let head = Self.trimmed(segment, to: MediaTimeRange(start: target.start, end: time))
        let tail = Self.trimmed(segment, to: MediaTimeRange(start: time, end: target.end))
        segments.replaceSubrange(index...index, with: [head, tail])
    }

    private func dropTrailingGaps() {
        while let last = segments.last, last.isEmpty { segments.removeLast() }
    }

    /// The part of `segment` shown during `range` of the timeline (inside its target).
    static func trimmed(_ segment: CompositionTrackSegment, to range: MediaTimeRange) -> CompositionTrackSegment {
        if segment.isEmpty { return CompositionTrackSegment(emptyTimeRange: range) }
        var copy = segment
        let mapping = segment.timeMapping
        copy.timeMapping = MediaTimeMapping(
            source: MediaTimeRange(start: mapping.sourceTime(at: range.start), end: mapping.sourceTime(at: range.end)),
            target: range)
        return copy
    }

    static func shifted(_ segment: CompositionTrackSegment, by offset: MediaTime) -> CompositionTrackSegment {
        var copy = segment
        copy.timeMapping.target.start = segment.timeMapping.target.start + offset
        return copy
    }
}

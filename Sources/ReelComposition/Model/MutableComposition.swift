public import ReelCore

/// Tracks of media arranged in time, the thing an export renders. `AVMutableComposition`.
///
/// Build it with ``addMutableTrack(withMediaType:preferredTrackID:)`` and the tracks'
/// `insertTimeRange(_:of:in:at:)`; describe how video tracks combine with a
/// ``VideoComposition``, and audio with an ``AudioMix``.
public final class MutableComposition: @unchecked Sendable {
    public private(set) var tracks: [CompositionTrack] = []
    /// The size pictures are composed at unless a video composition says otherwise. `naturalSize`.
    public var naturalSize: Size = .zero

    public init() {}

    /// A new empty track; a `preferredTrackID` of 0 (`kCMPersistentTrackID_Invalid`) picks
    /// the next free ID. Nil when that ID is taken. `addMutableTrack(withMediaType:preferredTrackID:)`.
    /// - Parameters:
    ///   - mediaType: `.video` or `.audio`.
    ///   - preferredTrackID: The ID wanted, or 0 for the next free one.
    /// - Returns: The new track, to insert media into.
    @discardableResult
    public func addMutableTrack(withMediaType mediaType: MediaType, preferredTrackID: Int = 0) -> CompositionTrack? {
        let taken = Set(tracks.map(\.trackID))
        let id: Int
        if preferredTrackID > 0 {
            guard !taken.contains(preferredTrackID) else { return nil }
            id = preferredTrackID
        } else {
            id = (taken.max() ?? 0) + 1
        }
        let track = CompositionTrack(trackID: id, mediaType: mediaType)
        tracks.append(track)
        return track
    }

    /// Removes a track. `removeTrack(_:)`.
    /// - Parameter track: The track to take out; one not in the composition is ignored.
    public func removeTrack(_ track: CompositionTrack) {
        tracks.removeAll { $0 === track }
    }

    /// The tracks of one medium. `tracks(withMediaType:)`.
    /// - Parameter mediaType: The medium wanted.
    /// - Returns: Its tracks, in the order they were added.
    public func tracks(withMediaType mediaType: MediaType) -> [CompositionTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// The track with an ID. `track(withTrackID:)`.
    /// - Parameter trackID: The ID, as instructions and mix parameters name tracks.
    /// - Returns: The track; nil when none has that ID.
    public func track(withTrackID trackID: Int) -> CompositionTrack? {
        tracks.first { $0.trackID == trackID }
    }

    /// The end of the longest track. `duration`.
    public var duration: MediaTime {
        tracks.map(\.timeRange.end).max() ?? .zero
    }

    /// The size to render at when nothing else says: the set ``naturalSize``, else the
    /// displayed size of the first video (the track whose media starts first).
    var renderSizeGuess: Size {
        if naturalSize != .zero { return naturalSize }
        let first = tracks(withMediaType: .video).filter { $0.naturalSize != .zero }
            .min { ($0.segments.first { !$0.isEmpty }?.timeMapping.target.start ?? .positiveInfinity)
                < ($1.segments.first { !$0.isEmpty }?.timeMapping.target.start ?? .positiveInfinity) }
        guard let first else { return Size(width: 1280, height: 720) }
        let box = Rect(origin: .zero, size: first.naturalSize).applying(first.preferredTransform)
        return Size(width: (box.width / 2).rounded() * 2, height: (box.height / 2).rounded() * 2)
    }
}

/// A track's ID, as Core Media names it; `CMPersistentTrackID()` is 0, which asks
/// ``MutableComposition/addMutableTrack(withMediaType:preferredTrackID:)`` for the next free
/// ID (seed 002 passes it). Reel's IDs are `Int`, so this is an alias. `CMPersistentTrackID`.
public typealias CMPersistentTrackID = Int

/// `kCMPersistentTrackID_Invalid`: ask for the next free track ID.
// swift-format-ignore: AlwaysUseLowerCamelCase
// Core Media's name, kept so ported code reads the same.
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0

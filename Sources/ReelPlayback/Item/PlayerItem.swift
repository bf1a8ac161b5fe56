public import Foundation
public import ReelAsset
public import ReelComposition
public import ReelCore

/// What a ``Player`` plays: an asset, or a composition with its video composition and audio
/// mix, seen without exporting it. `AVPlayerItem`.
///
/// An asset is played as a one-clip composition, so a file and an edit go through the same
/// renderers as an export does: what plays is what the export would write.
public final class PlayerItem: Sendable {
    /// `AVPlayerItem.Status`.
    public enum Status: Sendable, Hashable {
        case unknown
        case readyToPlay
        case failed
    }

    /// Posted (object: the item) when playback reaches the item's end, or its
    /// ``forwardPlaybackEndTime``. `AVPlayerItemDidPlayToEndTime`.
    public static let didPlayToEndTimeNotification = Notification.Name("ReelPlayerItemDidPlayToEndTime")
    /// Posted (object: the item; `userInfo[failedToPlayToEndTimeErrorKey]`: the ``ReelError``)
    /// when a picture or sound cannot be read. `AVPlayerItemFailedToPlayToEndTime`.
    public static let failedToPlayToEndTimeNotification = Notification.Name("ReelPlayerItemFailedToPlayToEndTime")
    /// The `userInfo` key of the error in a failed-to-play-to-end notification.
    /// `AVPlayerItemFailedToPlayToEndTimeErrorKey`.
    public static let failedToPlayToEndTimeErrorKey = "ReelPlayerItemFailedToPlayToEndTimeErrorKey"

    /// The asset, for an item made from one; nil for a composition. `asset`.
    public let asset: Asset?
    /// What plays: the composition given, or the asset as a one-clip composition.
    public let composition: MutableComposition

    private struct Settings: Sendable {
        var videoComposition: VideoComposition?
        var audioMix: AudioMix?
        var forwardPlaybackEndTime = MediaTime.invalid
        var audioTimePitchAlgorithm = AudioTimePitchAlgorithm.timeDomain
        var error: ReelError?
        var outputs: [PlayerItemVideoOutput] = []
        var keyframes: [String: [MediaTime]] = [:]
        var startTime = MediaTime.zero
    }
    private let settings: PosixMutex<Settings>
    /// The player playing this item, for ``currentTime()`` and the outputs' clock.
    private let owner = PosixMutex<WeakPlayer>(WeakPlayer())

    /// An item that plays `asset`'s first video track and its audio tracks. `init(asset:)`.
    /// - Parameter asset: The file to play; an asset without video or audio frames gives a
    ///   ``Status/failed`` item.
    public init(asset: Asset) {
        self.asset = asset
        let composition = MutableComposition()
        var failure: ReelError?
        do throws(ReelError) {
            if let video = asset.tracks(withMediaType: .video).first(where: { $0.timeRange.duration > .zero }),
               let track = composition.addMutableTrack(withMediaType: .video) {
                try track.insertTimeRange(video.timeRange, of: video, at: video.timeRange.start)
                track.preferredTransform = video.preferredTransform
                composition.naturalSize = video.naturalSize
            }
            for audio in asset.tracks(withMediaType: .audio) where audio.timeRange.duration > .zero {
                guard let track = composition.addMutableTrack(withMediaType: .audio) else { continue }
                try track.insertTimeRange(audio.timeRange, of: audio, at: audio.timeRange.start)
            }
            if composition.tracks.isEmpty {
                throw ReelError(.invalidData, "has no video or audio frames to play", subject: asset.url.path)
            }
        } catch {
            failure = error
        }
        self.composition = composition
        settings = PosixMutex(Settings(error: failure))
    }

    /// An item for the file at `url`; a file that cannot be opened gives a ``Status/failed``
    /// item whose ``error`` says why, as AVFoundation reports it. `init(url:)`.
    /// - Parameter url: The file to play.
    public convenience init(url: URL) {
        do throws(ReelError) {
            try self.init(asset: Asset(url: url))
        } catch {
            self.init(failure: error)
        }
    }

    private init(failure: ReelError) {
        asset = nil
        composition = MutableComposition()
        settings = PosixMutex(Settings(error: failure))
    }

    /// An item that plays a composition as its export would render it: with
    /// `videoComposition` (its transitions, layer ramps and overlays) and `audioMix`.
    /// `AVPlayerItem(asset: composition)` with `videoComposition` and `audioMix` set.
    /// - Parameters:
    ///   - composition: The edit to play; an empty one gives a ``Status/failed`` item.
    ///   - videoComposition: How its pictures are composed; nil for the composition's own layout.
    ///     One that does not fit the composition fails the item, with its ``error`` saying why.
    ///   - audioMix: The tracks' volumes; nil plays every track at full volume.
    public init(composition: MutableComposition, videoComposition: VideoComposition? = nil, audioMix: AudioMix? = nil) {
        asset = nil
        self.composition = composition
        var failure: ReelError?
        if let videoComposition {
            do throws(ReelError) { try videoComposition.validate(for: composition) } catch { failure = error }
        }
        if composition.duration <= .zero {
            failure = ReelError(.invalidArgument, "the composition is empty", subject: "composition")
        }
        settings = PosixMutex(Settings(videoComposition: videoComposition, audioMix: audioMix, error: failure))
    }

    /// How pictures are composed; nil for the composition's own layout. `videoComposition`.
    public var videoComposition: VideoComposition? {
        get { settings.withLock { $0.videoComposition } }
        set { settings.withLock { $0.videoComposition = newValue } }
    }

    /// The tracks' volumes and ramps. `audioMix`.
    public var audioMix: AudioMix? {
        get { settings.withLock { $0.audioMix } }
        set { settings.withLock { $0.audioMix = newValue } }
    }

    /// How the sound is played at rates other than 1: `.timeDomain` (the default) keeps the
    /// pitch; `.varispeed` lets it follow the rate, as a tape does. `audioTimePitchAlgorithm`.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { settings.withLock { $0.audioTimePitchAlgorithm } }
        set { settings.withLock { $0.audioTimePitchAlgorithm = newValue } }
    }

    /// Where forward playback stops (and the item counts as ended); invalid for the end of
    /// the item. `forwardPlaybackEndTime`.
    public var forwardPlaybackEndTime: MediaTime {
        get { settings.withLock { $0.forwardPlaybackEndTime } }
        set { settings.withLock { $0.forwardPlaybackEndTime = newValue } }
    }

    /// The length of the item. `duration`.
    public var duration: MediaTime { status == .failed && asset == nil ? .indefinite : composition.duration }

    /// `.readyToPlay` once the item can play, `.failed` (with ``error``) when it cannot.
    /// A local item is ready as soon as it is made. `status`.
    public var status: Status { settings.withLock { $0.error == nil ? .readyToPlay : .failed } }

    /// Why the item failed, if it did. `error`.
    public var error: ReelError? { settings.withLock { $0.error } }

    /// The whole item: a local file is all loaded at once. `loadedTimeRanges`.
    public var loadedTimeRanges: [MediaTimeRange] {
        status == .readyToPlay ? [MediaTimeRange(start: .zero, duration: duration)] : []
    }

    /// Where a seek may go. `seekableTimeRanges`.
    public var seekableTimeRanges: [MediaTimeRange] { loadedTimeRanges }

    /// The item's current time: its player's, or zero when no player plays it. `currentTime()`.
    /// - Returns: The item time its player shows now.
    public func currentTime() -> MediaTime {
        owner.withLock { $0.player }?.currentTime() ?? .zero
    }

    /// The outputs that pull frames from this item. `outputs`.
    public var outputs: [PlayerItemVideoOutput] { settings.withLock { $0.outputs } }

    /// Adds an output. `add(_:)`.
    /// - Parameter output: The output to pull this item's pictures; adding it twice changes nothing.
    public func add(_ output: PlayerItemVideoOutput) {
        settings.withLock { if !$0.outputs.contains(where: { $0 === output }) { $0.outputs.append(output) } }
        output.attach(to: self)
    }

    /// Removes an output. `remove(_:)`.
    /// - Parameter output: The output to detach; it hands out nothing more.
    public func remove(_ output: PlayerItemVideoOutput) {
        settings.withLock { $0.outputs.removeAll { $0 === output } }
        output.attach(to: nil)
    }

    // MARK: - For the player and outputs

    /// Another item of the same asset or composition, with the same settings and no outputs
    /// (what ``PlayerLooper`` queues).
    func replica() -> PlayerItem {
        let copy: PlayerItem
        if let asset {
            copy = PlayerItem(asset: asset)
        } else if let error, composition.tracks.isEmpty {
            copy = PlayerItem(failure: error)
        } else {
            copy = PlayerItem(composition: composition, videoComposition: videoComposition, audioMix: audioMix)
        }
        copy.forwardPlaybackEndTime = forwardPlaybackEndTime
        copy.audioTimePitchAlgorithm = audioTimePitchAlgorithm
        copy.startTime = startTime
        return copy
    }

    /// Where a queue starts this item when it becomes current (a ``PlayerLooper``'s time
    /// range); zero unless set.
    var startTime: MediaTime {
        get { settings.withLock { $0.startTime } }
        set { settings.withLock { $0.startTime = newValue } }
    }

    /// Where playback of this item ends: the forward end time when inside the item, else the duration.
    var endTime: MediaTime {
        let forward = forwardPlaybackEndTime
        let length = composition.duration
        if forward.isNumeric, forward > .zero, forward < length { return forward }
        return length
    }

    var player: Player? { owner.withLock { $0.player } }

    func setPlayer(_ player: Player?) { owner.withLock { $0.player = player } }

    /// Records the first error and posts the failed-to-play-to-end notification.
    func fail(_ error: ReelError) {
        let first = settings.withLock { settings -> Bool in
            guard settings.error == nil else { return false }
            settings.error = error
            return true
        }
        if first {
            NotificationCenter.default.post(name: Self.failedToPlayToEndTimeNotification, object: self,
                                            userInfo: [Self.failedToPlayToEndTimeErrorKey: error])
        }
    }

    /// The item time a seek to `time` lands on: `time` itself, or (when the tolerances allow)
    /// the nearest keyframe of the picture shown there, so that showing it needs no decoding
    /// of earlier frames.
    func seekTarget(for time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime) -> MediaTime {
        let before = toleranceBefore.isPositiveInfinity ? time : max(.zero, toleranceBefore.isNumeric ? toleranceBefore : .zero)
        let after = toleranceAfter.isPositiveInfinity ? MediaTime.positiveInfinity
            : max(.zero, toleranceAfter.isNumeric ? toleranceAfter : .zero)
        guard before > .zero || after > .zero else { return time }
        let window = (low: time - before, high: time + after)
        var best: MediaTime?
        for track in composition.tracks(withMediaType: .video) {
            guard let segment = track.segments.first(where: { $0.timeMapping.target.contains(time) }),
                  !segment.isEmpty, let url = segment.sourceURL else { continue }
            for key in keyframes(url: url, trackID: segment.sourceTrackID, rate: segment.sourceImageSequenceFrameRate) {
                guard segment.timeMapping.source.contains(key) else { continue }
                let target = segment.timeMapping.targetTime(at: key)
                guard target >= window.low, target <= window.high else { continue }
                if best.map({ abs((target - time).seconds) < abs(($0 - time).seconds) }) ?? true { best = target }
            }
            break // the first video track with a picture there decides
        }
        return best ?? time
    }

    private func keyframes(url: URL, trackID: Int, rate: Double?) -> [MediaTime] {
        let key = "\(trackID) \(rate ?? 0) \(url.path)"
        if let known = settings.withLock({ $0.keyframes[key] }) { return known }
        let times = (try? KeyframeIndex.times(of: url, trackID: trackID, imageSequenceFrameRate: rate)) ?? []
        settings.withLock { $0.keyframes[key] = times }
        return times
    }
}

/// A weak reference, so that an item does not keep its player alive.
struct WeakPlayer: Sendable {
    weak var player: Player?
}

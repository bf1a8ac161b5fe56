import Foundation
import ReelAsset
import ReelCore

/// The plans the copy paths hand to ``ExportCheck``: where each stream of the file they
/// write should start and end, from the segments they laid out. Kept here so that each path
/// needs one line to check its output.
enum ExportPlans {
    /// Clips copied end to end, each shown by an edit-list entry of its own: the picture
    /// shows the timeline up to `end` (where the last clip's entry ends), and the sound,
    /// encoded once, is cut to the same end.
    static func passthrough(end: MediaTime, withAudio: Bool) -> ExportCheck {
        ExportCheck(both: MediaTimeRange(start: .zero, end: end), hasAudio: withAudio)
    }

    /// A slow-down copied with its timestamps stretched: each track's range, stretched.
    static func stretched(_ asset: Asset, stretch: Double) -> ExportCheck {
        func scaled(_ track: AssetTrack?) -> MediaTimeRange? {
            track.map { MediaTimeRange(start: $0.timeRange.start.multiplied(by: stretch), end: $0.timeRange.end.multiplied(by: stretch)) }
        }
        let video = scaled(asset.tracks(withMediaType: .video).first)
        var audio = scaled(asset.tracks(withMediaType: .audio).first)
        // The sound lasts exactly as long as the stretched picture (cut or filled to its end).
        if let video, let sound = audio { audio = MediaTimeRange(start: sound.start, end: video.end) }
        return ExportCheck(video: video, audio: audio)
    }
}

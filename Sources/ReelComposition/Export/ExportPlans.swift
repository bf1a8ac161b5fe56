import Foundation
import ReelAsset
import ReelCore

/// The plans the copy paths hand to ``ExportCheck``: where each stream of the file they
/// write should start and end, from the segments they laid out. Kept here so that each path
/// needs one line to check its output.
enum ExportPlans {
    /// Whole clips copied end to end: the picture ends where the last clip's picture ends on
    /// the timeline, the sound where its sound does.
    static func passthrough(_ segments: [CompositionTrackSegment], withAudio: Bool) -> ExportCheck? {
        guard let last = segments.last, let source = last.sourceURL, let asset = try? Asset(url: source),
              let video = asset.tracks(withMediaType: .video).first else { return nil }
        let offset = last.timeMapping.target.start - last.timeMapping.source.start
        let audio = withAudio ? asset.tracks(withMediaType: .audio).first : nil
        return ExportCheck(video: MediaTimeRange(start: .zero, end: offset + video.timeRange.end),
                           audio: audio.map { MediaTimeRange(start: .zero, end: offset + $0.timeRange.end) })
    }

    /// A slow-down copied with its timestamps stretched: each track's range, stretched.
    static func stretched(_ asset: Asset, stretch: Double) -> ExportCheck {
        func scaled(_ track: AssetTrack?) -> MediaTimeRange? {
            track.map { MediaTimeRange(start: $0.timeRange.start.multiplied(by: stretch), end: $0.timeRange.end.multiplied(by: stretch)) }
        }
        return ExportCheck(video: scaled(asset.tracks(withMediaType: .video).first),
                           audio: scaled(asset.tracks(withMediaType: .audio).first))
    }
}

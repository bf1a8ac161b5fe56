public import ReelAsset
public import ReelCore

/// A clip played faster or slower: its video and first audio track in a composition,
/// with the whole range scaled, as the seed's speed control does with `scaleTimeRange`.
///
/// The clip lasts as long as its picture (``ClipSequence/Clip/init(pictureOf:speed:)``), as in
/// `reel merge`: a sound that outlasts the picture is cut there rather than adding frozen
/// frames, at every rate (the stretched-copy slow-down already cut there; speed-ups used the
/// longest track).
public struct SpeedChange: Sendable {
    public let composition: MutableComposition
    public let videoComposition: VideoComposition

    /// - Parameters:
    ///   - asset: the clip, used whole: its picture and its sound.
    ///   - rate: 5 plays five times as fast (a fifth of the duration), 0.25 four times as slow.
    /// - Throws: ``ReelError`` for a rate outside 1/16…16 or an asset without video.
    public init(asset: Asset, rate: Double) throws(ReelError) {
        guard rate.isFinite, rate >= 1.0 / 16, rate <= 16 else {
            throw ReelError(.invalidArgument, "a rate of \(rate) is outside 1/16...16", subject: "rate")
        }
        let sequence = try ClipSequence(clips: [ClipSequence.Clip(pictureOf: asset)])
        let composition = sequence.composition
        let duration = composition.duration
        // Exact for the usual rates: 5 → ×1/5, 0.25 → ×4.
        let ratio = ClipSequence.speedRatio(rate)
        let target = duration.scaled(by: MediaTime(value: 1, timescale: 1), over: ratio)
        for track in composition.tracks where !track.segments.isEmpty {
            track.scaleTimeRange(MediaTimeRange(start: .zero, duration: duration), toDuration: target)
        }
        var video = VideoComposition(propertiesOf: composition)
        video.renderSize = sequence.videoComposition.renderSize
        // Keep each layer's fit from the sequence (the clip's own orientation).
        let fit = sequence.videoComposition.instructions.first?.layerInstructions.first?.transform(at: .zero) ?? .identity
        for index in video.instructions.indices {
            for layer in video.instructions[index].layerInstructions.indices {
                video.instructions[index].layerInstructions[layer].setTransform(fit, at: .zero)
            }
        }
        self.composition = composition
        videoComposition = video
    }
}

import Foundation
import ReelAsset
import ReelCore

extension ExportSession {
    /// Whether this export may render smartly at all: what the splicer does not carry
    /// (a chunk's GOP grid, a length limit, metadata) keeps the full render.
    var admitsSmartRender: Bool {
        smartRender && includesAudio && keyFrameInterval == nil && fileLengthLimit == 0 && metadata == AssetMetadata()
            && preset != .passthrough && preset.codec == .h264 && outputFileType.isISOBaseMedia
    }

    /// Plans and writes a smart render when ``smartRender`` is on and the plan copies
    /// anything. Returns false (having written nothing) when the export should render every
    /// frame instead.
    func exportSmartly(video: VideoComposition, displayMatrix: ReelCore.AffineTransform?, width: Int, height: Int,
                       progressHandler: (@Sendable (Double) -> Void)?) throws(ReelError) -> Bool {
        guard admitsSmartRender, let outputURL else { return false }
        let plan = try SmartRenderPlan.make(for: self)
        guard plan.copiesAnything else { return false }
        let settings = SmartRenderSplicer.Settings(width: width, height: height, quality: preset.quality, fileType: outputFileType,
                                                   optimizeForNetwork: shouldOptimizeForNetworkUse, transform: displayMatrix)
        try SmartRenderSplicer.write(plan, composition: composition, video: video, audioMix: audioMix, pitch: audioTimePitchAlgorithm,
                                     settings: settings, to: outputURL, isCancelled: { isCancelled },
                                     progress: { report($0, to: progressHandler) })
        smartRenderPlan = plan
        return true
    }
}

public import ReelAsset
public import ReelCore

extension VideoComposition {
    /// A video composition that hands every picture of `asset`'s video to `handler` and
    /// shows what it returns: AVFoundation's `init(asset:applyingCIFiltersWithHandler:)`.
    ///
    /// The request holds the source picture (RGBA, with its alpha, at the size it is drawn)
    /// and its composition time; the returned picture (RGBA, any size: it is stretched over
    /// the source's place) is laid over the frame with its alpha. The composition shows the
    /// asset upright and fitted in its display size; its one instruction names the
    /// composition's first video track (track 1, where ``ClipSequence`` and
    /// `PlayerItem(asset:)` put the asset's video), so use it with an export or a player of
    /// such a composition. The handler runs on the export's (or player's) thread, one
    /// picture at a time, in time order.
    /// - Parameters:
    ///   - asset: The movie whose pictures are filtered.
    ///   - handler: Makes each output picture from its request; a thrown error fails the export.
    public init(
        asset: Asset,
        applyingFiltersWithHandler handler: @escaping @Sendable (LayerStyle.FilteringRequest) throws(ReelError) -> PixelBuffer
    ) {
        let track = asset.tracks(withMediaType: .video).first
        let natural = track?.naturalSize ?? Size(width: 640, height: 480)
        let turn = track?.preferredTransform ?? .identity
        let shown = Rect(origin: .zero, size: natural).applying(turn)
        let size = Size(width: (shown.width / 2).rounded() * 2, height: (shown.height / 2).rounded() * 2)
        let duration = Self.frameDuration(
            nominalFrameRate: track?.nominalFrameRate ?? 0, minFrameDuration: track?.minFrameDuration)
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setTransform(ClipSequence.aspectFit(naturalSize: natural, preferredTransform: turn, in: size), at: .zero)
        layer.style = LayerStyle(filterName: "handler", filterHandler: handler)
        let length = asset.duration.isNumeric && asset.duration > .zero ? asset.duration : MediaTime(value: 1, timescale: 1)
        self.init(
            renderSize: size, frameDuration: duration,
            instructions: [
                VideoCompositionInstruction(
                    timeRange: MediaTimeRange(start: .zero, duration: length),
                    layerInstructions: [layer])
            ])
    }
}

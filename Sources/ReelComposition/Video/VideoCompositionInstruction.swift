public import ReelCore

/// What the frame shows during one stretch of the timeline: its layers, front first.
/// `AVMutableVideoCompositionInstruction`, as a value.
public struct VideoCompositionInstruction: Sendable, Equatable {
    public var timeRange: MediaTimeRange
    /// The layers, the first drawn on top. `layerInstructions`.
    public var layerInstructions: [VideoCompositionLayerInstruction]
    /// What shows where no layer covers the frame: R, G, B from 0 to 1. `backgroundColor`.
    public var backgroundColor: (red: Double, green: Double, blue: Double) = (0, 0, 0)
    /// Whether overlays (the animation tool) are drawn over this stretch. `enablePostProcessing`.
    public var enablePostProcessing = true

    public init(timeRange: MediaTimeRange, layerInstructions: [VideoCompositionLayerInstruction] = []) {
        self.timeRange = timeRange
        self.layerInstructions = layerInstructions
    }

    public static func == (lhs: VideoCompositionInstruction, rhs: VideoCompositionInstruction) -> Bool {
        lhs.timeRange == rhs.timeRange && lhs.layerInstructions == rhs.layerInstructions
            && lhs.backgroundColor == rhs.backgroundColor && lhs.enablePostProcessing == rhs.enablePostProcessing
    }
}

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

    /// An instruction for `timeRange`.
    /// - Parameters:
    ///   - timeRange: The stretch of the timeline it covers.
    ///   - layerInstructions: Its layers, the first drawn on top.
    public init(timeRange: MediaTimeRange, layerInstructions: [VideoCompositionLayerInstruction] = []) {
        self.timeRange = timeRange
        self.layerInstructions = layerInstructions
    }

    /// Whether two instructions cover the same time with the same layers (the background
    /// colour and post-processing flag are not compared).
    /// - Parameters:
    ///   - lhs: An instruction.
    ///   - rhs: Another instruction.
    /// - Returns: True when they draw the same frames.
    public static func == (lhs: VideoCompositionInstruction, rhs: VideoCompositionInstruction) -> Bool {
        lhs.timeRange == rhs.timeRange && lhs.layerInstructions == rhs.layerInstructions
            && lhs.backgroundColor == rhs.backgroundColor && lhs.enablePostProcessing == rhs.enablePostProcessing
    }

    /// The layers that draw at `time`, front first. A track named by one layer instruction
    /// draws through it all the instruction long (AVFoundation's documented behaviour).
    /// Where several layer instructions name the same track (seed 003 gives every clip of
    /// one track its own), each of them draws from its ``VideoCompositionLayerInstruction/firstSetTime``
    /// on, and one that sets nothing draws throughout: before its first set time a sibling
    /// layer draws nothing, so each clip shows alone with its own geometry. Apple does not
    /// document this case; see docs/porting-from-avfoundation.md for the evidence behind it.
    /// - Parameter time: The composition time.
    /// - Returns: The layers that draw then, front first.
    public func layers(showingAt time: MediaTime) -> [VideoCompositionLayerInstruction] {
        var counts: [Int: Int] = [:]
        for layer in layerInstructions { counts[layer.trackID, default: 0] += 1 }
        guard counts.values.contains(where: { $0 > 1 }) else { return layerInstructions }
        return layerInstructions.filter { layer in
            guard counts[layer.trackID, default: 0] > 1, let start = layer.firstSetTime else { return true }
            return time >= start
        }
    }
}

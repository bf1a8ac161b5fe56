import Foundation
import ReelCore
import Testing

@testable import ReelComposition

/// The chunk plan's arithmetic (issue 20): frame counts on exact rational grids, the windows
/// no cut may fall inside, and the requests refused.
@Suite struct ChunkPlanTests {
    @Test func framesCountEveryFrameStartingBeforeTheEnd() {
        let ntsc = MediaTime(value: 1001, timescale: 30000)
        #expect(ChunkPlan.frames(in: MediaTime(value: 7, timescale: 1), of: MediaTime(value: 1, timescale: 25)) == 175)
        // 5.5055 s at 29.97 fps: 165 frames, the last one cut short.
        #expect(ChunkPlan.frames(in: MediaTime(value: 55055, timescale: 10000), of: ntsc) == 165)
        #expect(ChunkPlan.frames(in: MediaTime(value: 55056, timescale: 10000), of: ntsc) == 166)
        #expect(ChunkPlan.frames(in: .zero, of: ntsc) == 0)
    }

    @Test func transitionsAndAnimationsAreKeptWholeAndMerged() {
        var video = VideoComposition(renderSize: Size(width: 64, height: 64), frameDuration: MediaTime(value: 1, timescale: 25))
        let second = MediaTime(value: 1, timescale: 1)
        video.instructions = [
            VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: second * 2),
                                        layerInstructions: [VideoCompositionLayerInstruction(trackID: 1)]),
            VideoCompositionInstruction(timeRange: MediaTimeRange(start: second * 2, duration: second),
                                        layerInstructions: [VideoCompositionLayerInstruction(trackID: 1),
                                                            VideoCompositionLayerInstruction(trackID: 2)]),
            VideoCompositionInstruction(timeRange: MediaTimeRange(start: second * 3, duration: second * 5),
                                        layerInstructions: [VideoCompositionLayerInstruction(trackID: 2)]),
        ]
        var ramped = VideoCompositionLayerInstruction(trackID: 2)
        ramped.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: MediaTimeRange(start: second * 6, duration: second))
        video.instructions[2].layerInstructions = [ramped]
        let root = OverlayLayer(frame: Rect(x: 0, y: 0, width: 64, height: 64))
        let sticker = OverlayLayer(content: .color(red: 1, green: 1, blue: 0), frame: Rect(x: 0, y: 0, width: 8, height: 8))
        sticker.add(KeyframeAnimation(keyPath: .opacity, values: [0, 1], beginTime: 2.5, duration: 1))  // overlaps the transition
        sticker.add(KeyframeAnimation(keyPath: .opacity, values: [1, 0], beginTime: 4.25, duration: 0.5))
        root.addSublayer(sticker)
        video.animationTool = root
        let windows = ChunkPlan.windowsKeptWhole(video).map { [$0.start.seconds, $0.end.seconds] }
        #expect(windows == [[2, 3.5], [4.25, 4.75], [6, 7]])
    }
}

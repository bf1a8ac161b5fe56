public import ReelCore

/// How a composition's video tracks become frames: the frame size and rate, and the
/// instructions that say which tracks show how at each time. `AVMutableVideoComposition`.
public struct VideoComposition: Sendable {
    /// The size of every output frame. `renderSize`.
    public var renderSize: Size
    /// The time between output frames. `frameDuration`.
    public var frameDuration: MediaTime
    /// Instructions in time order, tiling the timeline without gaps or overlaps. `instructions`.
    public var instructions: [VideoCompositionInstruction]
    /// Layers drawn over every frame (the sticker of the seed), the built-in compositor's or a
    /// ``customVideoCompositor``'s, where the instruction's `enablePostProcessing` is true. `animationTool`.
    public var animationTool: OverlayLayer?
    /// Swift code that makes each frame instead of the built-in compositor. `customVideoCompositorClass`.
    public var customVideoCompositor: (any VideoCompositing)?
    /// Subtitles burned into the pictures (libass), drawn over the overlays.
    public var subtitleBurnIn: SubtitleBurnIn?

    /// An empty composition to fill in, as seed 003 does with `[AVMutableVideoComposition videoComposition]`:
    /// no render size, no frame duration and no instructions until they are set (an export
    /// refuses it until then, naming what is missing). `AVMutableVideoComposition()`.
    public init() {
        self.init(renderSize: .zero, frameDuration: .invalid)
    }

    /// A video composition from its parts.
    /// - Parameters:
    ///   - renderSize: The output frames' size.
    ///   - frameDuration: The time between output frames.
    ///   - instructions: What shows when, tiling the timeline.
    public init(renderSize: Size, frameDuration: MediaTime, instructions: [VideoCompositionInstruction] = []) {
        self.renderSize = renderSize
        self.frameDuration = frameDuration
        self.instructions = instructions
    }

    /// The instructions AVFoundation makes for a composition: one per stretch where the
    /// set of video tracks with media changes, with a layer per track (in track order)
    /// that shows it with its preferred transform. Where two tracks overlap, the stretch
    /// gets two layer instructions. `AVMutableVideoComposition(propertiesOf:)`.
    /// - Parameter composition: The edit whose tracks, sizes and frame rate it takes.
    public init(propertiesOf composition: MutableComposition) {
        let tracks = composition.tracks(withMediaType: .video)
        var cuts = Set<MediaTime>([.zero, composition.duration])
        for track in tracks {
            for segment in track.segments {
                cuts.insert(segment.timeMapping.target.start)
                cuts.insert(segment.timeMapping.target.end)
            }
        }
        let times = cuts.filter { $0 <= composition.duration }.sorted()
        var instructions: [VideoCompositionInstruction] = []
        // A track's segments tile its timeline in order, so one cursor per track walks them
        // once alongside the cuts: linear in the number of segments (100,000 clips check in
        // well under a second), where asking every track about every stretch was quadratic.
        let segmentLists = tracks.map(\.segments)
        var cursors = [Int](repeating: 0, count: tracks.count)
        for (start, end) in zip(times, times.dropFirst()) where end > start {
            let range = MediaTimeRange(start: start, end: end)
            var showing: [CompositionTrack] = []
            for (trackIndex, segments) in segmentLists.enumerated() {
                while cursors[trackIndex] < segments.count, segments[cursors[trackIndex]].timeMapping.target.end <= start {
                    cursors[trackIndex] += 1
                }
                var index = cursors[trackIndex]
                while index < segments.count, segments[index].timeMapping.target.start < end {
                    if !segments[index].isEmpty, segments[index].timeMapping.target.overlaps(range) {
                        showing.append(tracks[trackIndex])
                        break
                    }
                    index += 1
                }
            }
            // Each layer shows its track through the track's preferredTransform, set at the stretch's start.
            let layers = showing.map { track in
                var layer = VideoCompositionLayerInstruction(assetTrack: track)
                layer.setTransform(track.preferredTransform, at: start)
                return layer
            }
            instructions.append(VideoCompositionInstruction(timeRange: range, layerInstructions: layers))
        }
        let nominal = tracks.map(\.nominalFrameRate).first { $0 > 0 } ?? 30
        let minimum = tracks.map(\.minFrameDuration).first { $0.isNumeric && $0 > .zero }
        self.init(renderSize: composition.renderSizeGuess,
                  frameDuration: Self.frameDuration(nominalFrameRate: nominal, minFrameDuration: minimum),
                  instructions: instructions)
    }

    /// The output frame duration for video whose first track has `nominalFrameRate` and
    /// `minFrameDuration`: what ``init(propertiesOf:)`` renders at, and the grid
    /// ``ClipSequence`` puts the clips that start inside a transition on.
    ///
    /// A variable-rate clip's average rate undersamples its bursts (10 fps for 0.3 s, then
    /// nothing for 3 s averages 1.4 fps): it renders at its base rate when that is faster, as
    /// AVFoundation renders at the tracks' minFrameDuration.
    static func frameDuration(nominalFrameRate: Double, minFrameDuration: MediaTime?) -> MediaTime {
        let nominal = nominalFrameRate > 0 ? nominalFrameRate : 30
        let base = minFrameDuration.flatMap { $0.isNumeric && $0 > .zero ? 1 / $0.seconds : nil } ?? 0
        return frameDuration(forRate: base > nominal && base <= 120 ? base : nominal)
    }

    /// 1001/30000 s for 29.97, 1/25 s for 24.88 fps: an NTSC rate (N/1.001) when the rate is
    /// one to within 0.002, else a whole rate where the rate is close to one.
    ///
    /// The NTSC test comes first: 29.97 is within 0.15 of 30 too, and a 29.97 fps clip
    /// rendered at 30 fps showed each picture up to a frame late (a flash at 0.5005 s came
    /// out at 0.5333 s) and ended its picture on a different grid from its sound.
    static func frameDuration(forRate rate: Double) -> MediaTime {
        guard rate.isFinite, rate >= 1, rate <= 1000 else { return MediaTime(value: 1, timescale: 30) }
        let ntsc = (rate * 1.001).rounded()
        if abs(rate - ntsc / 1.001) < 0.002, ntsc * 1000 <= Double(Int32.max) {
            return MediaTime(value: 1001, timescale: Int32(ntsc * 1000))
        }
        let whole = rate.rounded()
        if abs(rate - whole) < 0.15 { return MediaTime(value: 1, timescale: Int32(whole)) }
        if abs(rate - ntsc / 1.001) < 0.01 { return MediaTime(value: 1001, timescale: Int32(ntsc * 1000)) }
        return MediaTime(seconds: 1 / rate, preferredTimescale: 90000)
    }

    /// Checks the instructions against `composition`; the error names the bad instruction.
    /// - Parameter composition: The edit the instructions are for.
    /// - Throws: ``ReelError`` `.invalidArgument`: `instructions[3]` overlaps the one before, leaves
    ///   a gap, comes out of order, names an unknown track, or the render size or frame duration is bad.
    public func validate(for composition: MutableComposition) throws(ReelError) {
        guard renderSize.width >= 2, renderSize.height >= 2, renderSize.width <= 8192, renderSize.height <= 8192 else {
            throw ReelError(.invalidArgument, "renderSize \(Int(renderSize.width))x\(Int(renderSize.height)) is outside 2...8192",
                            subject: "renderSize")
        }
        guard frameDuration.isNumeric, frameDuration > .zero, frameDuration <= MediaTime(value: 1, timescale: 1) else {
            throw ReelError(.invalidArgument, "frameDuration \(frameDuration) must be a time from 0 to 1 s", subject: "frameDuration")
        }
        var expectedStart = MediaTime.zero
        let ids = Set(composition.tracks(withMediaType: .video).map(\.trackID))
        for (index, instruction) in instructions.enumerated() {
            let name = "instructions[\(index)]"
            let range = instruction.timeRange
            guard range.isValid, range.duration > .zero else {
                throw ReelError(.invalidArgument, "its time range \(range) is empty or invalid", subject: name)
            }
            if range.start < expectedStart {
                let problem = index > 0 && range.start < instructions[index - 1].timeRange.start ? "comes before" : "overlaps"
                throw ReelError(.invalidArgument,
                                "starts at \(range.start.seconds) s, which \(problem) the instruction before (ends at \(expectedStart.seconds) s)",
                                subject: name)
            }
            if range.start > expectedStart {
                throw ReelError(.invalidArgument,
                                "starts at \(range.start.seconds) s, leaving a gap after \(expectedStart.seconds) s", subject: name)
            }
            for (layerIndex, layer) in instruction.layerInstructions.enumerated() where !ids.contains(layer.trackID) {
                throw ReelError(.invalidArgument, "names track \(layer.trackID), which is not a video track of the composition",
                                subject: "\(name).layerInstructions[\(layerIndex)]")
            }
            expectedStart = range.end
        }
        if expectedStart < composition.duration, !instructions.isEmpty {
            throw ReelError(.invalidArgument,
                            "the instructions end at \(expectedStart.seconds) s but the composition lasts \(composition.duration.seconds) s",
                            subject: "instructions[\(instructions.count - 1)]")
        }
    }

    /// The instruction in force at `time`.
    /// - Parameter time: The composition time.
    /// - Returns: The instruction whose range holds it (the last one at the very end); nil outside.
    public func instruction(at time: MediaTime) -> VideoCompositionInstruction? {
        instructions.first { $0.timeRange.contains(time) } ?? instructions.last.flatMap { $0.timeRange.end == time ? $0 : nil }
    }
}

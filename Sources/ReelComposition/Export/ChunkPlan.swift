public import ReelCore

/// Where a chunked export cuts its timeline: time ranges of the whole composition, each a
/// whole number of GOPs of the output's frame grid, none cutting through a transition or
/// an animated overlay's window, listed longest first (the order to render them in, so the
/// longest does not start last and hold up the join).
///
/// Each chunk is rendered by its own process (or cluster task) as video only, with a
/// closed GOP starting on an IDR frame; the sound is rendered once for the whole timeline;
/// a join copies the chunks' packets end to end and muxes the sound (``ChunkedExport``).
/// Because a chunk starts on the frame grid of the whole timeline, its frames are those a
/// single render shows at the same times.
public struct ChunkPlan: Sendable, Equatable {
    /// One part of the timeline.
    public struct Chunk: Sendable, Equatable {
        /// The composition's times this chunk shows (overlays keep their absolute times).
        public var range: MediaTimeRange
        /// Its frames on the output's grid.
        public var frameCount: Int

        public init(range: MediaTimeRange, frameCount: Int) {
            self.range = range
            self.frameCount = frameCount
        }
    }

    /// How many chunks: a count, or a length each.
    public enum Request: Sendable, Equatable {
        case count(Int)
        case seconds(Double)
    }

    /// The most chunks a plan makes.
    public static let maximumChunks = 10_000

    /// The output's frame duration.
    public var frameDuration: MediaTime
    /// The composition's length.
    public var duration: MediaTime
    /// Frames per GOP: chunks start on multiples of it, and each chunk is encoded with it.
    public var framesPerGOP: Int
    /// The chunks, longest first.
    public var chunks: [Chunk]
    /// The windows no cut may fall inside: transitions and animated overlays.
    public var keptWhole: [MediaTimeRange]
    /// Whether each chunk is a part of the whole timeline's smart render (``SmartRenderPlan``):
    /// its untouched GOPs copied from the sources, the rest rendered. The cuts then fall where
    /// the smart render's copies and rendered runs begin, so the joined chunks hold the same
    /// packets a single smart render writes; `framesPerGOP` is then unused.
    public var smart: Bool

    /// The frames of the whole timeline.
    public var frameCount: Int { chunks.reduce(0) { $0 + $1.frameCount } }

    public init(frameDuration: MediaTime, duration: MediaTime, framesPerGOP: Int, chunks: [Chunk], keptWhole: [MediaTimeRange],
                smart: Bool = false) {
        self.frameDuration = frameDuration
        self.duration = duration
        self.framesPerGOP = framesPerGOP
        self.chunks = chunks
        self.keptWhole = keptWhole
        self.smart = smart
    }

    /// Plans the chunks of what `session` would export.
    /// - Parameters:
    ///   - session: the export, with its composition and video composition (nil: the plain one).
    ///   - request: how many chunks, or how long each; fewer come out where the GOP grid and
    ///     the windows kept whole leave no place to cut.
    ///   - gopSeconds: the longest GOP; a shorter one, down to half a second, when the timeline is too
    ///     short for the chunks asked.
    ///   - smart: the whole timeline's smart render plan (``ChunkedExport/smartPlan(for:)``), to
    ///     render each chunk smartly: the cuts then fall where its copies' GOPs and its rendered
    ///     runs begin, instead of on a GOP grid of the output's own.
    /// - Returns: The plan.
    /// - Throws: ``ReelError`` `.invalidArgument` naming `--chunks` or `--chunk-seconds` when the
    ///   request is out of range, or the timeline when it is empty.
    public static func make(for session: ExportSession, request: Request, gopSeconds: Double = 2,
                            smart: SmartRenderPlan? = nil) throws(ReelError) -> ChunkPlan {
        let video = session.videoComposition ?? ExportSession.plainVideoComposition(of: session.composition).video
        let duration = session.composition.duration
        let frameDuration = video.frameDuration
        guard duration.isNumeric, duration > .zero, frameDuration.isNumeric, frameDuration > .zero else {
            throw ReelError(.invalidArgument, "the composition is empty: nothing to cut", subject: "timeline")
        }
        let frames = Self.frames(in: duration, of: frameDuration)
        let smart = smart.flatMap { $0.copiesAnything && $0.frameCount == frames && $0.frameDuration == frameDuration ? $0 : nil }
        let wanted: Int
        switch request {
        case .count(let count):
            guard (1...maximumChunks).contains(count) else {
                throw ReelError(.invalidArgument, "wants a whole number of chunks from 1 to \(maximumChunks), not \(count)",
                                subject: "--chunks")
            }
            wanted = count
        case .seconds(let seconds):
            guard seconds.isFinite, seconds >= 0.1, seconds <= 1e6 else {
                throw ReelError(.invalidArgument, "wants seconds from 0.1 to 1000000, not \(seconds)", subject: "--chunk-seconds")
            }
            wanted = max(1, Int(min(Double(maximumChunks), (duration.seconds / seconds).rounded(.up))))
        }
        let perSecond = 1 / frameDuration.seconds
        let longest = max(1, Int(min(max(gopSeconds * perSecond, 1), 1e6).rounded()))
        // Shorter GOPs give more places to cut, down to half a second: below that a chunk is
        // not worth a process, and the output's keyframes would cost more than they give.
        let shortest = min(longest, max(1, Int(min(0.5 * perSecond, 1e6).rounded())))
        let gop = max(shortest, min(longest, frames / wanted))
        let windows = Self.windowsKeptWhole(video)
        // The cuts allowed: GOP starts inside the timeline (the smart render's, when smart), outside every window.
        let starts = smart.map { plan in plan.cutFrames.filter { $0 > 0 && $0 < frames } } ?? Array(stride(from: gop, to: frames, by: gop))
        let candidates = starts.filter { frame in
            let time = frameDuration * Int64(frame)
            return !windows.contains { $0.start < time && time < $0.end }
        }
        // As many chunks as there are places to cut, at most; each cut the allowed one nearest
        // its even share, leaving room for the cuts after it.
        let count = min(wanted, candidates.count + 1)
        var cuts: [Int] = []
        var next = 0
        for k in 1..<max(count, 1) {
            let ideal = Double(frames) * Double(k) / Double(count)
            let upper = candidates.count - (count - k)
            guard next <= upper else { break }
            var chosen = next
            for index in next...upper where abs(Double(candidates[index]) - ideal) < abs(Double(candidates[chosen]) - ideal) {
                chosen = index
            }
            cuts.append(candidates[chosen])
            next = chosen + 1
        }
        let bounds = [0] + cuts + [frames]
        var chunks: [Chunk] = []
        for (from, to) in zip(bounds, bounds.dropFirst()) where to > from {
            let start = frameDuration * Int64(from)
            let end = to == frames ? duration : frameDuration * Int64(to)
            chunks.append(Chunk(range: MediaTimeRange(start: start, end: end), frameCount: to - from))
        }
        // Longest first; equal ones in timeline order.
        chunks.sort { $0.frameCount != $1.frameCount ? $0.frameCount > $1.frameCount : $0.range.start < $1.range.start }
        return ChunkPlan(frameDuration: frameDuration, duration: duration, framesPerGOP: gop, chunks: chunks, keptWhole: windows,
                         smart: smart != nil)
    }

    /// The frames a render of `duration` at `frameDuration` makes: those starting before the end.
    static func frames(in duration: MediaTime, of frameDuration: MediaTime) -> Int {
        let numerator = Int128(duration.value) * Int128(frameDuration.timescale)
        let denominator = Int128(duration.timescale) * Int128(frameDuration.value)
        guard denominator > 0, numerator > 0 else { return 0 }
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        let count = quotient + (remainder > 0 ? 1 : 0)
        return count > Int128(Int32.max) ? Int(Int32.max) : Int(count)
    }

    /// Transitions (instructions drawing two clips, ramps of opacity, transform or crop) and
    /// the windows of the overlays' animations, merged where they touch.
    static func windowsKeptWhole(_ video: VideoComposition) -> [MediaTimeRange] {
        var windows: [MediaTimeRange] = []
        for instruction in video.instructions {
            if instruction.layerInstructions.count > 1 { windows.append(instruction.timeRange) }
            for layer in instruction.layerInstructions {
                let ramps = layer.opacityRamps.map(\.timeRange) + layer.transformRamps.map(\.timeRange) + layer.cropRamps.map(\.timeRange)
                windows += ramps.filter { $0.duration.isNumeric && $0.duration > .zero }
            }
        }
        func visit(_ layer: OverlayLayer) {
            for animation in layer.animations where animation.duration.isFinite && animation.beginTime.isFinite
                && animation.duration > 0 && abs(animation.beginTime) < 1e7 && animation.duration < 1e7 {
                // Widened to whole milliseconds outward: a cut never lands inside.
                let start = MediaTime(value: Int64((animation.beginTime * 1000).rounded(.down)), timescale: 1000)
                let end = MediaTime(value: Int64(((animation.beginTime + animation.duration) * 1000).rounded(.up)), timescale: 1000)
                windows.append(MediaTimeRange(start: start, end: end))
            }
            layer.sublayers.forEach(visit)
        }
        if let root = video.animationTool { visit(root) }
        let sorted = windows.filter { $0.isValid && $0.start.isNumeric && $0.end.isNumeric }.sorted { $0.start < $1.start }
        var merged: [MediaTimeRange] = []
        for window in sorted {
            if let last = merged.last, window.start <= last.end {
                merged[merged.count - 1] = MediaTimeRange(start: last.start, end: max(last.end, window.end))
            } else {
                merged.append(window)
            }
        }
        return merged
    }
}

public import ReelAsset
public import ReelCore

/// A clip drawn over the main picture in a rectangle of its own (picture in picture), with
/// its own place on the timeline, range, speed, opacity, keyframe animations and style
/// (corners, border, alpha, key, look), its sound mixed in with its picture.
///
/// It is built as AVFoundation code builds one: a composition video track (and audio track)
/// of its own holding the range at its start time, and in every instruction it overlaps, a
/// layer instruction in front that places it by `setTransform`/`setOpacity` (ramps from output
/// frame to output frame while it moves) and crops it by `setCropRectangle` for `cover`.
public struct VideoLayer: Sendable {
    /// The file (a movie, or a movie with alpha: ProRes 4444, VP9 with alpha in WebM).
    public var asset: Asset
    /// The part of the file; all of its picture when nil.
    public var range: MediaTimeRange?
    /// Where it starts on the composition's timeline.
    public var start: MediaTime
    /// 1 is normal, 2 twice as fast (1/16 to 16); the sound keeps its pitch.
    public var speed: Double
    /// The rectangle it is drawn in, in render pixels (top-left origin, y down).
    public var frame: Rect
    /// How the picture fills the rectangle (`contain` by default, as `AVPlayerLayer`).
    public var fit: ClipSequence.Fit = .contain
    /// 0 to 1.
    public var opacity: Double = 1
    /// Keyframe animations of its opacity, position (its centre), scale and rotation, as an
    /// ``OverlayLayer``'s, in composition seconds.
    public var animations: [KeyframeAnimation] = []
    /// Corners, border, key and look; the layer is drawn with its alpha whatever the style.
    public var style = LayerStyle()
    /// Its sound's volume, 0 to 4 (default 1).
    public var volume: Double = 1

    /// A layer from its file, time and place.
    /// - Parameters:
    ///   - asset: The file.
    ///   - range: The part of the file to use; all of its picture when nil.
    ///   - start: Where it starts on the timeline.
    ///   - speed: The playback speed, 1 normal.
    ///   - frame: The rectangle in render pixels.
    public init(asset: Asset, range: MediaTimeRange? = nil, start: MediaTime, speed: Double = 1, frame: Rect) {
        self.asset = asset
        self.range = range
        self.start = start
        self.speed = speed
        self.frame = frame
    }

    /// Adds the layer to a composition: its tracks, a layer instruction in front in every
    /// instruction it overlaps (which are split where it starts and ends), and its sound's
    /// volume in the mix. A layer that would outlast the composition is cut at its end.
    /// - Parameters:
    ///   - composition: The edit, its main tracks already in place.
    ///   - videoComposition: Its instructions, tiling the timeline.
    ///   - audioMix: The mix its sound's volume joins.
    ///   - name: What errors call the layer (`layers[0]`).
    /// - Returns: Where the layer shows on the timeline.
    /// - Throws: ``ReelError`` naming the layer: no video, a range outside the file, a start
    ///   at or after the composition's end, a speed outside 1/16…16.
    @discardableResult
    public func insert(
        into composition: MutableComposition, videoComposition: inout VideoComposition, audioMix: inout AudioMix,
        name: String = "layer"
    ) throws(ReelError) -> MediaTimeRange {
        guard let video = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidArgument, "has no video", subject: "\(name).file \(asset.url.path)")
        }
        guard speed.isFinite, speed >= 1.0 / 16, speed <= 16 else {
            throw ReelError(.invalidArgument, "wants a number from 1/16 to 16, not \(speed)", subject: "\(name).speed")
        }
        let total = composition.duration
        guard start.isNumeric, start >= .zero, start < total else {
            throw ReelError(
                .invalidArgument, "\(start.seconds) s is not inside the composition, which lasts \(total.seconds) s",
                subject: "\(name).start")
        }
        guard let whole = range ?? ClipSequence.Clip.pictureRange(of: asset), whole.isValid, whole.duration > .zero,
            whole.start >= .zero, whole.end <= asset.duration + MediaTime(value: 1, timescale: 1000)
        else {
            throw ReelError(
                .invalidArgument, "the range is outside the file, which lasts \(asset.duration.seconds) s",
                subject: "\(name).range \(asset.url.path)")
        }
        // The layer starts on the output frame nearest its start, so its first picture is drawn whole.
        let start = ClipSequence.frameGridStart(
            self.start, grid: videoComposition.frameDuration,
            within: MediaTimeRange(start: .zero, end: total))
        let ratio = ClipSequence.speedRatio(speed)
        let one = MediaTime(value: 1, timescale: 1)
        var source = whole
        var played = speed == 1 ? source.duration : source.duration.scaled(by: one, over: ratio)
        if start + played > total {
            // Cut at the composition's end: the source range shortened to what plays until then.
            played = total - start
            source = MediaTimeRange(start: source.start, duration: speed == 1 ? played : played.scaled(by: ratio, over: one))
        }
        guard played > .zero, source.duration > .zero,
            let videoTrack = composition.addMutableTrack(withMediaType: .video)
        else {
            throw ReelError(.invalidArgument, "plays no time before the composition ends", subject: name)
        }
        videoTrack.preferredTransform = video.preferredTransform
        try videoTrack.insertTimeRange(source, of: video, at: start)
        if speed != 1 { videoTrack.scaleTimeRange(MediaTimeRange(start: start, duration: source.duration), toDuration: played) }
        let shown = MediaTimeRange(start: start, duration: played)
        if let audio = asset.tracks(withMediaType: .audio).first, audio.timeRange.end > source.start,
            let audioTrack = composition.addMutableTrack(withMediaType: .audio)
        {
            let audioRange = MediaTimeRange(start: source.start, end: min(source.end, audio.timeRange.end))
            try audioTrack.insertTimeRange(audioRange, of: audio, at: start)
            if speed != 1 {
                audioTrack.scaleTimeRange(
                    MediaTimeRange(start: start, duration: audioRange.duration),
                    toDuration: audioRange.duration.scaled(by: one, over: ratio))
            }
            var parameters = AudioMixInputParameters(trackID: audioTrack.trackID)
            parameters.setVolume(volume, at: .zero)
            audioMix.inputParameters.append(parameters)
        }
        let layer = try layerInstruction(
            trackID: videoTrack.trackID, natural: video.naturalSize,
            turn: video.preferredTransform, over: shown, grid: videoComposition.frameDuration)
        videoComposition.splitInstructions(at: shown.start)
        videoComposition.splitInstructions(at: shown.end)
        for index in videoComposition.instructions.indices where videoComposition.instructions[index].timeRange.overlaps(shown) {
            videoComposition.instructions[index].layerInstructions.insert(layer, at: 0)
        }
        return shown
    }

    /// The picture's placement in its rectangle at rest: source pixels to render pixels.
    /// - Parameters:
    ///   - natural: The picture's stored size.
    ///   - turn: How to turn it for display.
    /// - Returns: The transform, and the part of the source shown (less than all for `cover`).
    public func placement(natural: Size, turn: ReelCore.AffineTransform) -> (ReelCore.AffineTransform, Rect) {
        let inFrame = ClipSequence.placement(naturalSize: natural, preferredTransform: turn, in: frame.size, fit: fit)
        let transform = inFrame.concatenating(ReelCore.AffineTransform(translationX: frame.minX, y: frame.minY))
        let all = Rect(origin: .zero, size: natural)
        guard fit == .cover, let back = inFrame.inverted() else { return (transform, all) }
        return (transform, Rect(origin: .zero, size: frame.size).applying(back).intersection(all))
    }

    /// The layer instruction: placed and faded as the animations say at every output frame.
    func layerInstruction(
        trackID: Int, natural: Size, turn: ReelCore.AffineTransform, over shown: MediaTimeRange,
        grid: MediaTime
    ) throws(ReelError) -> VideoCompositionLayerInstruction {
        let (base, crop) = placement(natural: natural, turn: turn)
        let model = OverlayLayer(frame: frame, opacity: opacity)
        for animation in animations { model.add(animation) }
        func state(at time: MediaTime) -> (ReelCore.AffineTransform, Double) {
            let now = model.presentation(at: time)
            let moved = base.concatenating(ReelCore.AffineTransform(translationX: -frame.midX, y: -frame.midY))
                .concatenating(ReelCore.AffineTransform(scaleX: now.scale, y: now.scale))
                .concatenating(ReelCore.AffineTransform(rotationAngle: now.rotation))
                .concatenating(ReelCore.AffineTransform(translationX: now.position.x, y: now.position.y))
            return (moved, now.opacity)
        }
        var layer = VideoCompositionLayerInstruction(trackID: trackID)
        layer.style = style
        let first = state(at: shown.start)
        layer.setTransform(first.0, at: shown.start)
        layer.setOpacity(first.1, at: shown.start)
        if fit == .cover { layer.setCropRectangle(crop, at: shown.start) }
        guard !animations.isEmpty, grid.isNumeric, grid > .zero else { return layer }
        // From output frame to output frame, each ramp exact at its ends, while anything moves.
        var times = [shown.start]
        let firstFrame = shown.start.scaled(by: MediaTime(value: 1, timescale: 1), over: grid)
            .convertScale(1, method: .roundTowardPositiveInfinity)
        var frameIndex = firstFrame.isNumeric ? firstFrame.value : 0
        while times.count < 1_000_000 {
            let time = grid * frameIndex
            frameIndex += 1
            guard time.isNumeric, time < shown.end else { break }
            if time > shown.start { times.append(time) }
        }
        times.append(shown.end)
        var previous = first
        for (from, to) in zip(times, times.dropFirst()) {
            let next = state(at: to)
            guard next.0 != previous.0 || next.1 != previous.1 else { continue }
            let span = MediaTimeRange(start: from, end: to)
            layer.setTransformRamp(fromStart: previous.0, toEnd: next.0, timeRange: span)
            layer.setOpacityRamp(fromStartOpacity: previous.1, toEndOpacity: next.1, timeRange: span)
            previous = next
        }
        return layer
    }
}

extension VideoComposition {
    /// Cuts the instruction that holds `time` inside it in two there, both with its layers (a
    /// layer's ramps are in composition time, so each half draws as the whole did). An
    /// instruction boundary at `time`, or a time outside them all, changes nothing.
    /// - Parameter time: Where to cut.
    public mutating func splitInstructions(at time: MediaTime) {
        guard let index = instructions.firstIndex(where: { $0.timeRange.start < time && time < $0.timeRange.end }) else { return }
        var first = instructions[index], second = instructions[index]
        first.timeRange = MediaTimeRange(start: first.timeRange.start, end: time)
        second.timeRange = MediaTimeRange(start: time, end: second.timeRange.end)
        instructions[index] = first
        instructions.insert(second, at: index + 1)
    }
}

public import Foundation
public import ReelAsset
public import ReelCore

/// Clips one after another, with transitions where they overlap: the composition the
/// seed builds by hand, done once. Video alternates between two tracks so that
/// neighbours can overlap; audio does too, and crossfades over the same windows, so
/// sound stays with its picture. Each clip is fitted, by its own orientation, inside
/// the render size and centred (black bars where the aspect differs).
public struct ClipSequence: Sendable {
    public let composition: MutableComposition
    public let videoComposition: VideoComposition
    public let audioMix: AudioMix
    /// Where each clip sits on the timeline.
    public let clipRanges: [MediaTimeRange]

    /// One clip of a sequence: a range of a file, played at a speed.
    public struct Clip: Sendable {
        public var asset: Asset
        /// The part of the file to use; the whole file when nil.
        public var range: MediaTimeRange?
        /// 1 is normal, 2 twice as fast, 0.5 half as fast.
        public var speed: Double
        /// How the picture fills the render size (``Fit/contain`` by default).
        public var fit: Fit = .contain
        /// A move over the picture from one part to another (Ken Burns); nil shows it whole.
        public var motion: Motion?
        /// For a still picture: how long it shows. Its one frame (the `range`) is held that
        /// long, silent, so the clips after it keep their sound on their pictures.
        public var stillDuration: MediaTime?
        /// A freeze frame: at `at` into the clip as it plays, its picture then holds for
        /// `duration` while the sound pauses (silence), and both go on together after it.
        public var freeze: (at: MediaTime, duration: MediaTime)?
        /// How to turn the picture for display, in place of its track's (a still's EXIF
        /// orientation, which FFmpeg leaves to the caller); nil uses the track's.
        public var preferredTransform: ReelCore.AffineTransform?

        /// A clip from its file, range and speed.
        /// - Parameters:
        ///   - asset: The file.
        ///   - range: The part of it to use; nil for all of it.
        ///   - speed: The playback speed, 1 normal.
        public init(asset: Asset, range: MediaTimeRange? = nil, speed: Double = 1) {
            self.asset = asset
            self.range = range
            self.speed = speed
        }

        /// The whole of a file as long as its picture: from 0 to the end of its video track,
        /// the sound cut there, so a sound that outlasts the picture adds no frozen frames.
        /// This is what `reel merge` and spec clips without a range use. (`asset.duration`,
        /// and a clip with no range, are the longest track, as in AVFoundation.)
        /// - Parameters:
        ///   - asset: The file.
        ///   - speed: The playback speed, 1 normal.
        public init(pictureOf asset: Asset, speed: Double = 1) {
            self.init(asset: asset, range: Self.pictureRange(of: asset), speed: speed)
        }

        /// A still picture shown for `duration`: its first frame held, in silence.
        /// - Parameters:
        ///   - asset: The picture file (JPEG, PNG, WebP).
        ///   - duration: How long it shows; above 0.
        ///   - orientation: How to turn it for display (its EXIF orientation); upright when nil.
        public init(still asset: Asset, duration: MediaTime, orientation: Orientation? = nil) {
            let video = asset.tracks(withMediaType: .video).first
            let frame = video.map { $0.minFrameDuration.isNumeric && $0.minFrameDuration > .zero ? $0.minFrameDuration
                : MediaTime(value: 1, timescale: 25) } ?? MediaTime(value: 1, timescale: 25)
            self.init(asset: asset, range: MediaTimeRange(start: .zero, duration: frame))
            stillDuration = duration
            if let orientation, let video { preferredTransform = orientation.transform(for: video.naturalSize) }
        }

        /// From 0 to the end of the asset's first video track; nil without one.
        /// - Parameter asset: The file.
        /// - Returns: The range its pictures cover, so a longer sound adds no frozen frames.
        public static func pictureRange(of asset: Asset) -> MediaTimeRange? {
            guard let video = asset.tracks(withMediaType: .video).first else { return nil }
            let end = video.timeRange.end
            guard end.isNumeric, end > .zero else { return nil }
            return MediaTimeRange(start: .zero, end: end)
        }
    }

    /// - Parameters:
    ///   - assets: the clips, in order, each used whole.
    ///   - transitions: the transition after each clip but the last; repeated when shorter.
    ///   - renderSize: the frame size; the first clip's displayed size when nil.
    /// - Throws: ``ReelError`` naming the clip (`clips[2]`) that has no video or is too short
    ///   for its transitions.
    public init(assets: [Asset], transitions: [Transition] = [.none], renderSize: Size? = nil) throws(ReelError) {
        try self.init(clips: assets.map { Clip(asset: $0) }, transitions: transitions, renderSize: renderSize)
    }

    /// A sequence of clips with ranges and speeds.
    /// - Parameters:
    ///   - clips: the clips, in order.
    ///   - transitions: the transition after each clip but the last; repeated when shorter.
    ///   - renderSize: the frame size; the first clip's displayed size when nil.
    ///   - frameDuration: the output's frame duration; the first clip's rate (as
    ///     ``VideoComposition/init(propertiesOf:)`` chooses it) when nil. A clip that starts
    ///     inside a transition starts on a whole output frame (see `frameGridStart(_:grid:within:)`).
    /// - Throws: ``ReelError`` naming the clip (`clips[2]`) that has no video, is too short for
    ///   its transitions, or has a range or speed out of bounds.
    public init(clips: [Clip], transitions: [Transition] = [.none], renderSize: Size? = nil,
                frameDuration: MediaTime? = nil) throws(ReelError) {
        let assets = clips.map(\.asset)
        guard !assets.isEmpty else { throw ReelError(.invalidArgument, "no clips", subject: "clips") }
        let firstVideo = assets[0].tracks(withMediaType: .video).first
        let grid = frameDuration.flatMap { $0.isNumeric && $0 > .zero ? $0 : nil }
            ?? VideoComposition.frameDuration(nominalFrameRate: firstVideo?.nominalFrameRate ?? 0,
                                              minFrameDuration: firstVideo?.minFrameDuration)
        let composition = MutableComposition()
        let videoTracks = [composition.addMutableTrack(withMediaType: .video), composition.addMutableTrack(withMediaType: .video)]
            .compactMap { $0 }
        let audioTracks = [composition.addMutableTrack(withMediaType: .audio), composition.addMutableTrack(withMediaType: .audio)]
            .compactMap { $0 }
        var cursor = MediaTime.zero
        var ranges: [MediaTimeRange] = []
        var joins: [Transition] = []
        for (index, asset) in assets.enumerated() {
            let name = "clips[\(index)]"
            guard let video = asset.tracks(withMediaType: .video).first else {
                throw ReelError(.invalidData, "has no video track", subject: "\(name) \(asset.url.path)")
            }
            let clip = clips[index]
            guard asset.duration.isNumeric, asset.duration > .zero else {
                throw ReelError(.invalidData, "has no frames to play: it lasts 0 s", subject: "\(name) \(asset.url.path)")
            }
            let sourceRange = clip.range ?? MediaTimeRange(start: .zero, duration: asset.duration)
            guard sourceRange.isValid, sourceRange.duration > .zero, sourceRange.start >= .zero,
                  sourceRange.end <= asset.duration + MediaTime(value: 1, timescale: 1000) else {
                throw ReelError(.invalidArgument,
                                "the range \(sourceRange) is outside the file, which lasts \(asset.duration.seconds) s",
                                subject: "\(name).range \(asset.url.path)")
            }
            guard clip.speed.isFinite, clip.speed >= 1.0 / 16, clip.speed <= 16 else {
                throw ReelError(.invalidArgument, "a speed of \(clip.speed) is outside 1/16...16", subject: "\(name).speed")
            }
            let speedRatio = Self.speedRatio(clip.speed)
            if let still = clip.stillDuration, !(still.isNumeric && still > .zero) {
                throw ReelError(.invalidArgument, "a still lasts more than 0 s, not \(still.seconds) s", subject: "\(name).duration")
            }
            let played = clip.stillDuration ?? (clip.speed == 1 ? sourceRange.duration
                : sourceRange.duration.scaled(by: MediaTime(value: 1, timescale: 1), over: speedRatio))
            if let freeze = clip.freeze {
                guard freeze.at.isNumeric, freeze.at >= .zero, freeze.at < played else {
                    throw ReelError(.invalidArgument, "\(freeze.at.seconds) s is not inside the clip, which plays \(played.seconds) s",
                                    subject: "\(name).freeze.at")
                }
                guard freeze.duration.isNumeric, freeze.duration > .zero else {
                    throw ReelError(.invalidArgument, "a freeze lasts more than 0 s", subject: "\(name).freeze.duration")
                }
            }
            // A freeze lasts whole output frames (the nearest number, at least one), so the
            // pictures after it stay on the output's frames and the sound with them.
            let frozen = clip.freeze.map { freeze -> MediaTime in
                let frames = freeze.duration.scaled(by: MediaTime(value: 1, timescale: 1), over: grid)
                    .convertScale(1, method: .roundHalfAwayFromZero)
                return grid * max(1, frames.isNumeric ? frames.value : 1)
            } ?? .zero
            let duration = played + frozen
            let transition = index < assets.count - 1 ? transitions[index % max(transitions.count, 1)] : .none
            let before = joins.last?.duration ?? .zero
            guard duration > before + transition.duration else {
                throw ReelError(.invalidArgument,
                                "lasts \(duration.seconds) s, too short for transitions of \(before.seconds) s and \(transition.duration.seconds) s",
                                subject: "\(name) \(asset.url.path)")
            }
            if before > .zero, let previous = ranges.last {
                // Inside the transition, the clip starts on a whole output frame, so its frames
                // fall on the output's (clips 2 and 3 of a 29.97 fps merge with 0.4 s overlaps
                // sat 0.4 ms after a frame, and every picture showed a frame late). It stays
                // after the clip before the last on its track, and inside the one before it.
                let earliest = ranges.count > 1 ? ranges[ranges.count - 2].end : previous.start
                cursor = Self.frameGridStart(cursor, grid: grid, within: MediaTimeRange(start: earliest, end: previous.end))
            }
            let videoTrack = videoTracks[index % 2]
            // As AVFoundation code must: a composition track's transform is only what is set.
            if videoTrack.segments.isEmpty { videoTrack.preferredTransform = video.preferredTransform }
            try videoTrack.insertTimeRange(sourceRange, of: video, at: cursor)
            if clip.speed != 1 || clip.stillDuration != nil {
                videoTrack.scaleTimeRange(MediaTimeRange(start: cursor, duration: sourceRange.duration), toDuration: played)
            }
            // The freeze starts on the output frame nearest its time inside the clip.
            let freezeStart = clip.freeze.map {
                Self.frameGridStart(cursor + $0.at, grid: grid, within: MediaTimeRange(start: cursor, duration: played))
            }
            if let freezeStart, let playing = videoTrack.segment(forTrackTime: freezeStart) {
                // The picture on screen at the freeze, a millisecond of its source stretched
                // over the freeze; the rest of the clip moves back by it.
                let source = playing.timeMapping.sourceTime(at: freezeStart)
                let instant = MediaTime(value: 1, timescale: 1000)
                try videoTrack.insertTimeRange(MediaTimeRange(start: source, duration: instant), of: video, at: freezeStart)
                videoTrack.scaleTimeRange(MediaTimeRange(start: freezeStart, duration: instant), toDuration: frozen)
            }
            // A still is silent: the gap in the sound tracks keeps later clips' sound on their pictures.
            if clip.stillDuration == nil, let audio = asset.tracks(withMediaType: .audio).first, audio.timeRange.end > sourceRange.start {
                let audioRange = MediaTimeRange(start: sourceRange.start, end: min(sourceRange.end, audio.timeRange.end))
                let audioTrack = audioTracks[index % 2]
                try audioTrack.insertTimeRange(audioRange, of: audio, at: cursor)
                if clip.speed != 1 {
                    audioTrack.scaleTimeRange(MediaTimeRange(start: cursor, duration: audioRange.duration),
                                              toDuration: audioRange.duration.scaled(by: MediaTime(value: 1, timescale: 1),
                                                                                     over: speedRatio))
                }
                // The sound pauses for a freeze: a gap (silence), the rest moved back with the picture.
                if let freezeStart, let playing = audioTrack.segment(forTrackTime: freezeStart), !playing.isEmpty {
                    audioTrack.insertEmptyTimeRange(MediaTimeRange(start: freezeStart, duration: frozen))
                }
            }
            ranges.append(MediaTimeRange(start: cursor, duration: duration))
            cursor = cursor + duration - transition.duration
            if index < assets.count - 1 { joins.append(transition) }
        }
        var video = VideoComposition(propertiesOf: composition)
        if let renderSize { video.renderSize = renderSize }
        if frameDuration != nil { video.frameDuration = grid }
        let size = video.renderSize
        let carriesAlpha = clips.map { $0.asset.tracks(withMediaType: .video).first?.decodesWithAlpha ?? false }
        // The fit of every clip, by its own orientation (and, for a moving one, where it starts).
        let fits = clips.map { clip -> ReelCore.AffineTransform in
            guard let track = clip.asset.tracks(withMediaType: .video).first else { return .identity }
            return Self.placement(naturalSize: track.naturalSize, preferredTransform: clip.preferredTransform ?? track.preferredTransform,
                                  in: size, fit: clip.fit, showing: clip.motion?.start)
        }
        // A moving clip's transform (and, for contain, crop) at a time inside it.
        func motionPlacement(_ index: Int, at time: MediaTime) -> (ReelCore.AffineTransform, Rect?)? {
            let clip = clips[index]
            guard let motion = clip.motion, let track = clip.asset.tracks(withMediaType: .video).first else { return nil }
            let range = ranges[index]
            let fraction = range.duration > .zero ? (time - range.start).seconds / range.duration.seconds : 0
            let part = motion.rect(at: min(max(fraction, 0), 1), overSeconds: range.duration.seconds)
            let turn = clip.preferredTransform ?? track.preferredTransform
            let transform = Self.placement(naturalSize: track.naturalSize, preferredTransform: turn, in: size, fit: clip.fit, showing: part)
            let crop = clip.fit == .contain ? Self.crop(naturalSize: track.naturalSize, preferredTransform: turn, part: part) : nil
            return (transform, crop)
        }
        // The clips' ranges rise with their index and overlap only their neighbours (at a
        // transition), so a binary search finds them: a scan per stretch made 100,000 clips
        // quadratic.
        func lastStarting(atOrBefore time: MediaTime) -> Int? {
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if ranges[middle].start <= time { low = middle + 1 } else { high = middle }
            }
            return low > 0 ? low - 1 : nil
        }
        func clipIndex(at time: MediaTime, track: Int) -> Int? {
            guard let last = lastStarting(atOrBefore: time) else { return nil }
            return (max(0, last - 2)...last).first { $0 % 2 == (track - 1) % 2 && ranges[$0].contains(time) }
        }
        var mix = AudioMix(inputParameters: audioTracks.map { AudioMixInputParameters(trackID: $0.trackID) })
        for (index, instruction) in video.instructions.enumerated() {
            let start = instruction.timeRange.start
            var layers = instruction.layerInstructions
            for position in layers.indices {
                let trackID = layers[position].trackID
                guard let clip = clipIndex(at: start, track: trackID) else { continue }
                layers[position].setTransform(motionPlacement(clip, at: start)?.0 ?? fits[clip], at: start)
            }
            if layers.count == 2, index > 0 {
                // The outgoing clip is on the track of the stretch before.
                let previous = video.instructions[index - 1].layerInstructions.first?.trackID
                let fromIndex = layers[0].trackID == previous ? 0 : 1
                var from = layers[fromIndex], to = layers[1 - fromIndex]
                let joinIndex = lastStarting(atOrBefore: start).map { max(0, $0 - 1) } ?? 0
                let transition = joinIndex < joins.count ? joins[joinIndex] : .none
                let fromClip = clipIndex(at: start, track: from.trackID)
                Self.apply(transition, from: &from, to: &to, range: instruction.timeRange, size: size,
                           fromFit: fromClip.map { motionPlacement($0, at: start)?.0 ?? fits[$0] } ?? .identity,
                           toFit: clipIndex(at: start, track: to.trackID).map {
                               motionPlacement($0, at: instruction.timeRange.end)?.0 ?? fits[$0] } ?? .identity,
                           fromNatural: fromClip.flatMap { assets[$0].tracks(withMediaType: .video).first?.naturalSize } ?? size)
                // Slides and zooms draw the incoming clip on top; the rest the outgoing one.
                switch transition {
                case .slide, .zoom: layers = [to, from]
                default: layers = [from, to]
                }
                // Sound crossfades over the same window.
                let fromAudio = audioTracks[(from.trackID - 1) % 2].trackID, toAudio = audioTracks[(to.trackID - 1) % 2].trackID
                for (trackID, startVolume, endVolume) in [(fromAudio, 1.0, 0.0), (toAudio, 0.0, 1.0)] {
                    if let slot = mix.inputParameters.firstIndex(where: { $0.trackID == trackID }) {
                        mix.inputParameters[slot].setVolumeRamp(fromStartVolume: startVolume, toEndVolume: endVolume,
                                                                timeRange: instruction.timeRange)
                        mix.inputParameters[slot].setVolume(1, at: instruction.timeRange.end)
                    }
                }
            }
            // Moving clips move through every frame of the stretch, ramp by ramp between the
            // output's frame times (each exact there), unless a transition moves them itself.
            for position in layers.indices {
                let trackID = layers[position].trackID
                guard let clip = clipIndex(at: start, track: trackID), clips[clip].motion != nil,
                      !layers[position].transformRamps.contains(where: { $0.timeRange.duration > .zero }),
                      !layers[position].cropRamps.contains(where: { $0.timeRange.duration > .zero }) else { continue }
                Self.addMotion(to: &layers[position], over: MediaTimeRange(start: start, end: min(instruction.timeRange.end, ranges[clip].end)),
                               grid: video.frameDuration) { motionPlacement(clip, at: $0) }
            }
            // A clip whose pixels carry alpha is laid on the background colour: its clear parts
            // show the background, and a transition mixes it with its neighbour as a whole.
            for position in layers.indices {
                guard let clip = clipIndex(at: start, track: layers[position].trackID), carriesAlpha[clip] else { continue }
                var style = layers[position].style ?? LayerStyle()
                style.isMattedOnBackground = true
                layers[position].style = style
            }
            video.instructions[index].layerInstructions = layers
        }
        self.composition = composition
        videoComposition = video
        audioMix = mix
        clipRanges = ranges
    }

    /// Ramps of a moving clip's transform (and crop) over `range`, from one multiple of `grid`
    /// to the next, each ending on the placement at its end time.
    static func addMotion(to layer: inout VideoCompositionLayerInstruction, over range: MediaTimeRange, grid: MediaTime,
                          placement: (MediaTime) -> (ReelCore.AffineTransform, Rect?)?) {
        guard range.duration > .zero, grid.isNumeric, grid > .zero, let first = placement(range.start) else { return }
        var times = [range.start]
        let firstFrame = range.start.scaled(by: MediaTime(value: 1, timescale: 1), over: grid).convertScale(1, method: .roundTowardPositiveInfinity)
        var frame = firstFrame.isNumeric ? firstFrame.value : 0
        // At most a ramp per output frame, and no more than 100,000 in one stretch.
        while times.count < 100_000 {
            let time = grid * frame
            frame += 1
            guard time.isNumeric, time < range.end else { break }
            if time > range.start { times.append(time) }
        }
        times.append(range.end)
        var previous = first
        layer.setTransform(first.0, at: range.start)
        if let crop = first.1 { layer.setCropRectangle(crop, at: range.start) }
        for (from, to) in zip(times, times.dropFirst()) {
            guard let next = placement(to) else { return }
            let span = MediaTimeRange(start: from, end: to)
            layer.setTransformRamp(fromStart: previous.0, toEnd: next.0, timeRange: span)
            if let a = previous.1, let b = next.1 {
                layer.setCropRectangleRamp(fromStartCropRectangle: a, toEndCropRectangle: b, timeRange: span)
            }
            previous = next
        }
    }

    /// `time` moved to the nearest whole multiple of `grid`, when that lies in `bounds` (its
    /// end excluded); else `time` unchanged. Exact: the times are rational.
    static func frameGridStart(_ time: MediaTime, grid: MediaTime, within bounds: MediaTimeRange) -> MediaTime {
        guard time.isNumeric, grid.isNumeric, grid > .zero else { return time }
        let frames = time.scaled(by: MediaTime(value: 1, timescale: 1), over: grid)
        guard frames.isNumeric else { return time }
        let whole = frames.convertScale(1, method: .roundHalfAwayFromZero)
        guard whole.isNumeric else { return time }
        let snapped = grid * whole.value
        guard snapped.isNumeric, snapped >= bounds.start, snapped < bounds.end else { return time }
        return snapped
    }

    /// A speed as an exact fraction (a time of `p/q` seconds standing for p/q): 1/16 is
    /// 1/16, not 0.063 (which made a 1 s clip at 1/16 last 15.87 s); 2/3 is 2/3. Speeds
    /// that are no fraction over at most 1000 are kept to a millionth.
    static func speedRatio(_ speed: Double) -> MediaTime {
        guard speed.isFinite, speed > 0 else { return MediaTime(value: 1, timescale: 1) }
        for denominator in 1...1000 {
            let numerator = (speed * Double(denominator)).rounded()
            if numerator >= 1, numerator <= 1_000_000, abs(numerator / Double(denominator) - speed) <= speed * 1e-9 {
                return MediaTime(value: Int64(numerator), timescale: Int32(denominator))
            }
        }
        return MediaTime(value: Int64(min((speed * 1_000_000).rounded(), 1e12)), timescale: 1_000_000)
    }

    /// The transform that shows a picture of `naturalSize`, turned by `preferredTransform`,
    /// as large as fits inside `size` and centred.
    /// - Parameters:
    ///   - naturalSize: The picture's stored size.
    ///   - preferredTransform: How the file says to turn it for display.
    ///   - size: The frame to fit it in (the render size).
    /// - Returns: The layer transform: the turn, then the scale and the centring.
    public static func aspectFit(naturalSize: Size, preferredTransform: ReelCore.AffineTransform,
                                 in size: Size) -> ReelCore.AffineTransform {
        let turned = Rect(origin: .zero, size: naturalSize).applying(preferredTransform)
        guard turned.width > 0, turned.height > 0 else { return preferredTransform }
        let scale = min(size.width / turned.width, size.height / turned.height)
        let upright = preferredTransform.concatenating(ReelCore.AffineTransform(translationX: -turned.minX, y: -turned.minY))
        let x = ((size.width - turned.width * scale) / 2).rounded(), y = ((size.height - turned.height * scale) / 2).rounded()
        return upright.concatenating(ReelCore.AffineTransform(scaleX: scale, y: scale))
            .concatenating(ReelCore.AffineTransform(translationX: x, y: y))
    }

    static func apply(_ transition: Transition, from: inout VideoCompositionLayerInstruction,
                      to: inout VideoCompositionLayerInstruction, range: MediaTimeRange, size: Size,
                      fromFit: ReelCore.AffineTransform, toFit: ReelCore.AffineTransform, fromNatural: Size) {
        func offset(_ direction: Transition.Direction) -> (Double, Double) {
            switch direction {
            case .left: (-size.width, 0)
            case .right: (size.width, 0)
            case .up: (0, -size.height)
            case .down: (0, size.height)
            }
        }
        func moved(_ t: ReelCore.AffineTransform, _ dx: Double, _ dy: Double) -> ReelCore.AffineTransform {
            t.concatenating(ReelCore.AffineTransform(translationX: dx, y: dy))
        }
        switch transition {
        case .none:
            break
        case .dissolve:
            from.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range)
        case .push(_, let direction):
            let (dx, dy) = offset(direction)
            from.setTransformRamp(fromStart: fromFit, toEnd: moved(fromFit, dx, dy), timeRange: range)
            to.setTransformRamp(fromStart: moved(toFit, -dx, -dy), toEnd: toFit, timeRange: range)
        case .slide(_, let direction):
            let (dx, dy) = offset(direction)
            to.setTransformRamp(fromStart: moved(toFit, -dx, -dy), toEnd: toFit, timeRange: range)
        case .wipe(_, let direction):
            // The outgoing clip (on top) is cropped away from the side the edge moves toward.
            let full = Rect(origin: .zero, size: fromNatural)
            let gone: Rect = switch direction {
            case .left: Rect(x: 0, y: 0, width: 0, height: fromNatural.height)
            case .right: Rect(x: fromNatural.width, y: 0, width: 0, height: fromNatural.height)
            case .up: Rect(x: 0, y: 0, width: fromNatural.width, height: 0)
            case .down: Rect(x: 0, y: fromNatural.height, width: fromNatural.width, height: 0)
            }
            from.setCropRectangleRamp(fromStartCropRectangle: full, toEndCropRectangle: gone, timeRange: range)
        case .fadeThroughBlack:
            let half = MediaTimeRange(start: range.start, duration: range.duration.multiplied(byRatio: 1, divisor: 2))
            let second = MediaTimeRange(start: half.end, end: range.end)
            from.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: half)
            to.setOpacity(0, at: range.start)
            to.setOpacityRamp(fromStartOpacity: 0, toEndOpacity: 1, timeRange: second)
        case .zoom:
            let centre = ReelCore.AffineTransform(translationX: -size.width / 2, y: -size.height / 2)
            let small = toFit.concatenating(centre).concatenating(ReelCore.AffineTransform(scaleX: 0.02, y: 0.02))
                .concatenating(ReelCore.AffineTransform(translationX: size.width / 2, y: size.height / 2))
            to.setTransformRamp(fromStart: small, toEnd: toFit, timeRange: range)
        }
    }
}

extension ClipSequence {
    /// An export of the sequence with `preset` to `url`: its composition, video composition
    /// and audio mix, as every caller of a sequence sets them up.
    /// - Parameters:
    ///   - preset: The output's size box and quality.
    ///   - url: The file to write.
    ///   - fileType: The container.
    /// - Returns: The session, ready for ``ExportSession/export(progressHandler:)``.
    public func exportSession(preset: ExportPreset, to url: URL, fileType: FileType) -> ExportSession {
        let session = ExportSession(composition: composition, preset: preset)
        session.outputURL = url
        session.outputFileType = fileType
        session.videoComposition = videoComposition
        session.audioMix = audioMix
        return session
    }
}

public import Foundation
import ReelAsset
public import ReelCore

/// A spec made into things an export takes.
public struct BuiltComposition: Sendable {
    public var composition: MutableComposition
    public var videoComposition: VideoComposition
    public var audioMix: AudioMix
    public var preset: ExportPreset
    public var clipRanges: [MediaTimeRange]
    /// The music bed's track (`audio.music`), if any.
    public var musicTrackID: Int?
    /// The tracks of `layers`, by track ID: `layer 0`, `layer 0 sound` (for the timeline).
    public var layerTracks: [Int: String] = [:]
}

extension BuiltComposition {
    /// Normalises the mix's loudness (EBU R128) to `target` LUFS in two passes: the mix is
    /// measured by FFmpeg's `ebur128` (``LoudnessMeter``), then every track's volume is
    /// multiplied by one gain, held so that the sample peak stays at or below -1 dBFS (the
    /// result is then quieter than the target, and says so).
    /// - Parameter target: The integrated loudness wanted, in LUFS (-16 for streaming).
    /// - Returns: The measured loudness, the gain applied (dB) and whether the peak held it
    ///   back; nil when the mix is silent.
    /// - Throws: ``ReelError`` when the sound cannot be read.
    @discardableResult
    public mutating func normalizeLoudness(to target: Double) throws(ReelError) -> (measured: Double, gain: Double, peakLimited: Bool)? {
        guard let measured = try LoudnessMeter.measure(composition, mix: audioMix) else { return nil }
        let wanted = target - measured.integrated
        let gain = min(wanted, -1 - measured.peak)
        let factor = pow(10, gain / 20)
        for track in composition.tracks(withMediaType: .audio)
        where !audioMix.inputParameters.contains(where: { $0.trackID == track.trackID }) {
            audioMix.inputParameters.append(AudioMixInputParameters(trackID: track.trackID))
        }
        for index in audioMix.inputParameters.indices { audioMix.inputParameters[index].scaleVolumes(by: factor) }
        return (measured.integrated, gain, gain < wanted - 1e-9)
    }
}

extension BuiltComposition {
    /// Lowers the music bed while the clips' own sound plays (ducking, as a sidechain
    /// compressor keyed by the clips would): the clips' mix, without the music, is measured
    /// in 10 ms windows; where it is above `threshold` the music's volume is multiplied by
    /// `amount` dB less, reached over `attack` before the sound starts (the whole mix is
    /// known, so the duck can lead it) and let go over `release` after it ends. Gaps shorter
    /// than attack and release together stay ducked, so the music does not pump.
    /// - Parameters:
    ///   - amount: How far the music goes down, in dB (above 0).
    ///   - threshold: The clips' level (dBFS, RMS over 10 ms) that counts as sound.
    ///   - attack: Seconds the music takes to go down.
    ///   - release: Seconds it takes to come back.
    /// - Returns: The stretches where the music is ducked (empty without music or sound).
    /// - Throws: ``ReelError`` when the sound cannot be read.
    @discardableResult
    public mutating func duckMusic(by amount: Double, threshold: Double, attack: Double, release: Double) throws(ReelError)
        -> [MediaTimeRange] {
        guard let musicTrackID, let slot = audioMix.inputParameters.firstIndex(where: { $0.trackID == musicTrackID }),
              composition.duration.isNumeric else { return [] }
        var clipsOnly = audioMix
        clipsOnly.inputParameters[slot] = AudioMixInputParameters(trackID: musicTrackID)
        clipsOnly.inputParameters[slot].setVolume(0, at: .zero)
        let renderer = AudioRenderer(composition: composition, mix: clipsOnly, channels: 1)
        let rate = AudioRenderer.sampleRate, window = rate / 100
        let total = composition.duration.multiplied(byRatio: Int64(rate), divisor: 1).convertScale(1).value
        let limit = pow(10, threshold / 20)
        var active: [(Int64, Int64)] = []
        var position: Int64 = 0
        while position < total {
            let count = Int(min(Int64(window), total - position))
            let samples = try renderer.render(startSample: position, count: count).floatSamples(channel: 0)
            let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(count, 1))
            if power.squareRoot() > limit {
                if let last = active.last, last.1 == position { active[active.count - 1].1 = position + Int64(count) } else {
                    active.append((position, position + Int64(count)))
                }
            }
            position += Int64(count)
        }
        let bridge = Int64((attack + release) * Double(rate))
        var regions: [MediaTimeRange] = []
        for (start, end) in active {
            let range = MediaTimeRange(start: MediaTime(value: start, timescale: Int32(rate)), end: MediaTime(value: end, timescale: Int32(rate)))
            if let last = regions.last, (range.start - last.end).seconds * Double(rate) <= Double(bridge) {
                regions[regions.count - 1] = MediaTimeRange(start: last.start, end: range.end)
            } else {
                regions.append(range)
            }
        }
        guard !regions.isEmpty else { return [] }
        let ducked = pow(10, -amount / 20)
        let attackTime = MediaTime(seconds: attack, preferredTimescale: Int32(rate)), releaseTime = MediaTime(seconds: release, preferredTimescale: Int32(rate))
        var times: [MediaTime] = []
        for region in regions {
            times += [max(.zero, region.start - attackTime), region.start, region.end, region.end + releaseTime]
        }
        func factor(_ time: MediaTime) -> Double {
            var value = 1.0
            for region in regions {
                let t = time.seconds, s = region.start.seconds, e = region.end.seconds
                if t >= s - attack, t < s { value = min(value, attack > 0 ? 1 + (ducked - 1) * (t - (s - attack)) / attack : ducked) }
                if t >= s, t <= e { value = min(value, ducked) }
                if t > e, t < e + release { value = min(value, ducked + (1 - ducked) * (t - e) / release) }
            }
            return value
        }
        audioMix.inputParameters[slot].multiply(at: times, by: factor)
        return regions
    }
}

extension CompositionSpec {
    /// Builds the composition, resolving files against `folder`. Every check happens here,
    /// before any rendering.
    /// - Parameter folder: The folder relative paths in the spec are read from (the spec's own).
    /// - Returns: The composition, its video composition and audio mix, ready to export or play.
    /// - Throws: ``ReelError`` naming the spec path (`clips[2].range.end`, `overlays[0].color`).
    public func build(relativeTo folder: URL) throws(ReelError) -> BuiltComposition {
        func url(_ path: String) -> URL {
            path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
        }
        guard !clips.isEmpty else { throw ReelError(.invalidArgument, "needs at least one clip", subject: "clips") }
        // A boomerang is its range forwards then backwards: two clips. Errors name the clip
        // as the spec has it.
        if clips.contains(where: { $0.boomerang == true }) {
            try refuseStillBoomerangs(resolve: url)
            do {
                return try expandingBoomerangs().build(relativeTo: folder)
            } catch {
                throw renamingExpandedClips(error)
            }
        }
        var sequenceClips: [ClipSequence.Clip] = []
        var transitions: [Transition] = []
        for (index, clip) in clips.enumerated() {
            let name = "clips[\(index)]"
            let asset: Asset
            do {
                asset = try Self.openAsset(clip.file, fps: clip.fps, at: name, resolve: url)
            } catch where error.subject?.hasPrefix("\(name).file") == true {
                let type = url(clip.file).pathExtension.lowercased()
                let exists = FileManager.default.fileExists(atPath: url(clip.file).path)
                let message = exists && (type == "heic" || type == "heif")
                    ? "HEIC is not readable by this FFmpeg (5.1); convert the picture to JPEG (heif-convert) first"
                    : error.message
                throw ReelError(error.code, message, subject: "\(name).file \(url(clip.file).path)")
            }
            if let still = try Self.stillClip(clip, asset: asset, at: name) {
                sequenceClips.append(still)
                if index < clips.count - 1 {
                    transitions.append(try Self.transition(clip.transition, at: "\(name).transition"))
                }
                continue
            }
            if clip.duration != nil {
                throw ReelError(.invalidArgument, "is for still pictures; a video clip lasts its range (give it one instead)",
                                subject: "\(name).duration")
            }
            guard asset.duration.isNumeric, asset.duration > .zero, !asset.tracks(withMediaType: .video).isEmpty else {
                throw ReelError(.invalidArgument, asset.tracks(withMediaType: .video).isEmpty ? "has no video"
                                    : "lasts 0 s: a still picture (use it as an image overlay) or a video with no frames",
                                subject: "\(name).file \(asset.url.path)")
            }
            var range: MediaTimeRange?
            if let r = clip.range {
                let start = r.start ?? 0
                // An open end is the end of the picture.
                let end = r.end ?? (ClipSequence.Clip.pictureRange(of: asset)?.end.seconds ?? asset.duration.seconds)
                guard start >= 0, start.isFinite else {
                    throw ReelError(.invalidArgument, "must be 0 or more, not \(start)", subject: "\(name).range.start")
                }
                guard start < asset.duration.seconds else {
                    throw ReelError(.invalidArgument,
                                    "\(Self.format(start)) s is past the end of the file (\(String(format: "%.3f", asset.duration.seconds)) s)",
                                    subject: "\(name).range.start")
                }
                // A millisecond at least: 1e-300 s would round to an empty range.
                guard end >= start + 0.001, end <= asset.duration.seconds + 0.001 else {
                    throw ReelError(.invalidArgument,
                                    "\(end) s is not after the start (\(start) s) and within the file (\(String(format: "%.3f", asset.duration.seconds)) s)",
                                    subject: "\(name).range.end")
                }
                range = MediaTimeRange(start: MediaTime(seconds: start, preferredTimescale: 90000),
                                       end: MediaTime(seconds: end, preferredTimescale: 90000))
            }
            if let speed = clip.speed, !(speed >= 1.0 / 16 && speed <= 16) {
                throw ReelError(.invalidArgument, "wants a number from 1/16 to 16, not \(speed)", subject: "\(name).speed")
            }
            // Without a range, the clip lasts as long as its picture.
            var sequenceClip = ClipSequence.Clip(asset: asset, range: range ?? ClipSequence.Clip.pictureRange(of: asset),
                                                 speed: clip.speed ?? 1)
            try Self.place(&sequenceClip, clip, at: name)
            sequenceClips.append(sequenceClip)
            if index < clips.count - 1 {
                transitions.append(try Self.transition(clip.transition, at: "\(name).transition"))
            }
        }
        var size: Size?
        if let renderSize {
            guard (16...8192).contains(renderSize.width), (16...8192).contains(renderSize.height),
                  renderSize.width % 2 == 0, renderSize.height % 2 == 0 else {
                throw ReelError(.invalidArgument, "wants even sides from 16 to 8192, not \(renderSize.width)x\(renderSize.height)",
                                subject: "renderSize")
            }
            size = Size(width: renderSize.width, height: renderSize.height)
        }
        var presetValue = ExportPreset.highestQuality
        if let name = preset {
            guard let found = ExportPreset.allCases.first(where: { $0.rawValue == name }), found != .passthrough else {
                throw ReelError(.invalidArgument, "'\(ReelError.quoted(name))' is not a rendering preset (\(ExportPreset.allCases.dropFirst().map(\.rawValue).joined(separator: ", ")))",
                                subject: "preset")
            }
            presetValue = found
        }
        var frameDuration: MediaTime?
        if let rate = frameRate {
            guard rate >= 1, rate <= 240 else {
                throw ReelError(.invalidArgument, "wants 1 to 240 frames a second, not \(rate)", subject: "frameRate")
            }
            frameDuration = VideoComposition.frameDuration(forRate: rate)
        }
        let sequence: ClipSequence
        do {
            // The sequence puts the clips that start inside a transition on this frame grid.
            sequence = try ClipSequence(clips: sequenceClips, transitions: transitions.isEmpty ? [.none] : transitions,
                                        renderSize: size, frameDuration: frameDuration)
        } catch {
            throw error
        }
        var video = sequence.videoComposition
        try applyClipLooks(to: &video, tracks: sequence.composition.tracks(withMediaType: .video).map(\.trackID),
                           clipRanges: sequence.clipRanges, resolve: url)
        if let overlays, !overlays.isEmpty {
            let root = OverlayLayer(frame: Rect(origin: .zero, size: video.renderSize))
            for (index, overlay) in overlays.enumerated() {
                root.addSublayer(try Self.layer(overlay, at: "overlays[\(index)]", resolve: url))
            }
            video.animationTool = root
        }
        var mix = sequence.audioMix
        let composition = sequence.composition
        // Each clip's own volume and fades, times the transitions' crossfades.
        try applyClipSound(to: &mix, tracks: composition.tracks(withMediaType: .audio).prefix(2).map(\.trackID),
                           ranges: sequence.clipRanges, assets: sequenceClips.map(\.asset))
        video.subtitleBurnIn = try subtitleBurnIn(relativeTo: folder, duration: composition.duration)
        if let volume = audio?.volume {
            guard (0...4).contains(volume) else {
                throw ReelError(.invalidArgument, "wants 0 to 4, not \(volume)", subject: "audio.volume")
            }
            // Every ramp scaled, the transitions' crossfades too: a volume set at zero alone held
            // only until the first crossfade, whose ramps end at 1 (a 0.25 came out at 1 after it).
            for index in mix.inputParameters.indices { mix.inputParameters[index].scaleVolumes(by: volume) }
        }
        // Layers over the main track, their sound at their own volume (not audio.volume's).
        let layerTracks = try addLayers(to: composition, video: &video, mix: &mix, resolve: url)
        var musicTrackID: Int?
        if let music = audio?.music {
            try Self.addMusic(music, to: composition, mix: &mix, resolve: url)
            musicTrackID = mix.inputParameters.last?.trackID
        }
        return BuiltComposition(composition: composition, videoComposition: video, audioMix: mix, preset: presetValue,
                                clipRanges: sequence.clipRanges, musicTrackID: musicTrackID, layerTracks: layerTracks)
    }

    /// The most characters an overlay's text may have.
    static let longestText = 2000

    /// The codecs of still picture files.
    static let stillCodecs: Set<String> = ["mjpeg", "png", "webp", "bmp", "tiff", "jpeg2000"]

    /// The sequence clip of a still picture (a file of one picture in a picture codec), or nil
    /// for a video. A still shows for its `duration` (5 s by default), turned by its EXIF
    /// orientation, and takes no range, speed or stabilizing.
    static func stillClip(_ clip: Clip, asset: Asset, at name: String) throws(ReelError) -> ClipSequence.Clip? {
        guard let video = asset.tracks(withMediaType: .video).first, stillCodecs.contains(video.codec),
              video.frameCount <= 1, asset.tracks(withMediaType: .audio).isEmpty else { return nil }
        for (key, given) in [("range", clip.range != nil), ("speed", clip.speed != nil), ("stabilize", clip.stabilize != nil),
                             ("freeze", clip.freeze != nil), ("reverse", clip.reverse == true)] where given {
            throw ReelError(.invalidArgument, "a still picture has no \(key); it shows for its duration", subject: "\(name).\(key)")
        }
        let seconds = clip.duration ?? 5
        guard let rule = numberRules["clips[].duration"], rule.admits(seconds) else {
            throw ReelError(.invalidArgument, "wants a number above 0 and at most 86400 seconds, not \(Self.format(seconds))",
                            subject: "\(name).duration")
        }
        var still = ClipSequence.Clip(still: asset, duration: MediaTime(seconds: seconds, preferredTimescale: 90000),
                                      orientation: ImageMetadata.orientation(ofPictureAt: asset.url))
        try place(&still, clip, at: name)
        return still
    }

    /// A clip's `fit`, `kenBurns` and `freeze` onto its sequence clip.
    static func place(_ target: inout ClipSequence.Clip, _ clip: Clip, at name: String) throws(ReelError) {
        if let freeze = clip.freeze {
            for (key, value) in [("at", freeze.at), ("duration", freeze.duration)] {
                if let rule = numberRules["clips[].freeze.\(key)"], !rule.admits(value) { throw rule.refusal(value, at: "\(name).freeze.\(key)") }
            }
            target.freeze = (MediaTime(seconds: freeze.at, preferredTimescale: 90000), MediaTime(seconds: freeze.duration, preferredTimescale: 90000))
        }
        if let fit = clip.fit {
            guard let value = ClipSequence.Fit(rawValue: fit) else {
                throw ReelError(.invalidArgument, "is contain, cover or fill, not '\(ReelError.quoted(fit))'", subject: "\(name).fit")
            }
            target.fit = value
        }
        guard let kenBurns = clip.kenBurns else { return }
        var rects: [Rect] = []
        for (key, frame) in [("start", kenBurns.start), ("end", kenBurns.end)] {
            let rect = Rect(x: frame.x, y: frame.y, width: frame.width, height: frame.height)
            guard [rect.minX, rect.minY].allSatisfy({ fractionRule.admits($0) }), [rect.width, rect.height].allSatisfy({ partRule.admits($0) }),
                  rect.maxX <= 1 + 1e-9, rect.maxY <= 1 + 1e-9 else {
                throw ReelError(.invalidArgument, "wants a part of the picture: x, y from 0, width, height above 0, inside 1 by 1",
                                subject: "\(name).kenBurns.\(key)")
            }
            rects.append(rect)
        }
        let timing = try kenBurns.easing?.timingFunctions(segments: 1, at: "\(name).kenBurns.easing").first ?? .linear
        target.motion = ClipSequence.Motion(start: rects[0], end: rects[1], timingFunction: timing)
    }

    static func transition(_ spec: TransitionSpec?, at path: String) throws(ReelError) -> Transition {
        guard let spec else { return .none }
        let seconds = spec.duration ?? 1
        guard seconds > 0, seconds <= 60 else {
            throw ReelError(.invalidArgument, "wants more than 0 and at most 60 seconds, not \(seconds)", subject: "\(path).duration")
        }
        let duration = MediaTime(seconds: seconds, preferredTimescale: 600)
        var direction = Transition.Direction.left
        if let name = spec.direction {
            guard let parsed = Transition.Direction(rawValue: name) else {
                throw ReelError(.invalidArgument, "is left, right, up or down, not '\(ReelError.quoted(name))'", subject: "\(path).direction")
            }
            direction = parsed
        }
        switch spec.type {
        case "none": return .none
        case "dissolve": return .dissolve(duration: duration)
        case "push": return .push(duration: duration, direction: direction)
        case "slide": return .slide(duration: duration, direction: direction)
        case "wipe": return .wipe(duration: duration, direction: direction)
        case "fade": return .fadeThroughBlack(duration: duration)
        case "zoom": return .zoom(duration: duration)
        default:
            throw ReelError(.invalidArgument, "is none, dissolve, push, slide, wipe, fade or zoom, not '\(ReelError.quoted(spec.type))'",
                            subject: "\(path).type")
        }
    }

    static func colour(_ text: String?, at path: String) throws(ReelError) -> (Double, Double, Double) {
        let hex = (text ?? "#ffffff").trimmingCharacters(in: CharacterSet(charactersIn: "#"))
        guard hex.count == 6, let value = Int(hex, radix: 16) else {
            throw ReelError(.invalidArgument, "wants #RRGGBB, not '\(ReelError.quoted(text ?? ""))'", subject: path)
        }
        return (Double(value >> 16 & 0xFF) / 255, Double(value >> 8 & 0xFF) / 255, Double(value & 0xFF) / 255)
    }

    static func layer(_ overlay: Overlay, at path: String, resolve: (String) -> URL) throws(ReelError) -> OverlayLayer {
        let frame = Rect(x: overlay.frame.x, y: overlay.frame.y, width: overlay.frame.width, height: overlay.frame.height)
        guard frame.width > 0, frame.height > 0, frame.width <= 8192, frame.height <= 8192 else {
            throw ReelError(.invalidArgument, "wants a width and height from 0 to 8192", subject: "\(path).frame")
        }
        // The same rules as reading a spec applies, for a spec changed in code since.
        for (key, value) in [("x", overlay.frame.x), ("y", overlay.frame.y)] where !coordinateRule.admits(value) {
            throw coordinateRule.refusal(value, at: "\(path).frame.\(key)")
        }
        let content: OverlayLayer.Content
        switch overlay.type {
        case "color":
            let (r, g, b) = try colour(overlay.color, at: "\(path).color")
            content = .color(red: r, green: g, blue: b)
        case "text":
            guard let text = overlay.text, !text.isEmpty else {
                throw ReelError(.invalidArgument, "a text overlay needs text", subject: "\(path).text")
            }
            // A caption, not a book: every character is laid out and drawn on every frame it shows.
            guard text.count <= Self.longestText else {
                throw ReelError(.invalidArgument, "is \(text.count) characters; an overlay's text has at most \(Self.longestText) (split it into several overlays or use subtitles)",
                                subject: "\(path).text")
            }
            _ = try colour(overlay.color, at: "\(path).color")
            let size = overlay.fontSize ?? 32
            guard (1...1000).contains(size) else {
                throw ReelError(.invalidArgument, "wants 1 to 1000 pixels, not \(size)", subject: "\(path).fontSize")
            }
            content = .text(text, fontSize: size, color: overlay.color ?? "#ffffff")
        case "image":
            guard let file = overlay.file else {
                throw ReelError(.invalidArgument, "an image overlay needs a file", subject: "\(path).file")
            }
            do {
                let picture = try ImageGenerator(asset: try Asset(url: resolve(file))).image(at: .zero).image
                content = .image(picture)
            } catch {
                throw ReelError(error.code, error.message, subject: "\(path).file \(resolve(file).path)")
            }
        default:
            throw ReelError(.invalidArgument, "is color, text or image, not '\(ReelError.quoted(overlay.type))'", subject: "\(path).type")
        }
        let opacity = overlay.opacity ?? 1
        guard (0...1).contains(opacity) else {
            throw ReelError(.invalidArgument, "wants 0 to 1, not \(opacity)", subject: "\(path).opacity")
        }
        let layer = OverlayLayer(content: content, frame: frame, opacity: opacity)
        if let (style, reveal) = try textStyle(overlay, at: path) {
            layer.textStyle = style
            layer.textReveal = reveal
        }
        for (index, animation) in (overlay.animations ?? []).enumerated() {
            let place = "\(path).animations[\(index)]"
            guard let keyPath = KeyframeAnimation.KeyPath(rawValue: animation.property) else {
                throw ReelError(.invalidArgument, "is opacity, position, scale or rotation, not '\(ReelError.quoted(animation.property))'",
                                subject: "\(place).property")
            }
            guard !animation.values.isEmpty else { throw ReelError(.invalidArgument, "needs values", subject: "\(place).values") }
            if let times = animation.keyTimes {
                guard times.count == animation.values.count, zip(times, times.dropFirst()).allSatisfy({ $0 <= $1 }),
                      times.allSatisfy({ (0...1).contains($0) }) else {
                    throw ReelError(.invalidArgument, "wants one rising fraction from 0 to 1 per value (\(animation.values.count))",
                                    subject: "\(place).keyTimes")
                }
            }
            for (key, value) in [("begin", animation.begin), ("duration", animation.duration)] {
                if let rule = numberRules["overlays[].animations[].\(key)"], !rule.admits(value) {
                    throw rule.refusal(value, at: "\(place).\(key)")
                }
            }
            if let rule = animationValueRules[keyPath.rawValue] {
                for (valueIndex, value) in animation.values.enumerated() {
                    switch value {
                    case .number(let n) where keyPath != .position:
                        guard rule.admits(n) else { throw rule.refusal(n, at: "\(place).values[\(valueIndex)]") }
                    case .point(let x, let y) where keyPath == .position:
                        for c in [x, y] where !rule.admits(c) { throw rule.refusal(c, at: "\(place).values[\(valueIndex)]") }
                    default:
                        throw ReelError(.invalidArgument, keyPath == .position ? "a position is an [x, y] pair" : "wants single numbers",
                                        subject: "\(place).values[\(valueIndex)]")
                    }
                }
            }
            let points = animation.values.map { value -> Point in
                switch value {
                case .number(let n): Point(x: n, y: 0)
                case .point(let x, let y): Point(x: x, y: y)
                }
            }
            let timing = try animation.easing?.timingFunctions(segments: max(points.count - 1, 1), at: "\(place).easing") ?? []
            layer.add(KeyframeAnimation(keyPath: keyPath, points: points, keyTimes: animation.keyTimes ?? [],
                                        beginTime: animation.begin, duration: animation.duration,
                                        isRemovedOnCompletion: animation.removedOnCompletion ?? true, timingFunctions: timing))
        }
        return layer
    }

    static func addMusic(_ music: Music, to composition: MutableComposition, mix: inout AudioMix,
                         resolve: (String) -> URL) throws(ReelError) {
        let asset: Asset
        do {
            asset = try Asset(url: resolve(music.file))
        } catch {
            throw ReelError(error.code, error.message, subject: "audio.music.file \(resolve(music.file).path)")
        }
        guard let track = asset.tracks(withMediaType: .audio).first else {
            throw ReelError(.invalidData, "has no audio", subject: "audio.music.file \(asset.url.path)")
        }
        guard let musicTrack = composition.addMutableTrack(withMediaType: .audio) else { return }
        let length = min(composition.duration, track.timeRange.end)
        try musicTrack.insertTimeRange(MediaTimeRange(start: .zero, duration: length), of: track, at: .zero)
        var parameters = AudioMixInputParameters(trackID: musicTrack.trackID)
        let volume = music.volume ?? 1
        guard (0...4).contains(volume) else {
            throw ReelError(.invalidArgument, "wants 0 to 4, not \(volume)", subject: "audio.music.volume")
        }
        parameters.setVolume(volume, at: .zero)
        for (key, value) in [("fadeIn", music.fadeIn), ("fadeOut", music.fadeOut)] {
            if let value, !(value >= 0 && value <= 600) {
                throw ReelError(.invalidArgument, "wants 0 to 600 seconds, not \(value)", subject: "audio.music.\(key)")
            }
        }
        if let fadeIn = music.fadeIn, fadeIn > 0 {
            parameters.setVolumeRamp(fromStartVolume: 0, toEndVolume: volume,
                                     timeRange: MediaTimeRange(start: .zero, duration: MediaTime(seconds: fadeIn, preferredTimescale: 1000)))
        }
        if let fadeOut = music.fadeOut, fadeOut > 0 {
            let duration = MediaTime(seconds: fadeOut, preferredTimescale: 1000)
            parameters.setVolumeRamp(fromStartVolume: volume, toEndVolume: 0,
                                     timeRange: MediaTimeRange(start: length - duration, duration: duration))
        }
        mix.inputParameters.append(parameters)
    }
}

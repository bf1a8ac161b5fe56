import Foundation
import ReelAsset
import ReelCore

extension CompositionSpec {
    /// A clip drawn over the main track in a rectangle (picture in picture, or a whole-frame
    /// layer with alpha), with its own time, range, speed, opacity, animations, corners,
    /// border and sound. See "Video layers" in `docs/composition-spec.md`.
    public struct Layer: Codable, Sendable {
        /// A path, relative to the spec file.
        public var file: String
        /// Seconds on the composition's timeline where it starts (default 0).
        public var start: Double?
        /// Seconds into the file (default: all of its picture).
        public var range: Range?
        /// 1 is normal speed (1/16 to 16).
        public var speed: Double?
        /// The rectangle, in render pixels (top-left origin, y down).
        public var frame: Frame
        /// `contain` (default), `cover` or `fill`: how the picture fills the rectangle.
        public var fit: String?
        /// 0 to 1 (default 1).
        public var opacity: Double?
        /// The corners' radius in render pixels (default 0).
        public var cornerRadius: Double?
        /// A border inside the edge.
        public var border: Border?
        /// The layer's own sound, 0 to 4 (default 1).
        public var volume: Double?
        /// Keyframe animations of `opacity`, `position`, `scale` and `rotation`, as an overlay's.
        public var animations: [Animation]?
        /// A look: a filter chain as `reel filter --filter` takes it.
        public var filters: String?
        /// A colour keyed out, its cast taken off the rest.
        public var chromaKey: ChromaKeySpec?
        /// For an image sequence (`file` such as `frames/f-%04d.png`): frames a second, 1 to
        /// 240 (default 25).
        public var fps: Double?
    }

    /// A layer's border: its width in render pixels and its colour.
    public struct Border: Codable, Sendable {
        public var width: Double
        /// `#RRGGBB` (default white).
        public var color: String?
    }

    /// The keys of a layer's objects, beside ``knownKeys``.
    static let layerKnownKeys: [String: Set<String>] = [
        "layers[]": [
            "file", "start", "range", "speed", "frame", "fit", "opacity", "cornerRadius", "border", "volume", "animations",
            "filters", "chromaKey", "fps",
        ],
        "layers[].chromaKey": ["color", "similarity", "blend", "spill"],
        "clips[].chromaKey": ["color", "similarity", "blend", "spill"],
        "layers[].range": ["start", "end"],
        "layers[].frame": ["x", "y", "width", "height"],
        "layers[].border": ["width", "color"],
        "layers[].animations[]": ["property", "values", "keyTimes", "begin", "duration", "removedOnCompletion", "easing"],
        "layers[].animations[].easing": ["cubicBezier", "spring"],
        "layers[].animations[].easing[]": ["cubicBezier", "spring"],
        "layers[].animations[].easing.spring": ["mass", "stiffness", "damping", "initialVelocity"],
        "layers[].animations[].easing[].spring": ["mass", "stiffness", "damping", "initialVelocity"],
    ]

    /// Adds the spec's `layers` over the built main track, in order (each later one on top).
    /// - Parameters:
    ///   - composition: The edit.
    ///   - video: Its instructions.
    ///   - mix: The mix the layers' sound joins.
    ///   - resolve: Turns a spec path into a file URL.
    /// - Returns: The layers' track IDs and their names (`layer 0`, `layer 0 sound`).
    /// - Throws: ``ReelError`` naming the spec path (`layers[1].frame.width`).
    @discardableResult
    func addLayers(to composition: MutableComposition, video: inout VideoComposition, mix: inout AudioMix,
                   resolve: (String) -> URL) throws(ReelError) -> [Int: String] {
        var lanes: [Int: String] = [:]
        for (index, spec) in (layers ?? []).enumerated() {
            let name = "layers[\(index)]"
            let layer = try Self.videoLayer(spec, at: name, resolve: resolve)
            let before = Set(composition.tracks.map(\.trackID))
            try layer.insert(into: composition, videoComposition: &video, audioMix: &mix, name: name)
            for track in composition.tracks where !before.contains(track.trackID) {
                lanes[track.trackID] = track.mediaType == .audio ? "layer \(index) sound" : "layer \(index)"
            }
        }
        return lanes
    }

    /// The asset of a clip's or layer's `file`: a movie or picture, or an image sequence
    /// (`frames/f-%04d.png`) played at `fps` (25 when absent).
    /// - Parameters:
    ///   - file: The spec's path.
    ///   - fps: The spec's `fps`, for a sequence only.
    ///   - name: The clip's or layer's spec path (`layers[0]`).
    ///   - resolve: Turns a spec path into a file URL.
    /// - Returns: The asset.
    /// - Throws: ``ReelError`` naming `name.fps` for a rate given to a movie or out of range,
    ///   and `name.file` for a file or pattern that cannot be read.
    static func openAsset(_ file: String, fps: Double?, at name: String, resolve: (String) -> URL) throws(ReelError) -> Asset {
        let url = resolve(file)
        let sequence = Asset.isImageSequence(url)
        if let fps {
            guard sequence else {
                throw ReelError(.invalidArgument, "is for an image sequence (frames/f-%04d.png); a movie plays at its own rate",
                                subject: "\(name).fps")
            }
            if let rule = numberRules["layers[].fps"], !rule.admits(fps) { throw rule.refusal(fps, at: "\(name).fps") }
        }
        do {
            return sequence ? try Asset(imageSequence: url, frameRate: fps ?? 25) : try Asset(url: url)
        } catch {
            throw ReelError(error.code, error.message, subject: "\(name).file \(url.path)")
        }
    }

    /// A spec layer checked and made into a ``VideoLayer``.
    static func videoLayer(_ spec: Layer, at name: String, resolve: (String) -> URL) throws(ReelError) -> VideoLayer {
        let asset = try openAsset(spec.file, fps: spec.fps, at: name, resolve: resolve)
        guard asset.duration.isNumeric, asset.duration > .zero, !asset.tracks(withMediaType: .video).isEmpty else {
            throw ReelError(
                .invalidArgument,
                asset.tracks(withMediaType: .video).isEmpty
                    ? "has no video"
                    : "lasts 0 s: a layer is a movie (a still picture is an image overlay)",
                subject: "\(name).file \(asset.url.path)")
        }
        if let video = asset.tracks(withMediaType: .video).first, stillCodecs.contains(video.codec), video.frameCount <= 1 {
            throw ReelError(.invalidArgument, "is a still picture: a layer is a movie (a picture goes in overlays[] as an image)",
                            subject: "\(name).file \(asset.url.path)")
        }
        let start = spec.start ?? 0
        guard secondsRule.admits(start) else { throw secondsRule.refusal(start, at: "\(name).start") }
        var range: MediaTimeRange?
        if let r = spec.range {
            let from = r.start ?? 0
            let to = r.end ?? (ClipSequence.Clip.pictureRange(of: asset)?.end.seconds ?? asset.duration.seconds)
            guard secondsRule.admits(from), from < asset.duration.seconds else {
                throw ReelError(
                    .invalidArgument,
                    "\(format(from)) s is not inside the file (\(String(format: "%.3f", asset.duration.seconds)) s)",
                    subject: "\(name).range.start")
            }
            guard to.isFinite, to >= from + 0.001, to <= asset.duration.seconds + 0.001 else {
                throw ReelError(
                    .invalidArgument,
                    "\(format(to)) s is not after the start (\(format(from)) s) and within the file (\(String(format: "%.3f", asset.duration.seconds)) s)",
                    subject: "\(name).range.end")
            }
            range = MediaTimeRange(
                start: MediaTime(seconds: from, preferredTimescale: 90000),
                end: MediaTime(seconds: to, preferredTimescale: 90000))
        }
        let speed = spec.speed ?? 1
        guard speed.isFinite, speed >= 1.0 / 16, speed <= 16 else {
            throw ReelError(.invalidArgument, "wants a number from 1/16 to 16, not \(format(speed))", subject: "\(name).speed")
        }
        for (key, value) in [("x", spec.frame.x), ("y", spec.frame.y)] where !coordinateRule.admits(value) {
            throw coordinateRule.refusal(value, at: "\(name).frame.\(key)")
        }
        let sideRule = NumberRule(range: 0...8192, aboveLowerBound: true, words: "above 0 and at most 8192 pixels")
        for (key, value) in [("width", spec.frame.width), ("height", spec.frame.height)] where !sideRule.admits(value) {
            throw sideRule.refusal(value, at: "\(name).frame.\(key)")
        }
        let frame = Rect(x: spec.frame.x, y: spec.frame.y, width: spec.frame.width, height: spec.frame.height)
        var layer = VideoLayer(
            asset: asset, range: range, start: MediaTime(seconds: start, preferredTimescale: 90000),
            speed: speed, frame: frame)
        if let fit = spec.fit {
            guard let value = ClipSequence.Fit(rawValue: fit) else {
                throw ReelError(
                    .invalidArgument, "is contain, cover or fill, not '\(ReelError.quoted(fit))'", subject: "\(name).fit")
            }
            layer.fit = value
        }
        let unit = NumberRule(range: 0...1, words: "from 0 to 1")
        let opacity = spec.opacity ?? 1
        guard unit.admits(opacity) else { throw unit.refusal(opacity, at: "\(name).opacity") }
        layer.opacity = opacity
        let volume = spec.volume ?? 1
        let volumeRule = NumberRule(range: 0...4, words: "from 0 to 4")
        guard volumeRule.admits(volume) else { throw volumeRule.refusal(volume, at: "\(name).volume") }
        layer.volume = volume
        let pixels = NumberRule(range: 0...4096, words: "from 0 to 4096 pixels")
        let radius = spec.cornerRadius ?? 0
        guard pixels.admits(radius) else { throw pixels.refusal(radius, at: "\(name).cornerRadius") }
        layer.style.cornerRadius = radius
        if let border = spec.border {
            guard pixels.admits(border.width) else { throw pixels.refusal(border.width, at: "\(name).border.width") }
            let (r, g, b) = try colour(border.color, at: "\(name).border.color")
            layer.style.borderWidth = border.width
            layer.style.borderColor = (r, g, b)
        }
        if let look = try look(filters: spec.filters, key: spec.chromaKey, at: name, resolve: resolve) {
            layer.style.chromaKey = look.chromaKey
            layer.style.filterName = look.filterName
            layer.style.filterHandler = look.filterHandler
        }
        if let animations = spec.animations, !animations.isEmpty {
            // The overlay's checks and easing, through a stand-in overlay of the same frame.
            let model = Overlay(type: "color", frame: spec.frame, opacity: opacity, animations: animations)
            layer.animations = try Self.layer(model, at: name, resolve: resolve).animations
        }
        return layer
    }
}

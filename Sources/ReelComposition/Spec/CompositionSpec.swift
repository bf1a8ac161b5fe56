import Foundation

/// A composition written down: clips with ranges, speeds and transitions; overlays;
/// background music; the frame size, rate and export preset. `docs/composition-spec.md`
/// documents it with examples. Decoding checks every key, and errors name the spec
/// path (`clips[2].range.end`).
public struct CompositionSpec: Codable, Sendable {
    public struct Dimensions: Codable, Sendable {
        public var width: Int
        public var height: Int
    }

    public struct Range: Codable, Sendable {
        /// Seconds into the file.
        public var start: Double?
        /// Seconds into the file; the file's end when absent.
        public var end: Double?
    }

    public struct TransitionSpec: Codable, Sendable {
        /// `none`, `dissolve`, `push`, `slide`, `wipe`, `fade` or `zoom`.
        public var type: String
        /// Seconds of overlap.
        public var duration: Double?
        /// `left`, `right`, `up` or `down` for push, slide and wipe.
        public var direction: String?
    }

    public struct Clip: Codable, Sendable {
        /// A path, relative to the spec file.
        public var file: String
        public var range: Range?
        /// 1 is normal speed.
        public var speed: Double?
        /// The transition into the next clip.
        public var transition: TransitionSpec?
        /// Steadied before composing, with this strength (0 to 1, as `reel stabilize
        /// --strength`); nil leaves the clip as it is. ``build(relativeTo:)`` takes the
        /// clip's file as given: the caller puts the steadied copy in its place first.
        public var stabilize: Double?
        /// For a still picture (JPEG, PNG, WebP): how many seconds it shows (default 5).
        public var duration: Double?
        /// `contain` (default), `cover` or `fill`: how the picture fills the frame.
        public var fit: String?
        /// A move over the picture from one part to another.
        public var kenBurns: KenBurns?
        /// A freeze frame inside the clip.
        public var freeze: Freeze?
        /// Played backwards, picture and sound. As with `stabilize`, ``build(relativeTo:)``
        /// takes the file as given: the caller puts the reversed copy of the range in its
        /// place first (``ReversedCopy``), as `reel compose` does.
        public var reverse: Bool?
        /// A look: a filter chain as `reel filter --filter` takes it (see docs/composition-spec.md).
        public var filters: String?
        /// A colour keyed out, its cast taken off the rest.
        public var chromaKey: ChromaKeySpec?
        /// `true` plays the range forwards then backwards (``expandingBoomerangs()``).
        public var boomerang: Bool?
        /// For an image sequence (`file` such as `frames/f-%04d.png`): frames a second, 1 to
        /// 240 (default 25).
        public var fps: Double?
        /// The clip's own sound: its volume and fades (``ClipAudio``).
        public var audio: ClipAudio?
    }

    /// A clip's sound: a volume and fades at its start and end, in seconds of the clip as it
    /// plays; built as volume ramps of its audio track, multiplied into a transition's crossfade.
    public struct ClipAudio: Codable, Sendable {
        /// 0 to 4 (default 1), multiplied by `audio.volume`.
        public var volume: Double?
        /// Seconds from silence up to the volume at the clip's start.
        public var fadeIn: Double?
        /// Seconds from the volume down to silence at the clip's end.
        public var fadeOut: Double?
    }

    /// At `at` seconds into the clip as it plays, its picture holds for `duration` seconds
    /// while its sound pauses.
    public struct Freeze: Codable, Sendable {
        public var at: Double
        public var duration: Double
    }

    /// The parts of a clip's picture shown at its start and end, in fractions of the
    /// upright picture, and how the move between them eases.
    public struct KenBurns: Codable, Sendable {
        public var start: Frame
        public var end: Frame
        public var easing: Easings?
    }

    public struct Frame: Codable, Sendable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
    }

    public struct Animation: Codable, Sendable {
        /// `opacity`, `position`, `scale` or `rotation`.
        public var property: String
        /// Numbers, or `[x, y]` pairs for position.
        public var values: [AnimationValue]
        public var keyTimes: [Double]?
        /// Seconds on the composition's timeline.
        public var begin: Double
        public var duration: Double
        public var removedOnCompletion: Bool?
        /// How each segment eases (linear when absent): one easing for all, or one per segment.
        public var easing: Easings?
    }

    /// A number, or an `[x, y]` pair.
    public enum AnimationValue: Codable, Sendable {
        case number(Double)
        case point(Double, Double)

        /// Reads a number, or a two-number array as a point.
        /// - Parameter decoder: The JSON decoder.
        /// - Throws: `DecodingError` for anything else.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
                return
            }
            let pair = try container.decode([Double].self)
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a point is [x, y]")
            }
            self = .point(pair[0], pair[1])
        }

        /// Writes the number, or the point as `[x, y]`.
        /// - Parameter encoder: The JSON encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let value): try container.encode(value)
            case .point(let x, let y): try container.encode([x, y])
            }
        }
    }

    public struct Overlay: Codable, Sendable {
        /// `color`, `text` or `image`.
        public var type: String
        public var frame: Frame
        public var opacity: Double?
        /// `#RRGGBB` for colour layers and text.
        public var color: String?
        public var text: String?
        public var fontSize: Int?
        /// A picture file (PNG or JPEG), relative to the spec file.
        public var file: String?
        public var animations: [Animation]?
        /// Styled text (`docs/composition-spec.md`, "Styled text"): a fontconfig family name.
        public var font: String?
        /// 100 to 900 (400 regular, 700 bold).
        public var weight: Int?
        public var stroke: TextStroke?
        public var shadow: TextShadow?
        public var box: TextBox?
        /// `left` (default), `center` or `right`.
        public var align: String?
        /// Whether lines break between words within the frame's width (default true).
        public var wrap: Bool?
        /// Baseline distance as a multiple of the font's line height (default 1).
        public var lineSpacing: Double?
        /// Words or lines appearing one at a time.
        public var reveal: TextRevealSpec?
    }

    /// How the music ducks under the clips' sound.
    public struct Duck: Codable, Sendable {
        /// dB the music goes down, above 0 and at most 60 (default 12).
        public var amount: Double?
        /// The clips' level that counts as sound, dBFS from -80 to 0 (default -35).
        public var threshold: Double?
        /// Seconds to go down, 0 to 5 (default 0.1); and to come back, 0 to 10 (default 0.5).
        public var attack: Double?
        public var release: Double?
    }

    public struct Music: Codable, Sendable {
        /// Lowered while the clips' own sound plays.
        public var duck: Duck?
        public var file: String
        /// 0 to 1 (default 1).
        public var volume: Double?
        /// Seconds of fade at the start and at the end.
        public var fadeIn: Double?
        public var fadeOut: Double?
    }

    public struct Audio: Codable, Sendable {
        /// The clips' own sound, 0 to 1 (default 1).
        public var volume: Double?
        public var music: Music?
        /// The output's integrated loudness in LUFS (EBU R128), -70 to -5; as it is.
        public var loudness: Double?
    }

    /// For a GIF, WebP or PNG-sequence output: palettes, dithering, loops.
    public struct AnimatedOutput: Codable, Sendable {
        /// `file` (one palette, default) or `scene` (one per clip), for a GIF.
        public var palette: String?
        /// `paletteuse`'s dithering for a GIF: `sierra2_4a` (default), `sierra2`,
        /// `floyd_steinberg`, `bayer`, `heckbert` or `none`.
        public var dither: String?
        /// How many more times it plays; 0 (default) for ever.
        public var loop: Int?
    }

    public var renderSize: Dimensions?
    public var frameRate: Double?
    /// An export preset name (`640x480`, `1280x720`, `highest`…).
    public var preset: String?
    public var clips: [Clip]
    public var overlays: [Overlay]?
    /// Clips drawn over the main track in rectangles of their own (``Layer``).
    public var layers: [Layer]?
    public var audio: Audio?
    /// How a GIF, WebP or PNG-sequence output is written (ignored for a movie).
    public var animation: AnimatedOutput?
    /// Subtitles burned in or written as a soft track.
    public var subtitles: Subtitles?

    /// The keys each object may have, to catch typos that decoding would skip over.
    static let knownKeys: [String: Set<String>] = [
        "": ["renderSize", "frameRate", "preset", "clips", "overlays", "audio", "animation", "layers"],
        "animation": ["palette", "dither", "loop"],
        "renderSize": ["width", "height"],
        "clips[]": ["file", "range", "speed", "transition", "stabilize", "duration", "fit", "kenBurns", "freeze", "reverse", "filters", "chromaKey", "boomerang", "fps", "audio"],
        "clips[].audio": ["volume", "fadeIn", "fadeOut"],
        "clips[].freeze": ["at", "duration"],
        "clips[].kenBurns": ["start", "end", "easing"],
        "clips[].kenBurns.start": ["x", "y", "width", "height"],
        "clips[].kenBurns.end": ["x", "y", "width", "height"],
        "clips[].kenBurns.easing": ["cubicBezier", "spring"],
        "clips[].kenBurns.easing[]": ["cubicBezier", "spring"],
        "clips[].kenBurns.easing.spring": ["mass", "stiffness", "damping", "initialVelocity"],
        "clips[].kenBurns.easing[].spring": ["mass", "stiffness", "damping", "initialVelocity"],
        "clips[].range": ["start", "end"],
        "clips[].transition": ["type", "duration", "direction"],
        "overlays[]": ["type", "frame", "opacity", "color", "text", "fontSize", "file", "animations"],
        "overlays[].frame": ["x", "y", "width", "height"],
        "overlays[].animations[]": ["property", "values", "keyTimes", "begin", "duration", "removedOnCompletion", "easing"],
        "overlays[].animations[].easing": ["cubicBezier", "spring"],
        "overlays[].animations[].easing[]": ["cubicBezier", "spring"],
        "overlays[].animations[].easing.spring": ["mass", "stiffness", "damping", "initialVelocity"],
        "overlays[].animations[].easing[].spring": ["mass", "stiffness", "damping", "initialVelocity"],
        "audio": ["volume", "music", "loudness"],
        "audio.music": ["file", "volume", "fadeIn", "fadeOut", "duck"],
        "audio.music.duck": ["amount", "threshold", "attack", "release"],
    ]
}

public import ReelCore

/// How a layer's picture is drawn beyond its transform, opacity and crop: its own alpha,
/// rounded corners, a border, a chroma key and a look. Reel's addition to
/// ``VideoCompositionLayerInstruction`` (AVFoundation leaves these to Core Animation and
/// Core Image); a layer with a style is decoded with its alpha and drawn through it.
public struct LayerStyle: Sendable, Equatable {
    /// A frame handed to a layer's ``filterHandler``: its source picture (RGBA, the size it is
    /// drawn at) and the composition time. `AVAsynchronousCIImageFilteringRequest`.
    public struct FilteringRequest: Sendable {
        /// The layer's picture, RGBA with its alpha.
        public let sourceImage: PixelBuffer
        /// The time of the output frame. `compositionTime`.
        public let compositionTime: MediaTime

        /// A request for one picture.
        /// - Parameters:
        ///   - sourceImage: The picture to filter.
        ///   - compositionTime: The output frame's time.
        public init(sourceImage: PixelBuffer, compositionTime: MediaTime) {
            self.sourceImage = sourceImage
            self.compositionTime = compositionTime
        }
    }

    /// Makes the pixels near one colour transparent, and takes that colour's cast off the rest.
    public struct ChromaKey: Sendable, Equatable {
        /// The key colour, R, G, B from 0 to 1.
        public var red: Double
        public var green: Double
        public var blue: Double
        /// How near the key (distance in Cb/Cr, 0 to 1) a pixel is wholly transparent.
        public var similarity: Double
        /// Over how much more distance it turns opaque (0: a hard edge).
        public var blend: Double
        /// How much of the key colour's cast is taken off what stays (0 none, 1 all).
        public var spill: Double

        /// A key.
        /// - Parameters:
        ///   - red: The key colour's red, 0 to 1.
        ///   - green: Its green.
        ///   - blue: Its blue.
        ///   - similarity: The chroma distance (0 to 1) within which pixels vanish.
        ///   - blend: The further distance over which they come back.
        ///   - spill: How much of the key's cast is removed from the rest, 0 to 1.
        public init(
            red: Double, green: Double, blue: Double, similarity: Double = 0.25, blend: Double = 0.1,
            spill: Double = 1
        ) {
            self.red = red
            self.green = green
            self.blue = blue
            self.similarity = similarity
            self.blend = blend
            self.spill = spill
        }
    }

    /// Rounded corners' radius, in render pixels (`CALayer.cornerRadius`); 0 square.
    public var cornerRadius: Double
    /// A border drawn inside the edge, in render pixels (`CALayer.borderWidth`); 0 none.
    public var borderWidth: Double
    /// The border's colour, R, G, B from 0 to 1 (`CALayer.borderColor`).
    public var borderColor: (red: Double, green: Double, blue: Double)
    /// A colour keyed out before the look.
    public var chromaKey: ChromaKey?
    /// The look: each picture, after the key, goes through it and is drawn as it returns
    /// it (its size and format kept: RGBA). `applyingCIFiltersWithHandler`'s closure, per layer.
    public var filterHandler: (@Sendable (FilteringRequest) throws(ReelError) -> PixelBuffer)?
    /// Tells two styles with handlers apart (closures cannot be compared).
    public var filterName: String
    /// Whether the picture is laid on the instruction's background colour before it is drawn:
    /// where it is transparent the background shows, and the layer is then one opaque picture
    /// that its opacity, crop and transform move as a whole. A main clip whose pixels carry
    /// alpha (a PNG sequence, ProRes 4444) is drawn so by ``ClipSequence``: alone it shows the
    /// background through its clear parts, as AVFoundation shows a clip with alpha over an
    /// empty background, and a dissolve out of it mixes that picture with the next clip's
    /// rather than letting the next clip show through its holes at once. False by default:
    /// the layer's alpha lets the layers under it show.
    public var isMattedOnBackground = false

    /// A style.
    /// - Parameters:
    ///   - cornerRadius: The corners' radius in render pixels.
    ///   - borderWidth: The border's width in render pixels, drawn inside the edge.
    ///   - borderColor: The border's colour.
    ///   - chromaKey: A colour to key out.
    ///   - filterName: A name for the look (what `==` compares for the handler).
    ///   - filterHandler: The look, applied to every picture.
    public init(
        cornerRadius: Double = 0, borderWidth: Double = 0,
        borderColor: (red: Double, green: Double, blue: Double) = (1, 1, 1), chromaKey: ChromaKey? = nil,
        filterName: String = "", filterHandler: (@Sendable (FilteringRequest) throws(ReelError) -> PixelBuffer)? = nil
    ) {
        self.cornerRadius = cornerRadius
        self.borderWidth = borderWidth
        self.borderColor = borderColor
        self.chromaKey = chromaKey
        self.filterName = filterName
        self.filterHandler = filterHandler
    }

    /// Whether two styles draw alike (the handlers by ``filterName``).
    /// - Parameters:
    ///   - lhs: A style.
    ///   - rhs: Another.
    /// - Returns: True when every property but the handler is equal, and both or neither have one.
    public static func == (lhs: LayerStyle, rhs: LayerStyle) -> Bool {
        lhs.cornerRadius == rhs.cornerRadius && lhs.borderWidth == rhs.borderWidth && lhs.borderColor == rhs.borderColor
            && lhs.chromaKey == rhs.chromaKey && lhs.filterName == rhs.filterName
            && (lhs.filterHandler == nil) == (rhs.filterHandler == nil)
            && lhs.isMattedOnBackground == rhs.isMattedOnBackground
    }
}

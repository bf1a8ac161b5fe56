public import ReelCore

/// How one track is drawn during an instruction: its opacity, transform and crop over
/// time. `AVMutableVideoCompositionLayerInstruction`, as a value.
public struct VideoCompositionLayerInstruction: Sendable, Equatable {
    /// The composition track this layer shows. `trackID`.
    public var trackID: Int
    /// The transform before the first `setTransform` time: the identity unless set here
    /// (AVFoundation holds the identity there, and so does ``init(assetTrack:)``).
    public var initialTransform: ReelCore.AffineTransform
    private(set) var opacityRamps: [Ramp<Double>] = []
    private(set) var transformRamps: [Ramp<ReelCore.AffineTransform>] = []
    private(set) var cropRamps: [Ramp<Rect>] = []
    /// Reel's addition: the layer's own alpha, corners, border, key and look (``LayerStyle``);
    /// nil draws it as AVFoundation does, opaque and square.
    public var style: LayerStyle?

    /// A layer for `trackID`, fully opaque, with `transform` until a `setTransform` time.
    /// - Parameters:
    ///   - trackID: the composition track the layer shows.
    ///   - transform: the transform before the first set time; the identity by default, as
    ///     AVFoundation documents.
    public init(trackID: Int, transform: ReelCore.AffineTransform = .identity) {
        self.trackID = trackID
        initialTransform = transform
    }

    /// A layer for `track` with no transform, opacity or crop set: the identity, opaque,
    /// the whole picture. The track's `preferredTransform` is not applied (AVFoundation's
    /// layer instruction starts "with no transform or opacity ramps").
    /// `init(assetTrack:)` / `videoCompositionLayerInstructionWithAssetTrack:`.
    /// - Parameter track: The composition track the layer shows.
    public init(assetTrack track: CompositionTrack) {
        self.init(trackID: track.trackID)
    }

    /// The earliest time any transform, opacity or crop was set or began to ramp, or nil
    /// when none was. Where several layers of one instruction name the same track, a layer
    /// shows from this time on (see ``VideoCompositionInstruction/layers(showingAt:)``).
    public var firstSetTime: MediaTime? {
        let starts = opacityRamps.map(\.timeRange.start) + transformRamps.map(\.timeRange.start)
            + cropRamps.map(\.timeRange.start)
        return starts.min()
    }

    /// From `time` on, opacity is `opacity`. `setOpacity(_:at:)`.
    /// - Parameters:
    ///   - opacity: 0 (hidden) to 1.
    ///   - time: When it takes effect.
    public mutating func setOpacity(_ opacity: Double, at time: MediaTime) {
        insert(Ramp(timeRange: MediaTimeRange(start: time, duration: .zero), start: opacity, end: opacity), into: &opacityRamps)
    }

    /// Opacity moves linearly over `timeRange`. `setOpacityRamp(fromStartOpacity:toEndOpacity:timeRange:)`.
    /// - Parameters:
    ///   - start: The opacity at the range's start.
    ///   - end: The opacity at its end, held after it.
    ///   - timeRange: When the fade happens.
    public mutating func setOpacityRamp(fromStartOpacity start: Double, toEndOpacity end: Double,
                                        timeRange: MediaTimeRange) {
        insert(Ramp(timeRange: timeRange, start: start, end: end), into: &opacityRamps)
    }

    /// From `time` on, the transform is `transform`. `setTransform(_:at:)`.
    /// - Parameters:
    ///   - transform: Maps source pixels to render pixels.
    ///   - time: When it takes effect.
    public mutating func setTransform(_ transform: ReelCore.AffineTransform, at time: MediaTime) {
        insert(Ramp(timeRange: MediaTimeRange(start: time, duration: .zero), start: transform, end: transform),
               into: &transformRamps)
    }

    /// The transform moves over `timeRange`, each component linearly.
    /// `setTransformRamp(fromStart:toEnd:timeRange:)`.
    /// - Parameters:
    ///   - start: The transform at the range's start.
    ///   - end: The transform at its end, held after it.
    ///   - timeRange: When the move happens.
    public mutating func setTransformRamp(fromStart start: ReelCore.AffineTransform, toEnd end: ReelCore.AffineTransform,
                                          timeRange: MediaTimeRange) {
        insert(Ramp(timeRange: timeRange, start: start, end: end), into: &transformRamps)
    }

    /// From `time` on, only `rect` of the source shows. `setCropRectangle(_:at:)`.
    /// - Parameters:
    ///   - rect: The part of the source picture to show, in source pixels.
    ///   - time: When it takes effect.
    public mutating func setCropRectangle(_ rect: Rect, at time: MediaTime) {
        insert(Ramp(timeRange: MediaTimeRange(start: time, duration: .zero), start: rect, end: rect), into: &cropRamps)
    }

    /// The crop moves over `timeRange`. `setCropRectangleRamp(fromStartCropRectangle:toEndCropRectangle:timeRange:)`.
    /// - Parameters:
    ///   - start: The crop at the range's start.
    ///   - end: The crop at its end, held after it.
    ///   - timeRange: When the crop moves.
    public mutating func setCropRectangleRamp(fromStartCropRectangle start: Rect, toEndCropRectangle end: Rect,
                                              timeRange: MediaTimeRange) {
        insert(Ramp(timeRange: timeRange, start: start, end: end), into: &cropRamps)
    }

    /// Opacity at `time`, 0 to 1.
    /// - Parameter time: The composition time.
    /// - Returns: The opacity the compositor draws the layer with.
    public func opacity(at time: MediaTime) -> Double {
        value(of: opacityRamps, at: time, initial: 1) { a, b, f in a + (b - a) * f }
    }

    /// Transform at `time`.
    /// - Parameter time: The composition time.
    /// - Returns: The transform from source pixels to render pixels.
    public func transform(at time: MediaTime) -> ReelCore.AffineTransform {
        value(of: transformRamps, at: time, initial: initialTransform) { a, b, f in
            ReelCore.AffineTransform(a: a.a + (b.a - a.a) * f, b: a.b + (b.b - a.b) * f, c: a.c + (b.c - a.c) * f,
                                     d: a.d + (b.d - a.d) * f, tx: a.tx + (b.tx - a.tx) * f, ty: a.ty + (b.ty - a.ty) * f)
        }
    }

    /// Crop rectangle at `time` in source pixels, or nil for the whole picture (before the
    /// first crop time, as AVFoundation holds the source's full dimensions there). An
    /// empty rectangle (`.zero`, as seed 003 sets at a clip's end) shows nothing.
    /// - Parameter time: The composition time.
    /// - Returns: The rectangle of the source shown.
    public func cropRectangle(at time: MediaTime) -> Rect? {
        guard !cropRamps.isEmpty, cropRamps.contains(where: { $0.timeRange.start <= time }) else { return nil }
        return value(of: cropRamps, at: time, initial: .zero) { a, b, f in
            Rect(x: a.origin.x + (b.origin.x - a.origin.x) * f, y: a.origin.y + (b.origin.y - a.origin.y) * f,
                 width: a.size.width + (b.size.width - a.size.width) * f,
                 height: a.size.height + (b.size.height - a.size.height) * f)
        }
    }

    /// Keeps ramps ordered by start; a ramp starting where another does replaces it.
    private func insert<Value>(_ ramp: Ramp<Value>, into ramps: inout [Ramp<Value>]) {
        ramps.removeAll { $0.timeRange.start == ramp.timeRange.start }
        let index = ramps.firstIndex { $0.timeRange.start > ramp.timeRange.start } ?? ramps.count
        ramps.insert(ramp, at: index)
    }
}

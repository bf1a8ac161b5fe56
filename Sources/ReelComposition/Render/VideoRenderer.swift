import Foundation
import ReelAsset
import ReelCore

/// Renders a composition's frames, in time order, at an output size: each visible
/// track's source is decoded already scaled toward the size it is drawn at, then the
/// layers are composed back to front with their ramps, and the overlays on top.
final class VideoRenderer {
    let composition: MutableComposition
    let videoComposition: VideoComposition
    let outputWidth: Int
    let outputHeight: Int
    /// Render-size pixels to output pixels.
    let outputScale: (x: Double, y: Double)
    /// The output's YCbCr matrix (BT.601 below 720 lines, ``ColorMatrix``): sources are decoded
    /// into it and overlays converted by it, as the encoder tags the file.
    let matrix: ColorMatrix
    /// Decoded frames each source may read ahead on its own thread; 0 decodes on the caller's.
    let readAhead: Int
    /// The earliest time that will be asked for (a player's seek): sources open there
    /// rather than at their segment's start. Zero for an export.
    var startTime: MediaTime = .zero
    /// The only times ``frame(at:)`` will be asked for, when known (an export's frames): the
    /// sources then skip the pictures none of them shows (a fast-forward's). Set before the
    /// first frame.
    var frameGrid: FrameGrid?
    private let pool: PixelBufferPool
    private struct SourceKey: Hashable {
        var trackID: Int
        var segmentIndex: Int
    }
    private var sources: [SourceKey: TrackFrameSource] = [:]
    private var textCache: [ObjectIdentifier: PixelBuffer] = [:]
    private var styledText = StyledTextCache()
    private var subtitles: SubtitleBurnInRenderer?

    /// - Parameter readAhead: how many decoded frames each visible source may hold ready,
    ///   decoded on a thread of its own; 0 (the default, for random access) decodes each
    ///   frame on the caller's thread when asked for. The frames are the same either way.
    init(composition: MutableComposition, videoComposition: VideoComposition, outputWidth: Int,
         outputHeight: Int, readAhead: Int = 0) throws(ReelError) {
        self.composition = composition
        self.videoComposition = videoComposition
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.readAhead = readAhead
        matrix = ColorMatrix(height: outputHeight)
        outputScale = (Double(outputWidth) / videoComposition.renderSize.width,
                       Double(outputHeight) / videoComposition.renderSize.height)
        // A 3840x2160 frame is 12 MB: a large render keeps fewer spare.
        let spare = outputWidth * outputHeight > RenderMemory.largeFrameArea ? 3 : 8
        pool = try PixelBufferPool(width: outputWidth, height: outputHeight, pixelFormat: .yuv420p, maximumFreeBuffers: spare)
    }

    /// The frame at composition time `time`.
    func frame(at time: MediaTime) throws(ReelError) -> PixelBuffer {
        let frame = pool.makePixelBuffer()
        currentFrameTime = time
        let instruction = videoComposition.instruction(at: time)
        let background = instruction?.backgroundColor ?? (red: 0, green: 0, blue: 0)
        Compositor.clear(frame, red: background.red, green: background.green, blue: background.blue, matrix: matrix)
        if let instruction, let compositor = videoComposition.customVideoCompositor {
            var sources: [Int: PixelBuffer] = [:]
            let toOutput = ReelCore.AffineTransform(scaleX: outputScale.x, y: outputScale.y)
            for layer in instruction.layers(showingAt: time) {
                guard let track = composition.track(withTrackID: layer.trackID),
                      let index = track.segments.firstIndex(where: { $0.timeMapping.target.contains(time) }),
                      !track.segments[index].isEmpty else { continue }
                let segment = track.segments[index]
                let source = try source(for: track, segmentIndex: index, segment: segment,
                                        transform: layer.transform(at: time).concatenating(toOutput))
                sources[layer.trackID] = try source.frame(at: segment.timeMapping.sourceTime(at: time))
            }
            try compositor.startRequest(VideoCompositionRequest(compositionTime: time, instruction: instruction, output: frame,
                                                                sources: sources))
        } else if let instruction {
            let toOutput = ReelCore.AffineTransform(scaleX: outputScale.x, y: outputScale.y)
            for layer in instruction.layers(showingAt: time).reversed() {
                guard let track = composition.track(withTrackID: layer.trackID),
                      let index = track.segments.firstIndex(where: { $0.timeMapping.target.contains(time) }),
                      !track.segments[index].isEmpty else { continue }
                let segment = track.segments[index]
                let cropped = layer.cropRectangle(at: time)
                // An empty crop (seed 003's CGRectZero at a clip's end) shows nothing.
                if let cropped, cropped.width <= 0 || cropped.height <= 0 { continue }
                let transform = layer.transform(at: time).concatenating(toOutput)
                let source = try source(for: track, segmentIndex: index, segment: segment, transform: transform,
                                        pixelFormat: layer.style == nil ? .yuv420p : .rgba)
                noteDrawn(track: track.trackID, natural: source.naturalSize, crop: cropped, transform: transform,
                          layerTransform: layer.transform(at: time))
                let sourceTime = segment.timeMapping.sourceTime(at: time)
                guard let picture = try source.frame(at: sourceTime) else { continue }
                // The decoded picture is already scaled; fold that scale out of the transform.
                let natural = source.naturalSize
                let decodeScale = ReelCore.AffineTransform(scaleX: natural.width / Double(picture.width),
                                                           y: natural.height / Double(picture.height))
                let crop = cropped.map { rect in
                    Rect(x: rect.minX * Double(picture.width) / natural.width,
                         y: rect.minY * Double(picture.height) / natural.height,
                         width: rect.width * Double(picture.width) / natural.width,
                         height: rect.height * Double(picture.height) / natural.height)
                }
                if let style = layer.style {
                    try drawStyled(picture, style: style, into: frame, transform: decodeScale.concatenating(transform),
                                   opacity: layer.opacity(at: time), crop: crop, at: time, background: background)
                    continue
                }
                Compositor.draw(picture, into: frame, transform: decodeScale.concatenating(transform),
                                opacity: layer.opacity(at: time), crop: crop)
            }
        }
        // The animation tool post-processes the composed frame, whichever compositor made it:
        // AVFoundation's instructions for a custom compositor (`AVVideoCompositionInstructionProtocol`)
        // carry `enablePostProcessing` for it, and the tool renders its layers over "the
        // composited video frames" (`init(postProcessingAsVideoLayer:in:)`).
        if let instruction, instruction.enablePostProcessing, let root = videoComposition.animationTool {
            try drawOverlay(root, into: frame, at: time, parentOpacity: 1)
        }
        // Burned subtitles go over whatever made the frame, a custom compositor's frame too.
        if let burnIn = videoComposition.subtitleBurnIn {
            if subtitles == nil { subtitles = SubtitleBurnInRenderer(burnIn, renderHeight: videoComposition.renderSize.height) }
            try subtitles?.burn(frame, at: time)
        }
        return frame
    }

    /// A layer that had media to draw but whose picture fell wholly outside the frame: the
    /// first one met, for the export's warning.
    struct OffscreenLayer: Sendable {
        var trackID: Int
        var transform: ReelCore.AffineTransform
        var time: MediaTime
    }
    /// Frames in which at least one layer's picture reached the frame.
    private(set) var framesWithPicture = 0
    /// Frames in which some layer had media to draw.
    private(set) var framesWithMedia = 0
    /// The first layer met whose picture missed the frame entirely.
    private(set) var firstOffscreen: OffscreenLayer?
    private var lastCounted: MediaTime?
    private var countedPicture = false

    /// Counts whether the layer's picture (its crop, or its whole natural size) lands inside the frame.
    private func noteDrawn(track: Int, natural: Size, crop: Rect?, transform: ReelCore.AffineTransform,
                           layerTransform: ReelCore.AffineTransform) {
        let currentTime = currentFrameTime
        if lastCounted != currentTime {
            lastCounted = currentTime
            countedPicture = false
            framesWithMedia += 1
        }
        let area = crop ?? Rect(origin: .zero, size: natural)
        let box = area.applying(transform)
        let inside = box.maxX > 0.5 && box.maxY > 0.5 && box.minX < Double(outputWidth) - 0.5
            && box.minY < Double(outputHeight) - 0.5
        if inside {
            if !countedPicture { framesWithPicture += 1 }
            countedPicture = true
        } else if firstOffscreen == nil {
            firstOffscreen = OffscreenLayer(trackID: track, transform: layerTransform, time: currentTime)
        }
    }
    private var currentFrameTime = MediaTime.zero

    /// Opens, ahead of time, the sources of the segments visible at `time` that are not open
    /// yet, so that their decoders start and fill while earlier frames are composed and
    /// encoded. Call it for each later frame time in turn, as ``frame(at:)`` is called for
    /// each frame: a source is then opened at its first frame's time, with the size it is
    /// drawn at there, exactly as ``frame(at:)`` would open it.
    func prepare(at time: MediaTime) throws(ReelError) {
        guard let instruction = videoComposition.instruction(at: time) else { return }
        let toOutput = ReelCore.AffineTransform(scaleX: outputScale.x, y: outputScale.y)
        for layer in instruction.layers(showingAt: time) {
            guard let track = composition.track(withTrackID: layer.trackID),
                  let index = track.segments.firstIndex(where: { $0.timeMapping.target.contains(time) }),
                  !track.segments[index].isEmpty,
                  sources[SourceKey(trackID: track.trackID, segmentIndex: index)] == nil else { continue }
            _ = try source(for: track, segmentIndex: index, segment: track.segments[index],
                           transform: layer.transform(at: time).concatenating(toOutput), retiring: false,
                           pixelFormat: layer.style == nil ? .yuv420p : .rgba)
        }
    }

    private func source(for track: CompositionTrack, segmentIndex: Int, segment: CompositionTrackSegment,
                        transform: ReelCore.AffineTransform, retiring: Bool = true,
                        pixelFormat: PixelFormat = .yuv420p) throws(ReelError) -> TrackFrameSource {
        let key = SourceKey(trackID: track.trackID, segmentIndex: segmentIndex)
        if retiring {
            // The track has moved on: its earlier segments are done with.
            for (other, source) in sources where other.trackID == key.trackID && other.segmentIndex < segmentIndex {
                source.close()
                sources[other] = nil
            }
        }
        if let open = sources[key] { return open }
        // Decode at the size the layer is drawn at (never larger than the source).
        let from = segment.timeMapping.target.contains(startTime) ? segment.timeMapping.sourceTime(at: startTime) : nil
        let source = try TrackFrameSource(segment: segment, scale: abs(transform.determinant).squareRoot(), readAhead: readAhead,
                                          from: from, grid: frameGrid, pixelFormat: pixelFormat, matrix: matrix)
        sources[key] = source
        return source
    }

    private func drawOverlay(_ layer: OverlayLayer, into frame: PixelBuffer, at time: MediaTime,
                             parentOpacity: Double) throws(ReelError) {
        let state = layer.presentation(at: time)
        let opacity = state.opacity * parentOpacity
        let width = layer.frame.width * outputScale.x, height = layer.frame.height * outputScale.y
        let centre = Point(x: state.position.x * outputScale.x, y: state.position.y * outputScale.y)
        let plain = state.rotation == 0 && state.scale == 1
        if case .none = layer.content {} else if opacity > 0.001 {
            if plain, case .color(let red, let green, let blue) = layer.content {
                // The common case (the seed's sticker): an exact rectangle fill.
                Compositor.fill(Rect(x: centre.x - width / 2, y: centre.y - height / 2, width: width, height: height),
                                in: frame, color: Compositor.yuv(red: red, green: green, blue: blue, matrix: matrix),
                                opacity: opacity)
            } else {
                let pixels = (max(1, Int(width.rounded())), max(1, Int(height.rounded())))
                let picture: PixelBuffer
                if let styled = try styledText.picture(of: layer, width: pixels.0, height: pixels.1, scale: outputScale.y,
                                                       at: time.seconds) {
                    picture = styled
                } else {
                    picture = try overlayPicture(layer, width: pixels.0, height: pixels.1)
                }
                // Picture pixels → frame: about its centre, scaled and turned, then to the layer's position.
                let transform = ReelCore.AffineTransform(translationX: -Double(picture.width) / 2, y: -Double(picture.height) / 2)
                    .concatenating(ReelCore.AffineTransform(scaleX: state.scale, y: state.scale))
                    .concatenating(ReelCore.AffineTransform(rotationAngle: state.rotation))
                    .concatenating(ReelCore.AffineTransform(translationX: centre.x, y: centre.y))
                Compositor.drawRGBA(picture, into: frame, transform: transform, opacity: opacity, matrix: matrix)
            }
        }
        for sublayer in layer.sublayers {
            try drawOverlay(sublayer, into: frame, at: time, parentOpacity: opacity)
        }
    }

    /// The layer's content as an RGBA picture of its size, made once.
    private func overlayPicture(_ layer: OverlayLayer, width: Int, height: Int) throws(ReelError) -> PixelBuffer {
        let key = ObjectIdentifier(layer)
        if let cached = textCache[key] { return cached }
        let picture: PixelBuffer
        switch layer.content {
        case .none:
            picture = try PixelBuffer(width: 1, height: 1, pixelFormat: .rgba)
        case .color(let red, let green, let blue):
            picture = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
            func byte(_ v: Double) -> UInt8 { UInt8(min(max((v * 255).rounded(), 0), 255)) }
            picture.fillRect(x: 0, y: 0, width: width, height: height, rgba: (byte(red), byte(green), byte(blue), 255))
        case .image(let source):
            picture = try PixelScaler.converted(source, to: .rgba, width: width, height: height)
        case .text(let text, let fontSize, let color):
            picture = try TextImage.render(text, width: width, height: height,
                                           fontSize: max(1, Int((Double(fontSize) * outputScale.y).rounded())), color: color)
        }
        textCache[key] = picture
        return picture
    }

    /// Moves to composition time `time` for a player's seek: each open source whose segment
    /// shows there reads from there on, keeping its file and decoder open; the others close
    /// (and open at `time` when first drawn).
    func seek(to time: MediaTime) throws(ReelError) {
        startTime = time
        for (key, source) in sources {
            guard let track = composition.track(withTrackID: key.trackID), key.segmentIndex < track.segments.count,
                  track.segments[key.segmentIndex].timeMapping.target.contains(time) else {
                source.close()
                sources[key] = nil
                continue
            }
            try source.seek(to: source.segment.timeMapping.sourceTime(at: time))
        }
    }

    func close() {
        subtitles?.close()
        for (_, source) in sources { source.close() }
        sources.removeAll()
    }
}

extension VideoRenderer {
    /// Draws a styled layer's RGBA picture: keyed, through its look, then laid over the frame
    /// with its alpha, corners and border (``Compositor/drawRGBA(_:into:transform:opacity:matrix:shape:)``).
    /// A style that is ``LayerStyle/isMattedOnBackground`` lays the picture on `background` first.
    func drawStyled(_ picture: PixelBuffer, style: LayerStyle, into frame: PixelBuffer, transform: ReelCore.AffineTransform,
                    opacity: Double, crop: Rect?, at time: MediaTime,
                    background: (red: Double, green: Double, blue: Double) = (0, 0, 0)) throws(ReelError) {
        var shown = picture
        if let key = style.chromaKey { shown = try LayerCompositor.keyed(shown, by: key) }
        if let handler = style.filterHandler {
            let filtered = try handler(LayerStyle.FilteringRequest(sourceImage: shown, compositionTime: time))
            // A look that changed the size or format is drawn as it came back, when it still can be.
            shown = filtered.pixelFormat == .rgba ? filtered : try PixelScaler.converted(filtered, to: .rgba, width: filtered.width,
                                                                                      height: filtered.height)
        }
        if style.isMattedOnBackground { shown = try LayerCompositor.matted(shown, on: background) }
        let fold = ReelCore.AffineTransform(scaleX: Double(picture.width) / Double(shown.width),
                                            y: Double(picture.height) / Double(shown.height))
        let scale = (outputScale.x * outputScale.y).squareRoot()
        let shape = Compositor.LayerShape(crop: shown.width == picture.width && shown.height == picture.height ? crop : nil,
                                          cornerRadius: style.cornerRadius * scale, borderWidth: style.borderWidth * scale,
                                          borderColor: style.borderColor)
        Compositor.drawRGBA(shown, into: frame, transform: fold.concatenating(transform), opacity: opacity, matrix: matrix,
                            shape: shape)
    }
}

import CFFmpeg
package import ReelCore

/// Writes an animated GIF or WebP: pictures go through a libavfilter graph (for a GIF,
/// `palettegen` and `paletteuse`, so each scene or the whole file gets a palette of its
/// own colours instead of a fixed one) into FFmpeg's `gif` or `libwebp_anim` encoder and
/// muxer. A GIF's graph holds its scene's pictures until the scene ends (the palette is
/// made from all of them), then lets them out.
package final class AnimatedImageWriter {
    /// The kinds of animated picture.
    package enum Kind: Sendable {
        case gif
        case webp
    }

    private let kind: Kind
    private let chain: String
    private let width: Int
    private let height: Int
    private let timeBase: Rational
    private let encoder: Encoder
    private let muxer: Muxer
    private let stream: Int
    private let library: FilterLibrary
    private let scaler = Scaler()
    private let input: Frame
    private let output: Frame
    private let packet: Packet
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var ends: FilterGraphWiring.Ends?

    /// Opens the file and the encoder.
    /// - Parameters:
    ///   - path: The file to write.
    ///   - kind: GIF or WebP.
    ///   - width: The pictures' width.
    ///   - height: The pictures' height.
    ///   - timeBase: The time base of the timestamps given to ``append(_:at:)`` (1/100 for a
    ///     GIF, whose delays are hundredths of a second).
    ///   - chain: The filter chain from the yuv420p pictures to what the encoder takes
    ///     (for a GIF, the palette graph ending in `pal8`).
    ///   - loop: How many times the animation plays again; 0 for ever.
    /// - Throws: ``ReelError`` with FFmpeg's message when the encoder, muxer or graph refuses.
    package init(path: String, kind: Kind, width: Int, height: Int, timeBase: Rational, chain: String,
                 loop: Int = 0) throws(ReelError) {
        FFmpeg.prepare()
        self.kind = kind
        self.chain = chain
        self.width = width
        self.height = height
        self.timeBase = timeBase
        library = try FilterLibrary.load()
        input = try Frame()
        output = try Frame()
        packet = try Packet()
        var configuration = VideoEncoderConfiguration(
            encoderName: kind == .gif ? "gif" : "libwebp_anim", width: width, height: height,
            pixelFormat: PixelFormat(rawValue: kind == .gif ? "pal8" : "yuv420p"), timeBase: timeBase)
        if kind == .webp { configuration.options = ["quality": "80"] }
        encoder = try Encoder(video: configuration)
        muxer = try Muxer(path: path, formatName: kind == .gif ? "gif" : "webp")
        stream = try muxer.addStream(for: encoder)
        try muxer.writeHeader(options: ["loop": "\(loop)"])
        try startScene()
    }

    deinit { library.graphFree(&graph) }

    /// Ends the scene so far (its pictures go out with their palette) and starts another:
    /// the pictures from here on get a palette of their own.
    package func startScene() throws(ReelError) {
        try drainGraph()
        guard let fresh = library.graphAlloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a filter graph", operation: "avfilter_graph_alloc")
        }
        graph = fresh
        let arguments = "video_size=\(width)x\(height):pix_fmt=yuv420p:time_base=\(timeBase.numerator)/\(timeBase.denominator):pixel_aspect=1/1"
        let format = kind == .gif ? "pal8" : "yuv420p"
        ends = try FilterGraphWiring.wire(fresh, sourceFilter: "buffer", arguments: arguments, sinkFilter: "buffersink",
                                          chain: "\(chain),format=\(format)", describing: chain, library: library)
    }

    /// Adds a picture shown from `timestamp` (in the time base) on.
    /// - Parameters:
    ///   - picture: A yuv420p picture of the writer's size.
    ///   - timestamp: When it starts showing; rising.
    package func append(_ picture: PixelBuffer, at timestamp: Int64) throws(ReelError) {
        guard let ends else { throw ReelError(.invalidState, "the writer is finished", operation: "append") }
        try input.allocatePicture(width: width, height: height, format: AV_PIX_FMT_YUV420P)
        try scaler.convert(picture, into: input)
        input.presentationTimestamp = timestamp
        try FFmpeg.check(library.sourceAddFrame(ends.source, input.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
                         "av_buffersrc_add_frame_flags")
        try pullFrames(ends.sink)
    }

    /// Ends the last scene and writes the file's end (the last picture lasts as long as the
    /// one before it, as FFmpeg's GIF muxer has it).
    package func finish() throws(ReelError) {
        try drainGraph()
        try encode(nil)
        try muxer.finish()
    }

    /// Lets the graph's held pictures out and frees it.
    private func drainGraph() throws(ReelError) {
        guard let ends else { return }
        try FFmpeg.check(library.sourceAddFrame(ends.source, nil, 0), "av_buffersrc_add_frame_flags")
        try pullFrames(ends.sink)
        library.graphFree(&graph)
        self.ends = nil
    }

    private func pullFrames(_ sink: UnsafeMutablePointer<AVFilterContext>) throws(ReelError) {
        while true {
            output.reset()
            let result = library.sinkGetFrame(sink, output.pointer)
            if result == FFmpeg.again || result == FFmpeg.endOfFile { return }
            try FFmpeg.check(result, "av_buffersink_get_frame")
            try encode(output)
        }
    }

    private func encode(_ frame: Frame?) throws(ReelError) {
        _ = try encoder.send(frame)
        while try encoder.receive(into: packet) == .produced {
            try muxer.write(packet, streamIndex: stream)
        }
    }
}

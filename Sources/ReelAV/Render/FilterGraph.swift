import CFFmpeg
package import ReelCore

/// A libavfilter graph with one video input and one output, for the effects FFmpeg
/// already does well (blur). `buffer` → the described chain → `buffersink`, configured
/// for one picture size and format; pictures go in and come out one at a time.
package final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private let input: Frame
    private let output: Frame
    private let library: FilterLibrary
    private let scaler = Scaler()
    private var pts: Int64 = 0
    package let width: Int
    package let height: Int
    package let pixelFormat: PixelFormat

    /// - Parameter description: a filter chain in FFmpeg's syntax, such as `gblur=sigma=4`.
    package init(description: String, width: Int, height: Int, pixelFormat: PixelFormat) throws(ReelError) {
        FFmpeg.prepare()
        let library = try FilterLibrary.load()
        self.library = library
        guard let graph = library.graphAlloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a filter graph", operation: "avfilter_graph_alloc")
        }
        self.graph = graph
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        input = try Frame()
        output = try Frame()
        let arguments = "video_size=\(width)x\(height):pix_fmt=\(pixelFormat.av.rawValue):time_base=1/25:pixel_aspect=1/1"
        do throws(ReelError) {
            (source, sink) = try FilterGraphWiring.wire(graph, sourceFilter: "buffer", arguments: arguments,
                                                        sinkFilter: "buffersink", chain: "\(description),format=\(pixelFormat.rawValue)",
                                                        describing: description, library: library)
        } catch {
            library.graphFree(&self.graph)
            throw error
        }
    }

    deinit { library.graphFree(&graph) }

    /// Runs `picture` through the graph into `target` (same size and format).
    package func process(_ picture: PixelBuffer, into target: PixelBuffer) throws(ReelError) {
        try input.allocatePicture(width: width, height: height, format: pixelFormat.av)
        try scaler.convert(picture, into: input)
        input.presentationTimestamp = pts
        pts += 1
        try FFmpeg.check(library.sourceAddFrame(source, input.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
                         "av_buffersrc_add_frame_flags")
        output.reset()
        try FFmpeg.check(library.sinkGetFrame(sink, output.pointer), "av_buffersink_get_frame")
        try scaler.convert(output, into: target)
    }
}

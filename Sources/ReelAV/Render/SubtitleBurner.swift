import CFFmpeg
package import ReelCore

/// Burns subtitles into pictures with libass, through libavfilter's `subtitles` filter:
/// each yuv420p picture goes in with its time and comes back with the cues shown then
/// drawn on it.
///
/// Times reach the filter in a time base of 1/2000 s, half a millisecond after the
/// picture's whole millisecond: the filter turns them into whole milliseconds (by a
/// floating-point product that truncates), and a picture exactly on a cue's start must not
/// land a millisecond early. So a cue from S to E ms shows on the pictures at S ≤ t < E.
package final class SubtitleBurner {
    private let library: FilterLibrary
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private let input: Frame
    private let output: Frame
    private let scaler = Scaler()
    private let width: Int
    private let height: Int

    /// Opens libass on a subtitle file.
    /// - Parameters:
    ///   - file: An `.srt` or `.ass` file (FFmpeg reads it by its content).
    ///   - forceStyle: ASS style fields laid over the file's (`FontName=…,FontSize=…`), or nil.
    ///   - width: The pictures' width.
    ///   - height: The pictures' height.
    /// - Throws: ``ReelError`` with FFmpeg's message when the filter cannot read the file.
    package init(file: String, forceStyle: String?, width: Int, height: Int) throws(ReelError) {
        FFmpeg.prepare()
        let library = try FilterLibrary.load()
        self.library = library
        self.width = width
        self.height = height
        input = try Frame()
        output = try Frame()
        guard let graph = library.graphAlloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a filter graph", operation: "avfilter_graph_alloc")
        }
        self.graph = graph
        graph.pointee.nb_threads = 1
        func make(_ name: String, options: [String: String]) throws(ReelError) -> UnsafeMutablePointer<AVFilterContext> {
            guard let definition = library.getByName(name) else {
                throw ReelError(.unsupported, "this FFmpeg has no '\(name)' filter (it needs libass)", operation: "avfilter_get_by_name")
            }
            guard let context = library.graphAllocFilter(graph, definition, name) else {
                throw ReelError(.outOfMemory, "cannot allocate the \(name) filter", operation: "avfilter_graph_alloc_filter")
            }
            for (key, value) in options.sorted(by: { $0.key < $1.key }) {
                try FFmpeg.check(av_opt_set(context, key, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set \(name).\(key)")
            }
            try FFmpeg.check(library.initString(context, nil), "avfilter_init_str \(name)", subject: name == "subtitles" ? file : nil)
            return context
        }
        do {
            let source = try make("buffer", options: ["video_size": "\(width)x\(height)", "pix_fmt": "yuv420p",
                                                  "time_base": "1/2000", "pixel_aspect": "1/1"])
            var options = ["filename": file]
            if let forceStyle { options["force_style"] = forceStyle }
            let burn = try make("subtitles", options: options)
            let sink = try make("buffersink", options: [:])
            try FFmpeg.check(library.link(source, 0, burn, 0), "avfilter_link")
            try FFmpeg.check(library.link(burn, 0, sink, 0), "avfilter_link")
            try FFmpeg.check(library.graphConfig(graph, nil), "avfilter_graph_config")
            self.source = source
            self.sink = sink
        } catch {
            var doomed: UnsafeMutablePointer<AVFilterGraph>? = graph
            library.graphFree(&doomed)
            throw error
        }
    }

    deinit { library.graphFree(&graph) }

    /// Draws the cues shown at `milliseconds` on `picture`, in place.
    /// - Parameters:
    ///   - picture: A yuv420p picture of the burner's size.
    ///   - milliseconds: The picture's time on the timeline, in whole milliseconds (rounded down).
    /// - Throws: ``ReelError`` with FFmpeg's message when the filter fails.
    package func burn(_ picture: PixelBuffer, atMilliseconds milliseconds: Int64) throws(ReelError) {
        try input.allocatePicture(width: width, height: height, format: AV_PIX_FMT_YUV420P)
        try scaler.convert(picture, into: input)
        input.presentationTimestamp = milliseconds * 2 + 1
        try FFmpeg.check(library.sourceAddFrame(source, input.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
                         "av_buffersrc_add_frame_flags")
        input.reset()
        output.reset()
        try FFmpeg.check(library.sinkGetFrame(sink, output.pointer), "av_buffersink_get_frame")
        try scaler.convert(output, into: picture)
        output.reset()
    }
}

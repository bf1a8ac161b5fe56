import CFFmpeg
package import ReelCore

/// Draws text with FreeType and fontconfig through libavfilter's `drawtext`, into a
/// transparent RGBA picture that callers lay over their own.
///
/// The graph is `color` (transparent) → `drawtext` → `buffersink`, built filter by
/// filter with options set by name (`av_opt_set`), so the text needs no escaping.
package enum TextRenderer {
    /// A fontconfig pattern asking for the text's characters (`:charset=4e2d 6587`), which
    /// drawtext parses from `fontfile` when that is not a file, adding `font` as the family.
    /// Fontconfig weighs the character set above the family, so where `font` lacks a script
    /// (DejaVu has no Chinese, Japanese or Korean) it picks an installed font that has it
    /// (WenQuanYi Micro Hei, Noto CJK), and `font` itself wherever it covers the text.
    /// drawtext draws with one face, so the face must cover every character. Nil for ASCII.
    static func pattern(covering text: String) -> String? {
        var scalars = Set<UInt32>()
        for scalar in text.unicodeScalars where scalar.value > 0x7E && !scalar.properties.isWhitespace {
            scalars.insert(scalar.value)
            if scalars.count == 256 { break }
        }
        guard !scalars.isEmpty else { return nil }
        return ":charset=" + scalars.sorted().map { String($0, radix: 16) }.joined(separator: " ")
    }

    /// A `width`×`height` RGBA picture, transparent but for `text` in `color` at (`x`, `y`)
    /// (the top-left of the text box), in the fontconfig font `font`.
    package static func render(_ text: String, width: Int, height: Int, fontSize: Int, color: String = "white",
                               font: String = "DejaVu Sans", x: Int = 0, y: Int = 0) throws(ReelError) -> PixelBuffer {
        FFmpeg.prepare()
        let library = try FilterLibrary.load()
        guard let graph = library.graphAlloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a filter graph", operation: "avfilter_graph_alloc")
        }
        defer {
            var doomed: UnsafeMutablePointer<AVFilterGraph>? = graph
            library.graphFree(&doomed)
        }
        // One picture needs no slice threads: a pool per text (one thread a core) made every
        // timeline picture wait for threads to start and stop (seconds each on a busy machine).
        graph.pointee.nb_threads = 1
        let source = try filter("color", in: graph, library: library, options: [
            "color": "black@0.0", "size": "\(width)x\(height)", "rate": "1", "duration": "1"])
        let format = try filter("format", in: graph, library: library, options: ["pix_fmts": "rgba"])
        var options = ["text": text, "font": font, "fontsize": String(fontSize), "fontcolor": color,
                       "x": String(x), "y": String(y), "expansion": "none"]
        if let characters = pattern(covering: text) { options["fontfile"] = characters }
        let draw = try filter("drawtext", in: graph, library: library, options: options)
        FFmpeg.clearLog() // drawtext first tries the pattern as a file path, and logs that it is not one
        let sink = try filter("buffersink", in: graph, library: library, options: [:])
        try FFmpeg.check(library.link(source, 0, format, 0), "avfilter_link")
        try FFmpeg.check(library.link(format, 0, draw, 0), "avfilter_link")
        try FFmpeg.check(library.link(draw, 0, sink, 0), "avfilter_link")
        try FFmpeg.check(library.graphConfig(graph, nil), "avfilter_graph_config")
        let frame = try Frame()
        try FFmpeg.check(library.sinkGetFrame(sink, frame.pointer), "av_buffersink_get_frame")
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
        try Scaler().convert(frame, into: picture)
        return picture
    }

    private static func filter(_ name: String, in graph: UnsafeMutablePointer<AVFilterGraph>, library: FilterLibrary,
                               options: [String: String]) throws(ReelError) -> UnsafeMutablePointer<AVFilterContext> {
        guard let definition = library.getByName(name) else {
            throw ReelError(.unsupported, "this FFmpeg has no '\(name)' filter", operation: "avfilter_get_by_name")
        }
        guard let context = library.graphAllocFilter(graph, definition, name) else {
            throw ReelError(.outOfMemory, "cannot allocate the \(name) filter", operation: "avfilter_graph_alloc_filter")
        }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            try FFmpeg.check(av_opt_set(context, key, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set \(name).\(key)")
        }
        try FFmpeg.check(library.initString(context, nil), "avfilter_init_str \(name)")
        return context
    }
}

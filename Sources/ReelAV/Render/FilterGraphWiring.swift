import CFFmpeg
import ReelCore

/// What the video and audio filter graphs share: a buffer source and a buffer sink
/// with the described chain parsed between them, in the order FFmpeg's
/// filtering examples use (create the ends, parse the middle, configure).
enum FilterGraphWiring {
    typealias Ends = (source: UnsafeMutablePointer<AVFilterContext>, sink: UnsafeMutablePointer<AVFilterContext>)

    /// Wires `chain` between a `sourceFilter` (`buffer` or `abuffer`, with `arguments`) and a
    /// `sinkFilter` (`buffersink` or `abuffersink`) in `graph`, and configures the graph.
    static func wire(_ graph: UnsafeMutablePointer<AVFilterGraph>, sourceFilter: String, arguments: String,
                     sinkFilter: String, chain: String, describing description: String,
                     library: FilterLibrary) throws(ReelError) -> Ends {
        var created: UnsafeMutablePointer<AVFilterContext>?
        try FFmpeg.check(library.graphCreateFilter(&created, library.getByName(sourceFilter), "in", arguments, nil, graph),
                         "avfilter_graph_create_filter \(sourceFilter)")
        guard let source = created else { throw ReelError(.ffmpeg, "no \(sourceFilter) source") }
        var sinkContext: UnsafeMutablePointer<AVFilterContext>?
        try FFmpeg.check(library.graphCreateFilter(&sinkContext, library.getByName(sinkFilter), "out", nil, nil, graph),
                         "avfilter_graph_create_filter \(sinkFilter)")
        guard let sink = sinkContext else { throw ReelError(.ffmpeg, "no \(sinkFilter) sink") }
        // avfilter_graph_parse_ptr takes these lists and leaves behind what it did not use;
        // what is left in the variables afterwards is ours to free.
        var outputs = library.inOutAlloc(), inputs = library.inOutAlloc()
        defer {
            library.inOutFree(&outputs)
            library.inOutFree(&inputs)
        }
        guard let outputPad = outputs, let inputPad = inputs else {
            throw ReelError(.outOfMemory, "cannot allocate filter pads")
        }
        outputPad.pointee.name = av_strdup("in")
        outputPad.pointee.filter_ctx = source
        inputPad.pointee.name = av_strdup("out")
        inputPad.pointee.filter_ctx = sink
        try FFmpeg.check(library.graphParse(graph, chain, &inputs, &outputs, nil),
                         "avfilter_graph_parse_ptr '\(description)'")
        try FFmpeg.check(library.graphConfig(graph, nil), "avfilter_graph_config")
        return (source, sink)
    }
}

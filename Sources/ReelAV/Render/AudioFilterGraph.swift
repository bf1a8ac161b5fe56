import CFFmpeg
package import ReelCore

/// A libavfilter graph for audio: `abuffer` → the described chain → `abuffersink`,
/// for what FFmpeg does well with sound (varispeed: `asetrate` and `aresample`).
/// Buffers go in with ``push(_:)`` and come out with ``pull()``; ``finish()`` drains it.
package final class AudioFilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private let input: Frame
    private let output: Frame
    private let library: FilterLibrary
    private var samplesIn: Int64 = 0
    package let format: AudioFormat

    /// - Parameter description: a chain such as `asetrate=24000,aresample=48000`.
    package init(description: String, format: AudioFormat) throws(ReelError) {
        FFmpeg.prepare()
        let library = try FilterLibrary.load()
        self.library = library
        guard let graph = library.graphAlloc() else {
            throw ReelError(.outOfMemory, "cannot allocate a filter graph", operation: "avfilter_graph_alloc")
        }
        self.graph = graph
        self.format = format
        input = try Frame()
        output = try Frame()
        let arguments = "time_base=1/\(format.sampleRate):sample_rate=\(format.sampleRate):sample_fmt=\(format.sampleFormat.rawValue)"
            + ":channel_layout=\(format.channelLayout.name)"
        let chain = "\(description),aformat=sample_fmts=\(format.sampleFormat.rawValue):sample_rates=\(format.sampleRate)"
            + ":channel_layouts=\(format.channelLayout.name)"
        do throws(ReelError) {
            (source, sink) = try FilterGraphWiring.wire(graph, sourceFilter: "abuffer", arguments: arguments,
                                                        sinkFilter: "abuffersink", chain: chain, describing: description, library: library)
        } catch {
            library.graphFree(&self.graph)
            throw error
        }
    }

    deinit { library.graphFree(&graph) }

    /// The `atempo` chain that plays audio `rate` times as fast (0.25 is x4 slow), each
    /// stage within the 0.5…100 that the filter takes. The player's live rate changes use
    /// it; exports stretch with `TimeStretcher`, which keeps onsets in place.
    package static func tempoChain(rate: Double) -> String {
        var remaining = rate
        var stages: [String] = []
        while remaining < 0.5 {
            stages.append("atempo=0.5")
            remaining /= 0.5
        }
        while remaining > 100 {
            stages.append("atempo=100")
            remaining /= 100
        }
        stages.append("atempo=\(remaining)")
        return stages.joined(separator: ",")
    }

    /// Feeds audio in the graph's format.
    package func push(_ buffer: AudioBuffer) throws(ReelError) {
        guard buffer.frameCount > 0 else { return }
        var layout = format.channelLayout.av
        defer { av_channel_layout_uninit(&layout) }
        try input.allocateAudio(samples: buffer.frameCount, format: format.sampleFormat.av, sampleRate: format.sampleRate,
                                layout: &layout)
        try input.copyAudio(from: buffer, offset: 0, count: buffer.frameCount)
        input.presentationTimestamp = samplesIn
        samplesIn += Int64(buffer.frameCount)
        try FFmpeg.check(library.sourceAddFrame(source, input.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
                         "av_buffersrc_add_frame_flags")
    }

    /// Tells the graph no more audio comes, so that it lets out what it holds.
    package func finish() throws(ReelError) {
        try FFmpeg.check(library.sourceAddFrame(source, nil, 0), "av_buffersrc_add_frame_flags")
    }

    /// What the graph has ready with the metadata filters attached to it (`ebur128`'s
    /// `lavfi.r128.I`…), or nil when it needs more input (or is drained).
    package func pullWithMetadata() throws(ReelError) -> (audio: AudioBuffer, metadata: [String: String])? {
        guard let audio = try pull() else { return nil }
        return (audio, Demuxer.dictionary(output.pointer.pointee.metadata))
    }

    /// What the graph has ready, or nil when it needs more input (or is drained). The frame
    /// stays in `output` (its metadata too) until the next pull.
    package func pull() throws(ReelError) -> AudioBuffer? {
        output.reset()
        let result = library.sinkGetFrame(sink, output.pointer)
        if result == FFmpeg.again || result == FFmpeg.endOfFile { return nil }
        try FFmpeg.check(result, "av_buffersink_get_frame")
        return try output.audioBuffer()
    }
}

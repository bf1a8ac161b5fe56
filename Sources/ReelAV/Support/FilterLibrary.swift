import CFFmpeg
import ReelCore

/// The libavfilter functions Reel calls, looked up when a filter graph is first made
/// (see ``SharedLibrary`` for why it is not linked).
struct FilterLibrary: Sendable {
    let graphAlloc: @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    let graphFree: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    let getByName: @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    let graphAllocFilter: @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<AVFilter>?,
                                          UnsafePointer<CChar>?) -> UnsafeMutablePointer<AVFilterContext>?
    let initString: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafePointer<CChar>?) -> Int32
    let graphCreateFilter: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?,
                                           UnsafePointer<AVFilter>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                           UnsafeMutableRawPointer?, UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    let link: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UInt32, UnsafeMutablePointer<AVFilterContext>?,
                              UInt32) -> Int32
    let graphConfig: @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    let graphParse: @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<CChar>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                    UnsafeMutableRawPointer?) -> Int32
    let inOutAlloc: @convention(c) () -> UnsafeMutablePointer<AVFilterInOut>?
    let inOutFree: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?) -> Void
    let sinkGetFrame: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32
    let sourceAddFrame: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32

    /// The library, loaded on first use.
    /// - Throws: ``ReelError`` `.unsupported` when libavfilter cannot be loaded.
    static func load() throws(ReelError) -> FilterLibrary { try loaded.get() }

    private static let loaded = Result { () throws(ReelError) in
        try FilterLibrary(try SharedLibrary.open("libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"))
    }

    private init(_ library: SharedLibrary) throws(ReelError) {
        graphAlloc = try library.function("avfilter_graph_alloc")
        graphFree = try library.function("avfilter_graph_free")
        getByName = try library.function("avfilter_get_by_name")
        graphAllocFilter = try library.function("avfilter_graph_alloc_filter")
        initString = try library.function("avfilter_init_str")
        graphCreateFilter = try library.function("avfilter_graph_create_filter")
        link = try library.function("avfilter_link")
        graphConfig = try library.function("avfilter_graph_config")
        graphParse = try library.function("avfilter_graph_parse_ptr")
        inOutAlloc = try library.function("avfilter_inout_alloc")
        inOutFree = try library.function("avfilter_inout_free")
        sinkGetFrame = try library.function("av_buffersink_get_frame")
        sourceAddFrame = try library.function("av_buffersrc_add_frame_flags")
    }
}

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
///
/// FFmpeg 5.1's filter turns libass's RGB colours into YCbCr by BT.601 whatever the picture,
/// so a BT.709 picture (720 lines and up, ``ColorMatrix``) goes in re-expressed in BT.601,
/// and what the filter changed comes back converted to BT.709 and added to the picture's own
/// samples: the cues' colours come out as the file gives them at every size, and the pixels
/// no cue touches keep their bytes.
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
    private let matrix: ColorMatrix
    /// The BT.601 picture handed to the filter (luma, then Cb, then Cr), kept to tell what
    /// the filter changed: the filter's input is not ours to read afterwards.
    private var before: [UInt8] = []

    /// Opens libass on a subtitle file.
    /// - Parameters:
    ///   - file: An `.srt` or `.ass` file (FFmpeg reads it by its content).
    ///   - forceStyle: ASS style fields laid over the file's (`FontName=…,FontSize=…`), or nil.
    ///   - width: The pictures' width.
    ///   - height: The pictures' height.
    ///   - matrix: The YCbCr matrix of the pictures (``ColorMatrix``'s rule at `height` when nil).
    /// - Throws: ``ReelError`` with FFmpeg's message when the filter cannot read the file.
    package init(file: String, forceStyle: String?, width: Int, height: Int, matrix: ColorMatrix? = nil) throws(ReelError) {
        FFmpeg.prepare()
        let library = try FilterLibrary.load()
        self.library = library
        self.width = width
        self.height = height
        self.matrix = matrix ?? ColorMatrix(height: height)
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
        let converted = matrix == .bt709 && picture.pixelFormat == .yuv420p && picture.width == width && picture.height == height
        if converted {
            toStandardDefinition(picture)
        } else {
            try scaler.convert(picture, into: input)
        }
        input.presentationTimestamp = milliseconds * 2 + 1
        try FFmpeg.check(library.sourceAddFrame(source, input.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
                         "av_buffersrc_add_frame_flags")
        input.reset()
        output.reset()
        try FFmpeg.check(library.sinkGetFrame(sink, output.pointer), "av_buffersink_get_frame")
        if converted {
            addChanges(to: picture)
        } else {
            try scaler.convert(output, into: picture)
        }
        output.reset()
    }

    /// ``YCbCrConversion``'s weights × 65,536, in the order luma from Cb, luma from Cr, Cb
    /// from Cb, Cb from Cr, Cr from Cb, Cr from Cr (luma from luma is 1).
    private static func weights(from source: ColorMatrix, to target: ColorMatrix) -> [Int] {
        guard let map = YCbCrConversion(from: source, to: target) else { return [0, 0, 1 << 16, 0, 0, 1 << 16] }
        return [map.lumaFromCb, map.lumaFromCr, map.cbFromCb, map.cbFromCr, map.crFromCb, map.crFromCr].map { Int($0) }
    }

    private static func byte(_ value: Int) -> UInt8 { UInt8(min(max(value, 0), 255)) }

    /// Writes the BT.709 `picture` into the filter's input as BT.601 (``YCbCrConversion``:
    /// chroma from chroma, each luma sample with the chroma of its 2×2 block), and keeps a
    /// copy in `before`.
    private func toStandardDefinition(_ picture: PixelBuffer) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaCount = width * height, chromaCount = chromaWidth * chromaHeight
        if before.count != lumaCount + 2 * chromaCount { before = [UInt8](repeating: 0, count: lumaCount + 2 * chromaCount) }
        let data = input.dataPointers, lines = input.lineSizes.map { Int($0) }
        guard let yOut = data[0], let cbOut = data[1], let crOut = data[2],
              let conversion = YCbCrConversion(from: .bt709, to: .bt601)
        else { return }
        let planes = [(yOut, width, height, 0), (cbOut, chromaWidth, chromaHeight, lumaCount),
                      (crOut, chromaWidth, chromaHeight, lumaCount + chromaCount)]
        for (index, (target, bytes, rows, _)) in planes.enumerated() {
            picture.withPlane(index) { source, stride in
                for row in 0..<rows {
                    (target + row * lines[index]).update(
                        from: (source + row * stride).assumingMemoryBound(to: UInt8.self), count: bytes)
                }
            }
        }
        conversion.apply(planes: (yOut, cbOut, crOut), strides: (lines[0], lines[1], lines[2]),
                         width: width, height: height, chromaShift: (1, 1))
        before.withUnsafeMutableBufferPointer { kept in
            guard let kept = kept.baseAddress else { return }
            for (index, (source, bytes, rows, start)) in planes.enumerated() {
                for row in 0..<rows {
                    (kept + start + row * bytes).update(from: source + row * lines[index], count: bytes)
                }
            }
        }
    }

    /// Adds what the filter changed (its output less `before`), converted from BT.601 to
    /// BT.709, to the BT.709 `picture`'s samples; samples it left alone keep their bytes. A
    /// luma sample takes the change of its block's chroma too, as the colour drawn has it.
    private func addChanges(to picture: PixelBuffer) {
        let w = Self.weights(from: .bt601, to: .bt709)
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaCount = width * height, chromaCount = chromaWidth * chromaHeight
        guard before.count == lumaCount + 2 * chromaCount, output.width == width, output.height == height else { return }
        let data = output.dataPointers, lines = output.lineSizes.map { Int($0) }
        guard let yIn = data[0], let cbIn = data[1], let crIn = data[2] else { return }
        before.withUnsafeBufferPointer { kept in
            picture.withMutablePlane(0) { y, yStride in
                picture.withMutablePlane(1) { cb, cbStride in
                    picture.withMutablePlane(2) { cr, crStride in
                        for row in 0..<chromaHeight {
                            for column in 0..<chromaWidth {
                                let du = Int(cbIn[row * lines[1] + column]) - Int(kept[lumaCount + row * chromaWidth + column])
                                let dv = Int(crIn[row * lines[2] + column])
                                    - Int(kept[lumaCount + chromaCount + row * chromaWidth + column])
                                if du != 0 || dv != 0 {
                                    let u = row * cbStride + column, v = row * crStride + column
                                    let oldCb = Int(cb.load(fromByteOffset: u, as: UInt8.self))
                                    let oldCr = Int(cr.load(fromByteOffset: v, as: UInt8.self))
                                    cb.storeBytes(of: Self.byte(oldCb + (w[2] * du + w[3] * dv + 32_768) >> 16), toByteOffset: u, as: UInt8.self)
                                    cr.storeBytes(of: Self.byte(oldCr + (w[4] * du + w[5] * dv + 32_768) >> 16), toByteOffset: v, as: UInt8.self)
                                }
                                let lumaShift = w[0] * du + w[1] * dv
                                for lumaRow in 2 * row..<min(2 * row + 2, height) {
                                    for x in 2 * column..<min(2 * column + 2, width) {
                                        let dy = Int(yIn[lumaRow * lines[0] + x]) - Int(kept[lumaRow * width + x])
                                        guard dy != 0 else { continue }
                                        let offset = lumaRow * yStride + x
                                        let old = Int(y.load(fromByteOffset: offset, as: UInt8.self))
                                        y.storeBytes(of: Self.byte(old + dy + (lumaShift + 32_768) >> 16), toByteOffset: offset, as: UInt8.self)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

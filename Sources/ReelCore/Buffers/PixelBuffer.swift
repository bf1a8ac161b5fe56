
/// A picture in memory: width, height, a ``PixelFormat`` and its planes. `CVPixelBuffer`.
///
/// Planes live in one 64-byte-aligned allocation; each row starts at a multiple of
/// 64 bytes, so SIMD kernels and FFmpeg's scalers run without a copy. A buffer made
/// by a ``PixelBufferPool`` returns its memory to the pool when the last reference goes.
///
/// Thread safety: a buffer may be passed between threads, but it is not locked:
/// whoever writes to it must finish before handing it on, as with `CVPixelBuffer`
/// after `CVPixelBufferUnlockBaseAddress`.
public final class PixelBuffer: @unchecked Sendable {
    /// Where one plane sits in the allocation.
    public struct Plane: Sendable, Hashable {
        /// Width of the plane in elements (pixels, or sample pairs for NV12's UV plane).
        public let width: Int
        /// Number of rows.
        public let height: Int
        /// Distance in bytes from one row to the next (the stride).
        public let bytesPerRow: Int
        /// Bytes used by a row's pixels, without the padding to `bytesPerRow`.
        public let bytesPerRowOfPixels: Int
        let offset: Int
    }

    public let width: Int
    public let height: Int
    public let pixelFormat: PixelFormat
    public let planes: [Plane]
    let storage: PixelStorage
    private weak var pool: PixelBufferPool?

    /// A new zero-filled buffer.
    /// - Parameters:
    ///   - width: The picture's width in pixels.
    ///   - height: The picture's height in pixels.
    ///   - pixelFormat: How the pixels are stored (its planes and their subsampling).
    /// - Throws: ``ReelError`` with code `.invalidArgument` for a size of zero or less, a size
    ///   over 16384 on a side, or a format Reel's buffers cannot hold.
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat) throws(ReelError) {
        let planes = try Self.layout(width: width, height: height, pixelFormat: pixelFormat)
        let bytes = planes.last.map { $0.offset + $0.bytesPerRow * $0.height } ?? 0
        self.init(width: width, height: height, pixelFormat: pixelFormat, planes: planes,
                  storage: PixelStorage(byteCount: bytes), pool: nil)
    }

    init(width: Int, height: Int, pixelFormat: PixelFormat, planes: [Plane], storage: PixelStorage,
         pool: PixelBufferPool?) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.planes = planes
        self.storage = storage
        self.pool = pool
    }

    deinit {
        pool?.recycle(storage)
    }

    /// The largest side Reel accepts, so that a corrupt header cannot ask for terabytes.
    public static let maximumDimension = 16384

    static func layout(width: Int, height: Int, pixelFormat: PixelFormat) throws(ReelError) -> [Plane] {
        guard width > 0, height > 0, width <= maximumDimension, height <= maximumDimension else {
            throw ReelError(.invalidArgument, "pixel buffer size \(width)x\(height) is outside 1...\(maximumDimension)")
        }
        guard let layouts = pixelFormat.planeLayouts else {
            throw ReelError(.unsupported, "pixel format '\(pixelFormat)' is not one Reel's buffers hold")
        }
        var offset = 0
        return layouts.map { layout in
            let planeWidth = (width + layout.horizontalSubsampling - 1) / layout.horizontalSubsampling
            let planeHeight = (height + layout.verticalSubsampling - 1) / layout.verticalSubsampling
            let rowBytes = planeWidth * layout.bytesPerElement
            let stride = (rowBytes + 63) & ~63
            defer { offset += stride * planeHeight }
            return Plane(width: planeWidth, height: planeHeight, bytesPerRow: stride,
                         bytesPerRowOfPixels: rowBytes, offset: offset)
        }
    }

    /// Calls `body` with the bytes of plane `index`, rows `bytesPerRow` apart.
    /// - Parameters:
    ///   - index: the plane (0 for luma or packed pixels).
    ///   - body: reads the bytes; the pointer is valid only inside it.
    /// - Returns: what `body` returns.
    public func withUnsafeBytes<R, E: Error>(
        ofPlane index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let plane = planes[index]
        return try body(UnsafeRawBufferPointer(start: storage.base + plane.offset,
                                               count: plane.bytesPerRow * plane.height))
    }

    /// Calls `body` with the writable bytes of plane `index`.
    /// - Parameters:
    ///   - index: the plane (0 for luma or packed pixels).
    ///   - body: writes the bytes; the pointer is valid only inside it.
    /// - Returns: what `body` returns.
    public func withUnsafeMutableBytes<R, E: Error>(
        ofPlane index: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let plane = planes[index]
        return try body(UnsafeMutableRawBufferPointer(start: storage.base + plane.offset,
                                                      count: plane.bytesPerRow * plane.height))
    }

    /// Calls `body` with the start of plane `index` and its stride, for kernels that walk rows.
    /// - Parameters:
    ///   - index: the plane (0 for luma or packed pixels).
    ///   - body: reads rows `bytesPerRow` apart; the pointer is valid only inside it.
    /// - Returns: what `body` returns.
    public func withPlane<R, E: Error>(
        _ index: Int, _ body: (UnsafeRawPointer, _ bytesPerRow: Int) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeRawPointer(storage.base + planes[index].offset), planes[index].bytesPerRow)
    }

    /// Calls `body` with the writable start of plane `index` and its stride.
    /// - Parameters:
    ///   - index: the plane (0 for luma or packed pixels).
    ///   - body: writes rows `bytesPerRow` apart; the pointer is valid only inside it.
    /// - Returns: what `body` returns.
    public func withMutablePlane<R, E: Error>(
        _ index: Int, _ body: (UnsafeMutableRawPointer, _ bytesPerRow: Int) throws(E) -> R
    ) throws(E) -> R {
        try body(storage.base + planes[index].offset, planes[index].bytesPerRow)
    }

    /// The bytes of one element (a pixel, or a sample pair) at `(x, y)` in plane `index`,
    /// for tests and probes; nil outside the plane. Not for hot loops.
    /// - Parameters:
    ///   - index: the plane.
    ///   - x: the column, in the plane's own samples.
    ///   - y: the row, in the plane's own rows.
    /// - Returns: the element's bytes (1 for a planar sample, 2 for an nv12 pair, 4 for RGBA).
    public func element(plane index: Int, x: Int, y: Int) -> [UInt8]? {
        guard planes.indices.contains(index) else { return nil }
        let plane = planes[index]
        guard x >= 0, x < plane.width, y >= 0, y < plane.height else { return nil }
        let size = plane.bytesPerRowOfPixels / max(plane.width, 1)
        let start = plane.offset + y * plane.bytesPerRow + x * size
        return (0..<size).map { storage.base.load(fromByteOffset: start + $0, as: UInt8.self) }
    }

    /// Sets every byte of every plane to the values given per plane (for example `[16, 128, 128]`
    /// for black in video-range YUV). Padding bytes are set too.
    /// - Parameter planeValues: one byte per plane; planes beyond the list are left alone.
    public func fill(planeValues: [UInt8]) {
        for (index, plane) in planes.enumerated() where index < planeValues.count {
            (storage.base + plane.offset).initializeMemory(as: UInt8.self, repeating: planeValues[index],
                                                           count: plane.bytesPerRow * plane.height)
        }
    }

    /// Copies the pixels (not the padding) of `other`, which must have the same size and format.
    /// - Parameter other: the picture to copy.
    /// - Throws: ``ReelError`` `.invalidArgument` when the sizes or formats differ.
    public func copyPixels(from other: PixelBuffer) throws(ReelError) {
        guard other.width == width, other.height == height, other.pixelFormat == pixelFormat else {
            throw ReelError(.invalidArgument,
                            "cannot copy a \(other.width)x\(other.height) \(other.pixelFormat) buffer into a \(width)x\(height) \(pixelFormat) one")
        }
        for index in planes.indices { copyPlane(index, from: other) }
    }

    /// Copies plane `index` of `other`, a buffer of the same size and format, row by row.
    /// - Parameters:
    ///   - index: the plane.
    ///   - other: the picture to copy it from.
    public func copyPlane(_ index: Int, from other: PixelBuffer) {
        let source = other.planes[index], target = planes[index]
        for row in 0..<target.height {
            (storage.base + target.offset + row * target.bytesPerRow).copyMemory(
                from: other.storage.base + source.offset + row * source.bytesPerRow, byteCount: target.bytesPerRowOfPixels)
        }
    }
}

extension PixelBuffer: CustomStringConvertible {
    public var description: String { "PixelBuffer(\(width)x\(height) \(pixelFormat))" }
}

/// One aligned allocation of pixel memory.
final class PixelStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        base = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 64), alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 64))
    }

    deinit { base.deallocate() }
}

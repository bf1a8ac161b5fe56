import Synchronization

/// Recycles pixel buffers of one size and format, so that a steady stream of frames
/// allocates nothing after warm-up. `CVPixelBufferPool`.
///
/// Thread safety: any thread may take buffers from the pool and release them.
public final class PixelBufferPool: Sendable {
    public let width: Int
    public let height: Int
    public let pixelFormat: PixelFormat
    /// How many free buffers the pool keeps; buffers released beyond that are freed.
    public let maximumFreeBuffers: Int

    private let planes: [PixelBuffer.Plane]
    private let byteCount: Int
    private let free = PosixMutex<[PixelStorage]>([])
    private let made = Atomic<Int>(0)

    /// A pool for `width`×`height` buffers of `pixelFormat`.
    /// - Parameters:
    ///   - width: The buffers' width in pixels.
    ///   - height: The buffers' height in pixels.
    ///   - pixelFormat: The buffers' format.
    ///   - maximumFreeBuffers: How many returned buffers to keep for reuse; more are freed.
    /// - Throws: ``ReelError`` `.invalidArgument` or `.unsupported`, as ``PixelBuffer/init(width:height:pixelFormat:)``.
    public init(width: Int, height: Int, pixelFormat: PixelFormat, maximumFreeBuffers: Int = 8) throws(ReelError) {
        planes = try PixelBuffer.layout(width: width, height: height, pixelFormat: pixelFormat)
        byteCount = planes.last.map { $0.offset + $0.bytesPerRow * $0.height } ?? 0
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.maximumFreeBuffers = maximumFreeBuffers
    }

    /// A buffer from the pool. Its contents are whatever the last user left; callers
    /// overwrite every pixel. `CVPixelBufferPoolCreatePixelBuffer`.
    /// - Returns: A buffer of the pool's size and format: a returned one when there is one
    ///   (no allocation per frame), else a new one.
    public func makePixelBuffer() -> PixelBuffer {
        let recycled = free.withLock { $0.popLast() }
        let storage = recycled ?? {
            made.add(1, ordering: .relaxed)
            return PixelStorage(byteCount: byteCount)
        }()
        return PixelBuffer(width: width, height: height, pixelFormat: pixelFormat, planes: planes,
                           storage: storage, pool: self)
    }

    /// How many allocations the pool has made in its life: flat once the stream is steady.
    public var allocationCount: Int { made.load(ordering: .relaxed) }

    func recycle(_ storage: PixelStorage) {
        free.withLock { list in
            if list.count < maximumFreeBuffers { list.append(storage) }
        }
    }
}

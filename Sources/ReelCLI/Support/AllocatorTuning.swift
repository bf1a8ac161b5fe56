#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator settings for a long-running server process (`reel studio`).
///
/// By default glibc raises its mmap and trim thresholds each time a large block is freed,
/// so buffers the size of a preview JPEG (50–100 KB) end up inside the per-thread arenas,
/// and each arena keeps what its threads freed. The studio's HTTP server runs a thread per
/// connection, so under 50 viewers and API clients its resident memory grew about 0.3 MB a
/// second while the live heap stayed near 40 MB (`docs/studio-memory.md`). Fixed thresholds
/// map such buffers on their own and give them back when freed, and trim an arena's top
/// beyond 128 KB. `mallopt` is not in Swift's Glibc module, so it is looked up by name.
enum AllocatorTuning {
    /// glibc's `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` (malloc.h).
    private static let trimThreshold: Int32 = -1
    private static let mmapThreshold: Int32 = -3

    /// Sets fixed thresholds (64 KB mapped, 128 KB trimmed); does nothing where glibc's
    /// `mallopt` is not found.
    /// - Returns: Whether both settings were taken.
    @discardableResult
    static func boundRetainedMemory() -> Bool {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        return mallopt(mmapThreshold, 64 * 1024) == 1 && mallopt(trimThreshold, 128 * 1024) == 1
        #else
        return false
        #endif
    }
}

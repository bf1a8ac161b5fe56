import Foundation
import ReelAsset
public import ReelCore

/// What a render of a given frame size costs in memory, estimated before it starts, so a
/// size the machine cannot hold is refused up front with the figure instead of being
/// attempted until the kernel kills it.
///
/// The estimate is measured, not derived: a fixed part (the process, FFmpeg, the audio)
/// and a part per output pixel that covers the encoder's lookahead and threads, the
/// renderer's spare frames and the decoded sources read ahead. At 3840x2160 it is close
/// to the peak resident size `/usr/bin/time` reports for a 4K composition.
public enum RenderMemory {
    /// Frames larger than this keep fewer spares and a shorter encoder lookahead.
    public static let largeFrameArea = 1920 * 1088 * 2 // as the writer's x264 settings (EncoderChoice)

    /// The fixed part, in bytes.
    static let baseBytes: Int64 = 200 << 20
    /// Bytes per output pixel for frames up to ``largeFrameArea``, and beyond it.
    static let bytesPerPixel = (small: 120.0, large: 90.0)

    /// The estimated peak memory of rendering `width`×`height` frames.
    /// - Parameters:
    ///   - width: output frame width in pixels.
    ///   - height: output frame height in pixels.
    /// - Returns: bytes.
    public static func estimatedBytes(width: Int, height: Int) -> Int64 {
        let pixels = Double(max(width, 0)) * Double(max(height, 0))
        let perPixel = pixels > Double(largeFrameArea) ? bytesPerPixel.large : bytesPerPixel.small
        return baseBytes + Int64(min(pixels * perPixel, 1e15))
    }

    /// The memory this process may use: the machine's RAM, or its control group's limit
    /// when that is lower.
    public static var machineBytes: Int64 {
        let pages = Int64(sysconf(Int32(_SC_PHYS_PAGES))), pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = pages > 0 && pageSize > 0 ? pages * pageSize : Int64.max
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
           let limit = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0 {
            bytes = min(bytes, limit)
        }
        return bytes
    }

    /// Refuses a frame size whose estimated working set exceeds `available`.
    /// - Parameters:
    ///   - width: output frame width.
    ///   - height: output frame height.
    ///   - available: the bytes the render may use; ``machineBytes`` by default.
    /// - Throws: ``ReelError`` `.outOfMemory` naming the size, the estimate and the memory there is.
    public static func check(width: Int, height: Int, available: Int64 = machineBytes) throws(ReelError) {
        let needed = estimatedBytes(width: width, height: height)
        guard needed <= available else {
            throw ReelError(.outOfMemory,
                            "rendering \(width)x\(height) frames needs about \(gigabytes(needed)) of memory, more than the \(gigabytes(available)) this machine has: choose a smaller renderSize or preset",
                            subject: "\(width)x\(height)")
        }
    }

    static func gigabytes(_ bytes: Int64) -> String {
        String(format: "%.1f GB", Double(bytes) / Double(1 << 30))
    }
}

public import Foundation

/// Each frame's PSNR of one file's picture against another's, by ffmpeg's `psnr` filter (the
/// average over the planes, in dB; infinity for identical frames): how the chunked-export
/// tests judge a chunked render against a single one.
public enum FramePSNR {
    /// The PSNR of each frame of `b` against the same frame of `a`, in order.
    /// - Parameters:
    ///   - a: The reference.
    ///   - b: The file judged.
    ///   - folder: Where the filter's log is written (and removed after).
    /// - Returns: One value a frame pair.
    /// - Throws: When ffmpeg fails or its log cannot be read.
    public static func values(_ a: URL, _ b: URL, in folder: URL) throws -> [Double] {
        let log = folder.appendingPathComponent("psnr-\(UUID().uuidString.prefix(8)).log")
        defer { try? FileManager.default.removeItem(at: log) }
        try ProcessRunner.ffmpeg(["-i", a.path, "-i", b.path, "-lavfi", "[0:v][1:v]psnr=stats_file=\(log.path)", "-f", "null", "-"])
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("psnr_avg:") }) else { return nil }
            let value = field.dropFirst("psnr_avg:".count)
            return value == "inf" ? Double.infinity : Double(value)
        }
    }
}

import Foundation
import ReelTestSupport

/// Runs the seed ports and looks at their outputs as the seeds' authors would: decoded
/// frames against a reference render, durations and streams through ffprobe.
enum SeedMedia {
    /// The built example `name`: the release build when it is newer than the debug one
    /// (`make test` builds both; the debug build's pixel loops are slow), else the debug one.
    /// `REEL_TEST_EXAMPLES`, a folder holding the examples, overrides both (an older build's,
    /// to show that a test fails there).
    static func binary(_ name: String) -> URL {
        if let folder = ProcessInfo.processInfo.environment["REEL_TEST_EXAMPLES"] {
            return URL(fileURLWithPath: folder).appendingPathComponent(name)
        }
        let debug = [Bundle.main.bundleURL.appendingPathComponent(name),
                     Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name),
                     Paths.packageRoot.appendingPathComponent(".build/debug/\(name)")]
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? Paths.packageRoot.appendingPathComponent(".build/debug/\(name)")
        let release = Paths.packageRoot.appendingPathComponent(".build/release/\(name)")
        func modified(_ url: URL) -> Date {
            (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? .distantPast
        }
        if FileManager.default.isExecutableFile(atPath: release.path), modified(release) >= modified(debug) { return release }
        return debug
    }

    /// Runs example `name`; throws with its output when it fails.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], timeout: TimeInterval = 600) throws -> String {
        let result = try ProcessRunner.run(binary(name).path, arguments, timeout: timeout)
        guard result.status == 0, !result.timedOut else {
            throw TestFailure("\(name) \(arguments.joined(separator: " ")) exited \(result.status): \(result.standardError)\n\(result.standardOutput)")
        }
        return result.standardOutput
    }

    /// A clip of blurred test pattern (smooth, so that scalers agree) with a tone: 1280x720
    /// as stored, `rotate=270` (an iPhone portrait clip) when `portrait`, tinted by `hue`.
    static func clip(_ name: String, in directory: URL, seconds: Double = 2, hue: Int = 0, portrait: Bool = false,
                     rate: Int = 30) throws -> URL {
        let stored = directory.appendingPathComponent("stored-\(name).mov")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=\(rate):d=\(seconds),hue=h=\(hue),gblur=sigma=4",
                                  "-f", "lavfi", "-i", "sine=frequency=\(440 + hue):sample_rate=48000:d=\(seconds)",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-pix_fmt", "yuv420p",
                                  "-c:a", "aac", "-shortest", stored.path])
        guard portrait else { return stored }
        let turned = directory.appendingPathComponent("\(name).mov")
        try ProcessRunner.ffmpeg(["-i", stored.path, "-c", "copy", "-metadata:s:v", "rotate=270", turned.path])
        return turned
    }

    /// The first `seconds` of seed clip `name`, copied (the seed clips last 10 s each).
    static func seedClip(_ name: String, seconds: Double, in directory: URL) throws -> URL {
        let out = directory.appendingPathComponent("seed-\(name)")
        try ProcessRunner.ffmpeg(["-i", Paths.seedClip(name).path, "-t", String(seconds), "-c", "copy", out.path])
        return out
    }

    /// The presentation times of the first video stream's frames, in order.
    static func frameTimes(_ url: URL) throws -> [Double] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                                       "-of", "csv=p=0", url.path])
        return result.standardOutput.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
            .sorted()
    }

    /// Frame `index` of `url`'s video as yuv420p bytes, after `filter` (ffmpeg's; turned by
    /// the display matrix unless `autorotate` is false).
    static func frame(_ url: URL, index: Int, filter: String? = nil, autorotate: Bool = true, in directory: URL) throws -> [UInt8] {
        let out = directory.appendingPathComponent("frame-\(UUID().uuidString.prefix(8)).yuv")
        let chain = ["select=eq(n\\,\(index))"] + (filter.map { [$0] } ?? [])
        try ProcessRunner.ffmpeg((autorotate ? [] : ["-noautorotate"]) + ["-i", url.path, "-vf", chain.joined(separator: ","),
                                  "-frames:v", "1", "-pix_fmt", "yuv420p", "-f", "rawvideo", out.path])
        defer { try? FileManager.default.removeItem(at: out) }
        return [UInt8](try Data(contentsOf: out))
    }

    /// The largest difference between two yuv420p pictures' block means, per plane (32x32
    /// luma blocks, 16x16 chroma blocks: small enough that a ghost or a misplaced picture
    /// moves many of them by tens, large enough that an encoder's noise on a star field
    /// does not, measured 1.8 at most against 3.4 for 16x16 blocks), over blocks that touch
    /// none of `skipRows` (luma rows where a picture's edge falls).
    static func blockDifference(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int,
                                skipRows: Set<Int> = []) -> (difference: Double, where: String) {
        guard a.count == b.count, a.count == width * height * 3 / 2 else {
            return (.infinity, "sizes differ: \(a.count) and \(b.count) bytes")
        }
        var worst = (difference: 0.0, where: "")
        let planes = [(offset: 0, width: width, height: height, block: 32, scale: 1),
                      (offset: width * height, width: width / 2, height: height / 2, block: 16, scale: 2),
                      (offset: width * height * 5 / 4, width: width / 2, height: height / 2, block: 16, scale: 2)]
        for (number, plane) in planes.enumerated() {
            for top in stride(from: 0, to: plane.height - plane.block + 1, by: plane.block) {
                let rows = (top * plane.scale)..<((top + plane.block) * plane.scale)
                if rows.contains(where: skipRows.contains) { continue }
                for left in stride(from: 0, to: plane.width - plane.block + 1, by: plane.block) {
                    var sumA = 0, sumB = 0
                    for y in top..<(top + plane.block) {
                        let row = plane.offset + y * plane.width
                        for x in left..<(left + plane.block) {
                            sumA += Int(a[row + x])
                            sumB += Int(b[row + x])
                        }
                    }
                    let difference = abs(Double(sumA - sumB)) / Double(plane.block * plane.block)
                    if difference > worst.difference {
                        worst = (difference, "plane \(number) block at (\(left * plane.scale), \(top * plane.scale))")
                    }
                }
            }
        }
        return worst
    }

    /// The index of the frame showing at `time`: the last whose time is not after it.
    static func index(showingAt time: Double, in times: [Double]) -> Int {
        max(0, (times.lastIndex { $0 <= time + 1e-4 }) ?? 0)
    }
}

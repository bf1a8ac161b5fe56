import Foundation
import ReelComposition
import ReelCore
import ReelPlayback

/// `reel play FILE --bench`, for `make bench`: how long a player takes to show its first
/// picture after `play()`, and a seek to show the picture it lands on, with infinite
/// tolerances (the nearest keyframe) and with zero (the exact frame). Silent and without a
/// window, so that only the player's own work is timed.
enum PlayBench {
    /// Prints one line per measurement, in milliseconds.
    /// - Parameters:
    ///   - makeItem: a fresh item of what is measured (each measurement starts from nothing).
    ///   - size: the pictures' size, as `reel play` asks for them.
    static func run(makeItem: () throws(ReelError) -> PlayerItem, size: (width: Int, height: Int),
                    seeks: Int, console: Console) throws(ReelError) {
        // First picture: a new item and player, play(), then the display loop's first picture.
        var firsts: [Double] = []
        for _ in 0..<3 {
            let item = try makeItem()
            let output = PlayerItemVideoOutput(pixelBufferAttributes: .init(pixelFormat: .yuv420p, width: size.width,
                                                                            height: size.height))
            item.add(output)
            let player = Player(playerItem: item, audioDevice: .none)
            let start = DispatchTime.now()
            player.play()
            var picture: PixelBuffer?
            while picture == nil {
                picture = output.copyPixelBuffer(forItemTime: output.itemTime(forHostTime: player.clock.hostTime))
                if let error = item.error { throw error }
                if picture == nil { usleep(500) }
            }
            firsts.append(milliseconds(since: start))
            player.pause()
        }
        console.print("first picture after play(): median \(format(median(firsts))) ms (\(firsts.map(format).joined(separator: ", ")))")

        for exact in [false, true] {
            let item = try makeItem()
            let output = PlayerItemVideoOutput(pixelBufferAttributes: .init(pixelFormat: .yuv420p, width: size.width,
                                                                            height: size.height))
            item.add(output)
            let player = Player(playerItem: item, audioDevice: .none)
            _ = output.copyPixelBuffer(forItemTime: .zero)
            let duration = item.duration.seconds
            var random = Xorshift(seed: 19)
            var times: [Double] = []
            let tolerance = exact ? MediaTime.zero : MediaTime.positiveInfinity
            for _ in 0..<max(1, seeks) {
                let target = MediaTime(seconds: random.unit() * max(0, duration - 0.1), preferredTimescale: 90000)
                let start = DispatchTime.now()
                player.seek(to: target, toleranceBefore: tolerance, toleranceAfter: tolerance)
                guard output.copyPixelBuffer(forItemTime: player.currentTime()) != nil else {
                    throw item.error ?? ReelError(.invalidData, "no picture after a seek to \(target.seconds) s")
                }
                times.append(milliseconds(since: start))
            }
            let name = exact ? "seek exact + picture" : "seek any tolerance + picture"
            let rest = Array(times.dropFirst())
            console.print("\(name): median \(format(median(times))) ms, max \(format(times.max() ?? 0)) ms, "
                          + "first \(format(times[0])) ms, max after the first \(format(rest.max() ?? 0)) ms (\(times.count) seeks)")
        }
    }

    private static func milliseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A fixed-seed generator, so that each run seeks to the same times.
    private struct Xorshift {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func unit() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state >> 11) / Double(UInt64(1) << 53)
        }
    }
}

import Foundation
import ReelCore

/// Pitch-kept time stretching that leaves every onset where the picture puts it:
/// WSOLA (overlap-added windows of the source, each taken near where the ideal time map
/// puts it and nudged to the position that continues the previous one best) with onset
/// alignment, and an output exactly as long as the source played at the rate.
///
/// Why not FFmpeg's `atempo` or librubberband: measured on clips with a 10 ms click every
/// second, both move sound against the picture and drop clicks when speeding up.
/// atempo's windows are searched away from the ideal map and its end is lost in its
/// buffer (clicks up to 135 ms early at 0.25, 620 ms at 1/16; 12 of 20 lost at x5, 17 at
/// x16). FFmpeg's `rubberband` filter runs librubberband in real-time mode and shifts
/// everything by its latency (52 ms early at 0.25, 307 ms at 1/16; 19 of 20 lost at x5).
/// librubberband offline, its finer R3 engine, is closer (25 ms early at 0.25, 35 ms at
/// 1/16) but loses 1 of 20 at x5 and all 20 at x16; R2 loses 19 at x3. A window that
/// skips source skips what is in it, and a window searched for the best join moves it.
///
/// Here the time map is exact (output sample n plays source sample n × rate), and each
/// onset (a jump in short-time energy) is locked: every window that overlaps the output
/// around the onset (`lockBefore` before to `lockAfter` after) is the source at rate 1,
/// placed so that the onset lands on its ideal output sample, and no other window may
/// hold any of that stretch of source, so an onset is neither repeated when slowing down
/// nor skipped when speeding up. Onsets closer together (in the output or the source)
/// than a window merge into the first: it is locked, the rest pass as ordinary sound.
///
/// Audio is pushed in any blocks and pulled when ready; ``finish()`` lets out the rest.
/// The output is ``outputLength`` samples: the source's length over the rate, rounded, or
/// less when cut shorter (to the picture's end).
package final class TimeStretcher {
    /// Source samples per output sample: 2 plays twice as fast.
    package let rate: Double
    let channels: Int
    /// Onsets found and locked to their ideal time, and onsets merged into an earlier one.
    private(set) var lockedOnsets = 0
    private(set) var mergedOnsets = 0

    private struct Onset {
        var source: Int64
        var output: Int64
    }

    private let frameLength: Int
    private let hop: Int
    private let tolerance: Int
    private let lockBefore: Int64
    private let lockAfter: Int64
    private let block: Int
    private let window: [Float]
    private let requestedLength: Int64?

    // The source from `sourceBase` on, per channel, and its mono mix for analysis.
    private var source: [[Float]]
    private var mono: [Float] = []
    private var sourceBase: Int64 = 0
    private var sourceCount: Int64 = 0
    private var finished = false

    // Onset detection over `block`-sample blocks of the mono mix.
    private var analysed: Int64 = 0
    private var energies: [Double] = []
    private var lastDetection: Int64?
    private var lastLocked: Onset?
    private var onsets: [Onset] = []

    // Overlap-added output from `outputBase` on, with the summed window weights.
    private var sums: [[Float]]
    private var weights: [Float] = []
    private var outputBase: Int64 = 0
    private var frameIndex: Int64 = 0
    private var previousStart: Int64?
    private var emitted: Int64 = 0

    /// - Parameters:
    ///   - rate: source samples per output sample (0.25 is four times as slow), 1/100…100.
    ///   - outputLength: where to cut the output (the picture's end); by default, and at
    ///     most, the source's length over the rate, rounded. Never padded: a shorter sound stays shorter.
    package init(rate: Double, channels: Int, sampleRate: Int, outputLength: Int64? = nil) {
        self.rate = min(max(rate, 0.01), 100)
        self.channels = max(channels, 1)
        let scale = Double(max(sampleRate, 8000)) / 48000
        // 21 ms windows half overlapped, searched ±5 ms; a lock from 5 ms before an onset
        // to 25 ms after it (a drum's attack, the test's 10 ms click).
        let length = Int((1024 * scale).rounded()) & ~1
        frameLength = length
        hop = length / 2
        tolerance = Int((240 * scale).rounded())
        lockBefore = Int64((240 * scale).rounded())
        lockAfter = Int64((1200 * scale).rounded())
        block = Int((96 * scale).rounded())
        // sin² windows at half overlap sum to exactly 1.
        window = (0..<length).map { i in
            let s = Float(sin(Double.pi * (Double(i) + 0.5) / Double(length)))
            return s * s
        }
        requestedLength = outputLength
        source = Array(repeating: [], count: self.channels)
        sums = Array(repeating: [], count: self.channels)
    }

    /// The number of samples the output has, once known (at ``finish()``), or a cap on it before.
    var outputLength: Int64? {
        guard finished else { return requestedLength }
        let natural = Int64((Double(sourceCount) / rate).rounded())
        return min(natural, requestedLength ?? natural)
    }

    /// Adds source samples, one array per channel (fewer arrays repeat the last channel).
    package func push(_ samples: [[Float]]) {
        guard let count = samples.first?.count, count > 0, !finished else { return }
        for channel in 0..<channels { source[channel] += samples[min(channel, samples.count - 1)] }
        let mix = 1 / Float(samples.count)
        mono.reserveCapacity(mono.count + count)
        for i in 0..<count {
            var sum: Float = 0
            for channel in samples.indices { sum += samples[channel][i] }
            mono.append(sum * mix)
        }
        sourceCount += Int64(count)
        analyse()
        process()
    }

    /// No more source comes: the rest of the output becomes ready.
    package func finish() {
        guard !finished else { return }
        finished = true
        analyse()
        process()
    }

    /// The output samples ready since the last pull, one array per channel (empty when none).
    package func pull() -> [[Float]] {
        var ready = frameIndex * Int64(hop)
        if let total = outputLength {
            ready = min(ready, total)
            if finished { ready = total }
        }
        let count = Int(max(0, ready - emitted))
        guard count > 0 else { return Array(repeating: [], count: channels) }
        let from = Int(emitted - outputBase)
        var result: [[Float]] = []
        for channel in 0..<channels {
            var out = [Float](repeating: 0, count: count)
            let sum = sums[channel]
            for i in 0..<count where from + i < sum.count {
                let weight = weights[from + i]
                out[i] = weight > 1e-6 ? sum[from + i] / weight : 0
            }
            result.append(out)
        }
        emitted += Int64(count)
        // Forget what was handed out.
        let drop = Int(emitted - outputBase)
        if drop >= 1 << 15 {
            for channel in 0..<channels { sums[channel].removeFirst(min(drop, sums[channel].count)) }
            weights.removeFirst(min(drop, weights.count))
            outputBase += Int64(drop)
        }
        return result
    }

    // MARK: - Onsets

    private func analyse() {
        while analysed + Int64(block) <= sourceCount {
            let from = Int(analysed - sourceBase)
            var energy = 0.0
            var peak: Float = 0
            for i in from..<(from + block) {
                let x = mono[i]
                energy += Double(x * x)
                peak = max(peak, abs(x))
            }
            let mean = energies.isEmpty ? 0 : energies.reduce(0, +) / Double(energies.count)
            // A jump of 9 dB over the last 20 ms, above -40 dBFS.
            let floor = Double(block) * 1e-4
            if energy > 8 * mean + floor, lastDetection.map({ analysed - $0 >= Int64(frameLength) }) ?? true {
                // The first sample of the block at a quarter of its peak.
                var offset = 0
                while offset < block - 1, abs(mono[from + offset]) < peak / 4 { offset += 1 }
                detected(analysed + Int64(offset))
                lastDetection = analysed
            }
            energies.append(energy)
            if energies.count > 10 { energies.removeFirst() }
            analysed += Int64(block)
        }
    }

    private func detected(_ position: Int64) {
        let onset = Onset(source: position, output: Int64((Double(position) / rate).rounded()))
        if let last = lastLocked {
            // A window must fit between two locks, in the output and in the source.
            let window = Int64(frameLength)
            guard onset.output - lockBefore - (last.output + lockAfter) >= window,
                  onset.source - lockBefore - (last.source + lockAfter) >= window else {
                mergedOnsets += 1
                return
            }
        }
        onsets.append(onset)
        lastLocked = onset
        lockedOnsets += 1
    }

    // MARK: - Frames

    /// The source that must be known (and analysed) before the frame at output `o` is made.
    private func horizon(_ o: Int64) -> Int64 {
        let lock = Double(lockBefore + lockAfter)
        let reach = max(Double(o + Int64(frameLength)) * rate + lock * max(rate, 1),
                        Double(o) * rate + Double(2 * tolerance + 3 * frameLength) + lock)
        return Int64(reach.rounded(.up)) + Int64(2 * block)
    }

    private func process() {
        while true {
            let o = frameIndex * Int64(hop)
            if let total = outputLength, o >= total { break }
            if !finished, sourceCount < horizon(o) { break }
            let start = frameStart(at: o)
            add(frameAt: o, from: start)
            previousStart = start
            frameIndex += 1
            trimSource(before: o + Int64(hop))
        }
    }

    /// Where in the source the frame at output `o` starts.
    private func frameStart(at o: Int64) -> Int64 {
        let length = Int64(frameLength)
        while onsets.count > 1, onsets[1].output + lockAfter <= o { onsets.removeFirst() }
        // A frame that overlaps an onset's lock is the source at rate 1 around that onset.
        if let onset = onsets.first(where: { $0.output - lockBefore < o + length && $0.output + lockAfter > o }) {
            return onset.source - onset.output + o
        }
        var low = Int64.min, high = Int64.max
        if let before = onsets.last(where: { $0.output + lockAfter <= o }) { low = before.source + lockAfter }
        if let after = onsets.first(where: { $0.output - lockBefore >= o + length }) {
            high = after.source - lockBefore - length
        }
        let nominal = Int64((Double(o) * rate).rounded())
        // Near the end, windows stay inside the source so that the sound lasts to its end
        // (past it, when a longer output is asked for, comes silence).
        if finished, nominal < sourceCount { high = min(high, max(sourceCount - length, low == .min ? 0 : low)) }
        if high < low { high = low }
        let centre = min(max(nominal, low), high)
        let lowest = max(low, centre - Int64(tolerance)), highest = min(high, centre + Int64(tolerance))
        guard let previous = previousStart, highest > lowest else { return centre }
        return bestMatch(for: previous + Int64(hop), from: lowest, through: highest)
    }

    /// The start in `lowest...highest` whose first half-window is most like the source at
    /// `target` (what the previous frame continues into): coarse every 4 samples on every
    /// 4th sample, then each sample around the best.
    private func bestMatch(for target: Int64, from lowest: Int64, through highest: Int64) -> Int64 {
        let span = hop
        let reference = sourceSlice(mono: true, from: target, count: span)
        let candidates = sourceSlice(mono: true, from: lowest, count: Int(highest - lowest) + span)
        func score(_ offset: Int, step: Int) -> Float {
            var dot: Float = 0, energy: Float = 1e-9
            var i = 0
            while i < span {
                let y = candidates[offset + i]
                dot += reference[i] * y
                energy += y * y
                i += step
            }
            return dot / energy.squareRoot()
        }
        let count = Int(highest - lowest)
        var best = 0, bestScore = -Float.infinity
        var offset = 0
        while offset <= count {
            let s = score(offset, step: 4)
            if s > bestScore {
                bestScore = s
                best = offset
            }
            offset += 4
        }
        let coarse = best
        bestScore = -Float.infinity
        for offset in max(0, coarse - 3)...min(count, coarse + 3) {
            let s = score(offset, step: 1)
            if s > bestScore {
                bestScore = s
                best = offset
            }
        }
        return lowest + Int64(best)
    }

    /// `count` source samples from absolute position `from` (zeros outside what is held).
    private func sourceSlice(mono useMono: Bool, channel: Int = 0, from: Int64, count: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let held = useMono ? mono : source[channel]
        let first = max(from, sourceBase), last = min(from + Int64(count), sourceBase + Int64(held.count))
        guard last > first else { return out }
        let offset = Int(first - from), start = Int(first - sourceBase)
        held.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                for i in 0..<Int(last - first) { output[offset + i] = input[start + i] }
            }
        }
        return out
    }

    private func add(frameAt o: Int64, from start: Int64) {
        let end = Int(o + Int64(frameLength) - outputBase)
        if weights.count < end {
            let extra = end - weights.count
            weights += [Float](repeating: 0, count: extra)
            for channel in 0..<channels { sums[channel] += [Float](repeating: 0, count: extra) }
        }
        let at = Int(o - outputBase)
        window.withUnsafeBufferPointer { w in
            weights.withUnsafeMutableBufferPointer { total in
                for i in 0..<frameLength { total[at + i] += w[i] }
            }
            for channel in 0..<channels {
                let frame = sourceSlice(mono: false, channel: channel, from: start, count: frameLength)
                sums[channel].withUnsafeMutableBufferPointer { sum in
                    for i in 0..<frameLength { sum[at + i] += w[i] * frame[i] }
                }
            }
        }
    }

    /// Forgets source no later frame can reach: frames start at most a few windows before
    /// the ideal map (a locked frame, when speeding up, up to the lock and a window times
    /// the rate before it), and the next one compares with the previous one's continuation.
    private func trimSource(before o: Int64) {
        let locked = Double(lockBefore + lockAfter + Int64(frameLength)) * max(rate, 1)
        let margin = Int64(4 * frameLength + 2 * tolerance) + Int64(locked.rounded(.up))
        let keep = min(previousStart ?? 0, Int64((Double(o) * rate).rounded()) - margin)
        let drop = Int(min(keep - sourceBase, Int64(mono.count)))
        guard drop >= 1 << 15 else { return }
        for channel in 0..<channels { source[channel].removeFirst(drop) }
        mono.removeFirst(drop)
        sourceBase += Int64(drop)
    }
}

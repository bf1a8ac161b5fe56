import Foundation
@testable import ReelComposition
import Testing

/// The stretcher alone, sample-exact: clicks over a noise bed, pushed in uneven blocks
/// over long stretches (so that the source it holds is trimmed as it goes: 30 s, 1.4 M samples).
@Suite struct TimeStretcherTests {
    /// Stereo noise at -40 dBFS with a 10 ms 1 kHz click at 0.9 every `spacing` seconds.
    private func clicks(seconds: Double, spacing: Double) -> [[Float]] {
        let count = Int(seconds * 48000)
        var generator = SystemRandomNumberGenerator()
        var left = (0..<count).map { _ in Float.random(in: -0.01...0.01, using: &generator) }
        var right = left.map { -$0 }
        var start = 0.0
        while start < seconds {
            let first = Int((start * 48000).rounded())
            for i in 0..<480 where first + i < count {
                let click = 0.9 * Float(sin(2 * Double.pi * 1000 * Double(i) / 48000))
                left[first + i] += click
                right[first + i] += click
            }
            start += spacing
        }
        return [left, right]
    }

    private func stretch(_ input: [[Float]], rate: Double, block: Int = 1000) -> (output: [[Float]], stretcher: TimeStretcher) {
        let stretcher = TimeStretcher(rate: rate, channels: 2, sampleRate: 48000)
        var output: [[Float]] = [[], []]
        var position = 0
        var size = block
        while position < input[0].count {
            let end = min(position + size, input[0].count)
            stretcher.push(input.map { Array($0[position..<end]) })
            for (c, samples) in stretcher.pull().enumerated() { output[c] += samples }
            position = end
            size = size == block ? block / 3 + 7 : block  // uneven blocks
        }
        stretcher.finish()
        for (c, samples) in stretcher.pull().enumerated() { output[c] += samples }
        return (output, stretcher)
    }

    /// The first sample above 0.3 after 30 ms without one.
    private func onsets(_ samples: [Float]) -> [Int] {
        var found: [Int] = []
        var last = -100_000
        for (index, value) in samples.enumerated() where abs(value) > 0.3 {
            if index - last > 1440 { found.append(index) }
            last = index
        }
        return found
    }

    @Test(arguments: [16.0, 5, 2.5, 0.7, 0.25])
    func everyClickLandsOnItsSampleAndTheLengthIsExact(rate: Double) throws {
        let seconds = rate < 1 ? 6.0 : 30.0
        let input = clicks(seconds: seconds, spacing: 1)
        let (output, stretcher) = stretch(input, rate: rate)
        let expectedLength = Int((Double(input[0].count) / rate).rounded())
        #expect(output[0].count == expectedLength && output[1].count == expectedLength)
        let found = onsets(output[0])
        let ideal = (0..<Int(seconds)).map { Int((Double($0) * 48000 / rate).rounded()) }
        #expect(found.count == ideal.count, "rate \(rate): \(found.count) clicks of \(ideal.count)")
        for (got, want) in zip(found, ideal) {
            #expect(abs(got - want) <= 48, "rate \(rate): a click at sample \(got), not \(want)")
        }
        #expect(stretcher.lockedOnsets == ideal.count)
    }

    /// Clicks 40 ms apart, 16 times as fast, come 2.5 ms apart: they cannot all be kept
    /// apart, so they merge into the first of each group instead of landing anywhere.
    @Test func clicksTooCloseForTheRateMerge() throws {
        let input = clicks(seconds: 4, spacing: 0.04)
        let (output, stretcher) = stretch(input, rate: 16)
        #expect(output[0].count == 12000)
        #expect(stretcher.lockedOnsets + stretcher.mergedOnsets == 100)
        #expect(stretcher.lockedOnsets > 0 && stretcher.mergedOnsets > 0)
        // Each kept click is where it belongs: a locked onset at source s sits at s / 16.
        for onset in onsets(output[0]) {
            let source = Double(onset) * 16 / 48000
            let nearest = (source / 0.04).rounded() * 0.04
            #expect(abs(source - nearest) * 48000 / 16 <= 48 + 1, "a click at output sample \(onset)")
        }
    }

    /// A steady tone has no onsets to lock, and keeps its level through the joins.
    @Test func aSteadyToneIsNotAnOnset() throws {
        let tone = (0..<(5 * 48000)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        let (output, stretcher) = stretch([tone, tone], rate: 0.6)
        #expect(stretcher.lockedOnsets <= 1)  // the very start
        let middle = output[0][4800..<(output[0].count - 4800)]
        let peak = middle.map { abs($0) }.max() ?? 0
        #expect(peak > 0.45 && peak < 0.55, "peak \(peak)")
    }
}

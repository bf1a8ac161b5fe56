import Foundation
import Testing

/// The sync checks' click finder, on sound made here: a join can bring the click of one
/// segment's last flash and the next segment's first within a fraction of a second.
@Suite struct ClickDetectorTests {
    /// Silence from `start` for `length` seconds with the virtual microphone's clicks (10 ms
    /// of 1 kHz at 0.8) at `clicks`, cut into 1024-sample runs as a recording's sound comes.
    func scan(clicks: [Double], from start: Double = 9.5, length: Double = 1) -> [Double] {
        let rate = 48_000.0
        let count = Int(length * rate)
        var samples = [Float](repeating: 0, count: count)
        for click in clicks {
            let first = Int(((click - start) * rate).rounded())
            for i in 0..<480 where first + i < count {
                samples[first + i] = Float(0.8 * sin(2 * Double.pi * 1000 * Double(i) / rate))
            }
        }
        var detector = CaptureChecks.ClickDetector()
        var offset = 0
        while offset < count {
            let run = Array(samples[offset..<min(count, offset + 1024)])
            detector.scan(run, from: start + Double(offset) / rate)
            offset += 1024
        }
        return detector.clicks
    }

    @Test func clicksAJoinBroughtCloseAreTwo() {
        // Session 9's CI: a flash 67 ms before a join and the next 100 ms after it.
        let found = scan(clicks: [9.933, 10.1])
        #expect(found.count == 2, "\(found)")
        #expect(zip(found, [9.933, 10.1]).allSatisfy { abs($0 - $1) < 0.001 }, "\(found)")
        // Clicks 40 ms apart are still two.
        #expect(scan(clicks: [9.96, 10.0]).count == 2)
    }

    @Test func oneClickIsOne() {
        let found = scan(clicks: [9.7, 10.2])
        #expect(found.count == 2, "\(found)")
        #expect(scan(clicks: []).isEmpty)
    }
}

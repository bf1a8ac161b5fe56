import ReelCore
import Testing

@Suite struct MediaTimeRangeTests {
    let oneToThree = MediaTimeRange(start: MediaTime(value: 1, timescale: 1), end: MediaTime(value: 3, timescale: 1))

    @Test func isHalfOpen() {
        #expect(oneToThree.contains(MediaTime(value: 1, timescale: 1)))
        #expect(oneToThree.contains(MediaTime(value: 2999, timescale: 1000)))
        #expect(!oneToThree.contains(MediaTime(value: 3, timescale: 1)))
        #expect(!oneToThree.contains(MediaTime(value: 999, timescale: 1000)))
        #expect(oneToThree.end == MediaTime(value: 3, timescale: 1))
    }

    @Test func intersectsAndUnites() {
        let twoToFive = MediaTimeRange(start: MediaTime(value: 2, timescale: 1), duration: MediaTime(value: 3, timescale: 1))
        #expect(oneToThree.intersection(twoToFive) == MediaTimeRange(start: MediaTime(value: 2, timescale: 1),
                                                                     end: MediaTime(value: 3, timescale: 1)))
        #expect(oneToThree.union(twoToFive) == MediaTimeRange(start: MediaTime(value: 1, timescale: 1),
                                                              end: MediaTime(value: 5, timescale: 1)))
        let apart = MediaTimeRange(start: MediaTime(value: 10, timescale: 1), duration: MediaTime(value: 1, timescale: 1))
        #expect(oneToThree.intersection(apart).isEmpty)
        #expect(!oneToThree.overlaps(apart))
        #expect(oneToThree.overlaps(twoToFive))
    }

    @Test func containsRanges() {
        let inner = MediaTimeRange(start: MediaTime(value: 3, timescale: 2), duration: MediaTime(value: 1, timescale: 2))
        #expect(oneToThree.contains(inner))
        #expect(!inner.contains(oneToThree))
    }

    @Test func emptinessAndValidity() {
        #expect(MediaTimeRange.zero.isEmpty)
        #expect(!MediaTimeRange.invalid.isValid)
        #expect(!MediaTimeRange(start: .zero, duration: MediaTime(value: -1, timescale: 1)).isValid)
        #expect(!oneToThree.isEmpty)
    }

    @Test func mappingScalesTimeForSpeedChanges() {
        // Ten source seconds played in two: x5 fast, as in the seed's speed control.
        let mapping = MediaTimeMapping(
            source: MediaTimeRange(start: .zero, duration: MediaTime(value: 10, timescale: 1)),
            target: MediaTimeRange(start: MediaTime(value: 4, timescale: 1), duration: MediaTime(value: 2, timescale: 1)))
        #expect(mapping.sourceTime(at: MediaTime(value: 5, timescale: 1)) == MediaTime(value: 5, timescale: 1))
        #expect(mapping.targetTime(at: MediaTime(value: 10, timescale: 1)) == MediaTime(value: 6, timescale: 1))
        #expect(MediaTimeMapping.empty(mapping.target).isEmpty)
        #expect(!MediaTimeMapping.empty(mapping.target).sourceTime(at: .zero).isValid)
    }

    @Test func aSlowedMappingIsExactAtFrameTimes() {
        // 0.6 s played in 2.4 (seed 003's slow x4): output frame 2 at 2/30 s shows source
        // time 1/60 s, which lies inside source frame 0 (rounding to 1/30 showed frame 1).
        let mapping = MediaTimeMapping(
            source: MediaTimeRange(start: .zero, duration: MediaTime(value: 360, timescale: 600)),
            target: MediaTimeRange(start: .zero, duration: MediaTime(value: 1440, timescale: 600)))
        #expect(mapping.sourceTime(at: MediaTime(value: 2, timescale: 30)) == MediaTime(value: 1, timescale: 60))
        #expect(mapping.sourceTime(at: MediaTime(value: 2, timescale: 30)) < MediaTime(value: 1, timescale: 30))
        #expect(mapping.targetTime(at: MediaTime(value: 1, timescale: 90)) == MediaTime(value: 4, timescale: 90))
        #expect(!mapping.sourceTime(at: MediaTime(value: 2, timescale: 30)).hasBeenRounded)
    }
}

import ReelCore
import Testing

@Suite struct MediaTimeTests {
    @Test func addsAcrossTimescalesExactly() {
        let third = MediaTime(value: 1, timescale: 3)
        let half = MediaTime(value: 1, timescale: 2)
        let sum = third + half
        #expect(sum.value == 5 && sum.timescale == 6)
        #expect(!sum.hasBeenRounded)
        // A 25 fps frame plus a 48 kHz audio frame of 1024 samples.
        let mixed = MediaTime(value: 1, timescale: 25) + MediaTime(value: 1024, timescale: 48000)
        #expect(mixed == MediaTime(value: 1920 + 1024, timescale: 48000))
    }

    @Test func subtractsToNegative() {
        let difference = MediaTime(value: 1, timescale: 25) - MediaTime(value: 3, timescale: 50)
        #expect(difference == MediaTime(value: -1, timescale: 50))
        #expect(difference < .zero)
    }

    @Test func tenThousandFramesAddUpWithoutDrift() {
        var total = MediaTime.zero
        let frame = MediaTime(value: 1001, timescale: 30000)
        for _ in 0..<10_000 { total += frame }
        #expect(total == MediaTime(value: 10_010_000, timescale: 30000))
        #expect(!total.hasBeenRounded)
    }

    @Test func comparesAcrossTimescales() {
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 300, timescale: 600))
        #expect(MediaTime(value: 1, timescale: 3) < MediaTime(value: 334, timescale: 1000))
        #expect(MediaTime(value: 1, timescale: 3) > MediaTime(value: 333, timescale: 1000))
        #expect(Set([MediaTime(value: 1, timescale: 2), MediaTime(value: 45000, timescale: 90000)]).count == 1)
    }

    @Test func comparesLargeValuesWithoutOverflow() {
        let a = MediaTime(value: Int64.max, timescale: Int32.max)
        let b = MediaTime(value: Int64.max - 1, timescale: Int32.max)
        #expect(b < a)
        #expect(MediaTime(value: Int64.max, timescale: 1) > MediaTime(value: Int64.max, timescale: 2))
    }

    @Test func overflowBecomesInfinityNotWraparound() {
        let big = MediaTime(value: Int64.max - 10, timescale: 1)
        #expect((big + MediaTime(value: 100, timescale: 1)).isPositiveInfinity)
        #expect((-big - MediaTime(value: 100, timescale: 1)).isNegativeInfinity)
        #expect((big * 3).isPositiveInfinity)
    }

    @Test func timescalesWithoutACommonMultipleRoundAndSaySo() {
        // lcm(2147483647, 2147483646) does not fit in Int32.
        let a = MediaTime(value: 1, timescale: Int32.max)
        let b = MediaTime(value: 1, timescale: Int32.max - 1)
        let sum = a + b
        #expect(sum.hasBeenRounded)
        #expect(sum.timescale == Int32.max)
        #expect(abs(sum.seconds - (a.seconds + b.seconds)) < 1e-9)
    }

    @Test(arguments: [
        (MediaTime.RoundingMethod.roundHalfAwayFromZero, Int64(3), Int64(-3), Int64(2), Int64(-2)),
        (.roundTowardZero, 3, -3, 1, -1),
        (.roundAwayFromZero, 4, -4, 2, -2),
        (.roundTowardPositiveInfinity, 4, -3, 2, -1),
        (.roundTowardNegativeInfinity, 3, -4, 1, -2),
    ])
    func convertsWithEachRoundingMethod(method: MediaTime.RoundingMethod, third: Int64, negativeThird: Int64,
                                        half: Int64, negativeHalf: Int64) {
        // 1/3 s and 1/2 s expressed in tenths and quarters of a second.
        #expect(MediaTime(value: 1, timescale: 3).convertScale(10, method: method).value == third)
        #expect(MediaTime(value: -1, timescale: 3).convertScale(10, method: method).value == negativeThird)
        #expect(MediaTime(value: 3, timescale: 4).convertScale(2, method: method).value == half)
        #expect(MediaTime(value: -3, timescale: 4).convertScale(2, method: method).value == negativeHalf)
        #expect(MediaTime(value: 1, timescale: 3).convertScale(10, method: method).hasBeenRounded)
    }

    @Test func exactConversionIsNotMarkedRounded() {
        let converted = MediaTime(value: 1, timescale: 25).convertScale(90000)
        #expect(converted.value == 3600)
        #expect(!converted.hasBeenRounded)
    }

    @Test func secondsRoundTrip() {
        #expect(MediaTime(seconds: 2.5, preferredTimescale: 600).value == 1500)
        #expect(MediaTime(seconds: 0.04, preferredTimescale: 25).value == 1)
        #expect(MediaTime(value: 251, timescale: 25).seconds == 10.04)
        #expect(MediaTime(seconds: .nan).isValid == false)
        #expect(MediaTime(seconds: .infinity).isPositiveInfinity)
        #expect(MediaTime(seconds: 1e300).isPositiveInfinity)
    }

    @Test func nonNumericTimesFollowCoreMedia() {
        #expect(!MediaTime.invalid.isValid)
        #expect(MediaTime(value: 1, timescale: 0) == .invalid)
        #expect((MediaTime.invalid + .zero).isValid == false)
        #expect((MediaTime.positiveInfinity + MediaTime(value: 5, timescale: 1)).isPositiveInfinity)
        #expect((MediaTime.positiveInfinity + .negativeInfinity).isValid == false)
        #expect((MediaTime.indefinite + MediaTime(value: 5, timescale: 1)).isIndefinite)
        #expect(MediaTime.negativeInfinity < MediaTime(value: Int64.min, timescale: 1))
        #expect(MediaTime(value: Int64.max, timescale: 1) < .positiveInfinity)
        #expect(MediaTime.positiveInfinity < .indefinite)
        #expect(MediaTime.indefinite < .invalid)
        #expect(MediaTime.positiveInfinity.seconds == .infinity)
        #expect(MediaTime.indefinite.seconds.isNaN)
    }

    @Test func multipliesByRatio() {
        let fiveSeconds = MediaTime(value: 3000, timescale: 600)
        #expect(fiveSeconds.multiplied(byRatio: 1, divisor: 5) == MediaTime(value: 1, timescale: 1))
        #expect(fiveSeconds.multiplied(byRatio: 4, divisor: 1) == MediaTime(value: 20, timescale: 1))
        #expect(MediaTime(value: 1, timescale: 600).multiplied(byRatio: 1, divisor: 3).hasBeenRounded)
        #expect(fiveSeconds.multiplied(byRatio: 1, divisor: 0).isValid == false)
    }
}

@Suite struct MediaTimeScalingTests {
    @Test func scalingByARatioOfTimesIsExact() {
        let four = MediaTime(value: 4, timescale: 1)
        #expect(MediaTime(value: 2, timescale: 1).scaled(by: MediaTime(value: 4, timescale: 5), over: four)
                == MediaTime(value: 2, timescale: 5))
        let third = MediaTime(value: 1, timescale: 3).scaled(by: MediaTime(value: 1001, timescale: 30000), over: four)
        #expect(third == MediaTime(value: 1001, timescale: 360000))
        #expect(!third.hasBeenRounded)
        #expect(!four.scaled(by: four, over: .zero).isValid)
    }
}

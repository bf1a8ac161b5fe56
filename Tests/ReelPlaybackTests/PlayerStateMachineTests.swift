import ReelCore
@testable import ReelPlayback
import Testing

/// The player's timing rules, as pure transitions: no clock, file or thread.
@Suite struct PlayerStateMachineTests {
    let end = MediaTime(value: 10, timescale: 1)
    func seconds(_ value: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: value, timescale: scale) }

    @Test func pausedTimeStandsStill() {
        var machine = PlayerStateMachine()
        machine.replaceItem(hasItem: true, at: seconds(100))
        #expect(machine.currentTime(at: seconds(105), end: end) == .zero)
        #expect(machine.timeControlStatus == .paused)
    }

    @Test func rateTwoAdvancesTwiceAsFast() {
        var machine = PlayerStateMachine()
        machine.replaceItem(hasItem: true, at: seconds(100))
        let changed = machine.setRate(2, at: seconds(100), end: end)
        #expect(changed)
        #expect(machine.currentTime(at: seconds(103), end: end) == seconds(6))
        let slowed = machine.setRate(0.5, at: seconds(103), end: end)
        #expect(slowed)
        #expect(machine.currentTime(at: seconds(105), end: end) == seconds(7))
        #expect(machine.timeControlStatus == .playing)
        let again = machine.setRate(0.5, at: seconds(105), end: end)
        #expect(!again) // unchanged
    }

    @Test func pauseKeepsTheTimeReached() {
        var machine = PlayerStateMachine()
        machine.replaceItem(hasItem: true, at: .zero)
        _ = machine.setRate(1, at: .zero, end: end)
        _ = machine.setRate(0, at: seconds(3, 2), end: end)
        #expect(machine.state == .paused(time: seconds(3, 2)))
        #expect(machine.currentTime(at: seconds(9), end: end) == seconds(3, 2))
    }

    @Test func seekKeepsTheRateAndClamps() {
        var machine = PlayerStateMachine()
        machine.replaceItem(hasItem: true, at: .zero)
        _ = machine.setRate(1, at: .zero, end: end)
        machine.seek(to: seconds(4), at: seconds(1), end: end)
        #expect(machine.currentTime(at: seconds(2), end: end) == seconds(5))
        machine.seek(to: seconds(-3), at: seconds(2), end: end)
        #expect(machine.currentTime(at: seconds(2), end: end) == .zero)
        machine.seek(to: seconds(30), at: seconds(2), end: end)
        #expect(machine.currentTime(at: seconds(2), end: end) == end)
    }

    @Test func endIsReportedOnceThenPauses() {
        var machine = PlayerStateMachine()
        machine.replaceItem(hasItem: true, at: .zero)
        _ = machine.setRate(1, at: .zero, end: end)
        let tick1 = machine.tick(at: seconds(9), end: end)
        #expect(tick1 == .none)
        let tick2 = machine.tick(at: seconds(11), end: end)
        #expect(tick2 == .reachedEnd(.pause))
        #expect(machine.state == .paused(time: end))
        #expect(machine.rate == 0)
        _ = machine.setRate(1, at: seconds(12), end: end)
        let tick3 = machine.tick(at: seconds(13), end: end)
        #expect(tick3 == .none) // already reported; a seek back re-arms it
        machine.seek(to: seconds(9), at: seconds(13), end: end)
        let tick4 = machine.tick(at: seconds(15), end: end)
        #expect(tick4 == .reachedEnd(.pause))
    }

    @Test func actionNoneKeepsTheRateAtTheEnd() {
        var machine = PlayerStateMachine()
        machine.actionAtItemEnd = .none
        machine.replaceItem(hasItem: true, at: .zero)
        _ = machine.setRate(2, at: .zero, end: end)
        let tick5 = machine.tick(at: seconds(6), end: end)
        #expect(tick5 == .reachedEnd(.none))
        #expect(machine.rate == 2)
        #expect(machine.currentTime(at: seconds(60), end: end) == seconds(120)) // runs on, as AVFoundation's does
    }

    @Test func noItemWaits() {
        var machine = PlayerStateMachine()
        _ = machine.setRate(1, at: .zero, end: .invalid)
        #expect(machine.timeControlStatus == .waitingToPlayAtSpecifiedRate)
        let tick6 = machine.tick(at: seconds(5), end: .invalid)
        #expect(tick6 == .none)
    }

    @Test func hostileRatesAreBounded() {
        #expect(PlayerStateMachine.Rate(.nan).thousandths == 0)
        #expect(PlayerStateMachine.Rate(-2).thousandths == 0)
        #expect(PlayerStateMachine.Rate(.infinity).thousandths == 0)
        #expect(PlayerStateMachine.Rate(1e300).value == PlayerStateMachine.maximumRate)
    }

    @Test func observerSchedule() {
        let half = seconds(1, 2)
        #expect(TimeObserverSchedule.slot(of: seconds(7, 10), interval: half) == 1)
        #expect(TimeObserverSchedule.slot(of: seconds(-1, 10), interval: half) == -1)
        #expect(TimeObserverSchedule.periodicDue(lastSlot: 1, time: seconds(9, 10), interval: half) == nil)
        #expect(TimeObserverSchedule.periodicDue(lastSlot: 1, time: seconds(1), interval: half) == 2)
        #expect(TimeObserverSchedule.periodicDue(lastSlot: nil, time: seconds(1), interval: .zero) == nil)
        let times = [seconds(2), seconds(1), seconds(3)]
        #expect(TimeObserverSchedule.crossed(times, from: seconds(1), to: seconds(2)) == [seconds(2)])
        #expect(TimeObserverSchedule.crossed(times, from: seconds(0), to: seconds(3)) == [seconds(1), seconds(2), seconds(3)])
        #expect(TimeObserverSchedule.crossed(times, from: seconds(3), to: seconds(1)).isEmpty)
    }
}

extension PlayerStateMachineTests {
    @Test func advanceStartsTheNextItemAtTheMomentTheLastEnded() {
        var machine = PlayerStateMachine()
        machine.actionAtItemEnd = .advance
        machine.replaceItem(hasItem: true, at: seconds(100))
        _ = machine.setRate(2, at: seconds(100), end: end)
        // Playing at 2 reaches the 10 s end at host 105; the clock is looked at only at 106.
        let tick = machine.tick(at: seconds(106), end: end)
        #expect(tick == .reachedEnd(.advance))
        #expect(machine.currentTime(at: seconds(106), end: end) == end) // stands at the end until advanced
        machine.advance(hasItem: true, end: end)
        #expect(machine.currentTime(at: seconds(106), end: end) == seconds(2)) // 1 s of host at rate 2 into the next
        #expect(machine.rate == 2)
    }
}

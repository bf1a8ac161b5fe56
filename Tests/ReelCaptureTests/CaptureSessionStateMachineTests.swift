@testable import ReelCapture
import Testing

/// The session's configuration and running rules, as pure transitions.
@Suite struct CaptureSessionStateMachineTests {
    @Test func nestedConfigurationTakesEffectAtTheOutermostCommit() {
        var machine = CaptureSessionStateMachine()
        machine.beginConfiguration()
        machine.beginConfiguration()
        machine.change { $0.preset = .low }
        #expect(machine.current.preset == .low, "calls read what is staged")
        #expect(machine.committed.preset == .high, "frames still use what is committed")
        let result1 = machine.commitConfiguration()
        #expect(result1 == nil, "the inner commit applies nothing")
        let pending = machine.commitConfiguration()
        #expect(pending?.preset == .low)
        if let pending { machine.applyCommit(pending) }
        #expect(machine.committed.preset == .low)
        #expect(machine.staged == nil)
        let result2 = machine.commitConfiguration()
        #expect(result2 == nil, "an unmatched commit changes nothing")
    }

    @Test func aRunStartsOnceWithANewGenerationAndStopsOnce() {
        var machine = CaptureSessionStateMachine()
        let first = machine.start(atNanoseconds: 100)
        #expect(first?.1.generation == 1)
        let result3 = machine.start(atNanoseconds: 200)
        #expect(result3 == nil, "already running")
        #expect(machine.isRunning)
        #expect(machine.run == nil, "no timers until started")
        if let run = first?.1 {
            let accepted = machine.started(run)
            #expect(accepted)
        }
        #expect(machine.run?.startNanoseconds == 100)
        let result4 = machine.stop()
        #expect(result4?.isEmpty == true, "no timers were made in this test")
        let result5 = machine.stop()
        #expect(result5 == nil, "stopped twice")
        let result6 = machine.start(atNanoseconds: 300)
        #expect(result6?.1.generation == 2, "the queues see a new run")
    }

    @Test func aStopWhileStartingRefusesTheTimers() {
        var machine = CaptureSessionStateMachine()
        let run = machine.start(atNanoseconds: 0)?.1
        _ = machine.stop()
        if let run {
            let accepted = machine.started(run)
            #expect(!accepted, "the starter must cancel its timers")
        }
        #expect(!machine.isRunning)
    }

    @Test func anInterruptionIsReportedOnceAndLastsUntilTheNextStart() {
        var machine = CaptureSessionStateMachine()
        if let run = machine.start(atNanoseconds: 0)?.1 { _ = machine.started(run) }
        let result7 = machine.interrupt()
        #expect(result7 != nil)
        let result8 = machine.interrupt()
        #expect(result8 == nil, "the second device to go away is not news")
        #expect(machine.isInterrupted && machine.isRunning)
        let result9 = machine.start(atNanoseconds: 1)
        #expect(result9 == nil, "an interrupted session is stopped before it starts again")
        let result10 = machine.stop()
        #expect(result10 != nil)
        #expect(machine.isInterrupted && !machine.isRunning, "a stopped session still says it was interrupted")
        let result11 = machine.start(atNanoseconds: 2)
        #expect(result11 != nil)
        #expect(!machine.isInterrupted)
    }
}

import Foundation
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

    /// The notifications' rules: a start and a stop are queued with their change of state, a
    /// stop's held (and what comes after it) until the stop is done, one thread posts at a
    /// time, and a stop takes the posting over from another thread, which then posts no more.
    @Test func aStopsNotificationKeepsItsPlaceAndAStopTakesThePostingOver() {
        final class Session: Sendable {}
        let session = Session()
        func note(_ name: String) -> CaptureSessionStateMachine.PendingNotification {
            .init(name: Notification.Name(name), object: session)
        }
        func name(_ notification: CaptureSessionStateMachine.PendingNotification?) -> String? { notification?.name.rawValue }
        var machine = CaptureSessionStateMachine()
        guard let run = machine.start(atNanoseconds: 0)?.1 else {
            Issue.record("the session did not start")
            return
        }
        let accepted = machine.started(run, announcing: note("start"))
        let asked = machine.requestDelivery()
        #expect(accepted && asked, "nothing was being posted: the queue is asked")
        let (queue, stopper): (pthread_t, pthread_t) = (1, 2)
        let first = machine.beginDelivery(by: queue) ?? -1
        let started = name(machine.nextNotification(turn: first))
        #expect(started == "start")
        // Stopped while the queue sits in the start's observer: queued, held.
        let hold = machine.stop(announcing: note("stop"))?.hold
        let askedAgain = machine.enqueue(note("later"))
        let nested = machine.beginDelivery(by: queue)
        let other = machine.beginDelivery(by: stopper)
        #expect(hold != nil && !askedAgain, "being posted already")
        #expect(nested == nil, "the queue's thread is posting further out")
        #expect(other == nil, "only a stop takes over")
        // The stop is done: it takes the posting over and posts its notification, then what followed.
        let released = machine.release(hold)
        #expect(!released, "a thread is posting: nobody is asked")
        let taken = machine.beginDelivery(by: stopper, takingOver: true) ?? -1
        let lost = machine.nextNotification(turn: first)
        let posted = [machine.nextNotification(turn: taken), machine.nextNotification(turn: taken),
                      machine.nextNotification(turn: taken)].map(name)
        #expect(taken != first && lost == nil, "the queue lost its turn")
        #expect(posted == ["stop", "later", nil])
        let idle = machine.requestDelivery()
        #expect(idle, "idle again")
        // A held stop stops the posting until it is released, which then asks the queue.
        var held = CaptureSessionStateMachine()
        if let again = held.start(atNanoseconds: 0)?.1 { _ = held.started(again, announcing: note("start")) }
        let stopHold = held.stop(announcing: note("stop"))?.hold
        let turn = held.beginDelivery(by: queue) ?? -1
        let before = [held.nextNotification(turn: turn), held.nextNotification(turn: turn)].map(name)
        #expect(before == ["start", nil], "the stop is still under way")
        let ask = held.release(stopHold)
        #expect(ask, "nothing is being posted: the queue is asked")
        let next = held.beginDelivery(by: queue) ?? -1
        let after = name(held.nextNotification(turn: next))
        #expect(after == "stop")
        // A start cut short by a stop announces neither.
        var short = CaptureSessionStateMachine()
        _ = short.start(atNanoseconds: 0)
        let cut = short.stop(announcing: note("stop"))
        #expect(cut != nil && cut?.hold == nil)
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

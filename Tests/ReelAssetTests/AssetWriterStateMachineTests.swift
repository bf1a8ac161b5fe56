@testable import ReelAsset
import ReelCore
import Testing

/// The writer's rules, as pure transitions: no files, no encoders, no threads.
@Suite struct AssetWriterStateMachineTests {
    typealias Machine = AssetWriterStateMachine<String>

    static func writing() -> Machine {
        var machine = Machine()
        _ = machine.beginStarting()
        let result1 = machine.started("file")
        #expect(result1)
        return machine
    }

    @Test func settingsAreFrozenWhenWritingStarts() {
        var machine = Machine()
        #expect(machine.configure { $0.movieFragmentInterval = MediaTime(value: 1, timescale: 1) })
        let settings = machine.beginStarting()
        #expect(settings?.isFragmented == true)
        let result2 = machine.beginStarting()
        #expect(result2 == nil, "a second start is refused")
        #expect(!machine.configure { $0.shouldOptimizeForNetworkUse = false })
        #expect(machine.settings.shouldOptimizeForNetworkUse)
        #expect(machine.status == .unknown)
        let result3 = machine.started("file")
        #expect(result3)
        #expect(machine.status == .writing)
    }

    @Test func theSessionIsStartedOnceAndEndedLater() {
        var machine = Self.writing()
        _ = machine.startSession(at: MediaTime(value: 2, timescale: 1))
        _ = machine.startSession(at: MediaTime(value: 3, timescale: 1))
        machine.endSession(at: MediaTime(value: 5, timescale: 1))
        #expect(machine.session?.start == MediaTime(value: 2, timescale: 1))
        #expect(machine.session?.end == MediaTime(value: 5, timescale: 1))
    }

    @Test func aFailureWhileWritingHandsTheFileToCloseAndKeepsTheFirstError() {
        var machine = Self.writing()
        let first = ReelError(.diskFull, "full"), second = ReelError(.io, "later")
        guard case .discard(let file) = machine.fail(first) else {
            Issue.record("no cleanup")
            return
        }
        #expect(file == "file")
        guard case .none = machine.fail(second) else {
            Issue.record("a second cleanup")
            return
        }
        #expect(machine.error == first)
        #expect(machine.status == .failed)
        // The finisher closes the same file (closing is idempotent) and throws the first error.
        guard case .fail(let error, let cleanup) = machine.beginFinishing() else {
            Issue.record("finish went on")
            return
        }
        #expect(error == first && cleanup == "file")
    }

    @Test func aFailureWhileFinishingIsTheFinishersToCleanUp() {
        var machine = Self.writing()
        guard case .finish = machine.beginFinishing() else {
            Issue.record("no finish")
            return
        }
        let result4 = machine.checkFinishing()
        #expect(result4 == .goOn)
        guard case .none = machine.fail(ReelError(.io, "encoder")) else {
            Issue.record("a cleanup racing the finisher")
            return
        }
        let result5 = machine.checkFinishing()
        #expect(result5 == .failed(ReelError(.io, "encoder")))
    }

    @Test func aCancelWhileFinishingIsActedOnByTheFinisher() {
        var machine = Self.writing()
        guard case .finish = machine.beginFinishing() else {
            Issue.record("no finish")
            return
        }
        guard case .none = machine.cancel() else {
            Issue.record("a cleanup racing the finisher")
            return
        }
        #expect(machine.status == .writing)
        let result6 = machine.checkFinishing()
        #expect(result6 == .cancelled)
        #expect(machine.status == .cancelled)
        machine.finished()
        #expect(machine.status == .cancelled)
    }

    @Test func aCancelWhileWritingClosesTheFileAndRefusesAFinish() {
        var machine = Self.writing()
        guard case .discard("file") = machine.cancel() else {
            Issue.record("no cleanup")
            return
        }
        #expect(machine.status == .cancelled)
        guard case .refuse(.cancelled) = machine.beginFinishing() else {
            Issue.record("finish went on")
            return
        }
        guard case .none = machine.cancel() else {
            Issue.record("a second cleanup")
            return
        }
    }

    @Test func aCancelWhileStartingLeavesTheOpenedFileToItsOpener() {
        var machine = Machine()
        _ = machine.beginStarting()
        guard case .none = machine.cancel() else {
            Issue.record("cleanup of nothing")
            return
        }
        let result7 = machine.started("file")
        #expect(!result7, "the opener must close what it opened")
        #expect(machine.status == .cancelled)
    }

    @Test func aCompletedWriterStaysCompleted() {
        var machine = Self.writing()
        guard case .finish = machine.beginFinishing() else {
            Issue.record("no finish")
            return
        }
        machine.finished()
        #expect(machine.status == .completed)
        guard case .none = machine.cancel() else {
            Issue.record("cancel after completion")
            return
        }
        guard case .none = machine.fail(ReelError(.io, "late")) else {
            Issue.record("fail after completion")
            return
        }
        #expect(machine.status == .completed)
        guard case .refuse(.completed) = machine.beginFinishing() else {
            Issue.record("finished twice")
            return
        }
    }
}

import Dispatch
import Foundation
@testable import ReelCapture
import ReelCore
import Testing

/// The segmented recorder's bookkeeping as values.
@Suite struct SegmentedRecorderStateMachineTests {
    let folder = URL(fileURLWithPath: "/tmp/segments")
    let limit = MediaTime(value: 15, timescale: 1)

    @Test func segmentsAreNumberedKeptAndUndone() throws {
        var machine = SegmentedRecorderStateMachine()
        let first = try machine.beginSegment(remaining: limit, limit: limit, in: folder)
        #expect(first.lastPathComponent == "segment-1.mp4" && machine.isRecording)
        #expect(throws: ReelError.self) { try machine.beginSegment(remaining: limit, limit: limit, in: folder) }
        _ = machine.segmentEnded(SegmentedRecorder.Segment(url: first, duration: MediaTime(value: 4, timescale: 1)))
        // A failed segment is not kept, but its number is used.
        let failed = try machine.beginSegment(remaining: limit, limit: limit, in: folder)
        _ = machine.segmentEnded(nil)
        let third = try machine.beginSegment(remaining: limit, limit: limit, in: folder)
        _ = machine.segmentEnded(SegmentedRecorder.Segment(url: third, duration: MediaTime(value: 6, timescale: 1)))
        #expect(failed.lastPathComponent == "segment-2.mp4" && third.lastPathComponent == "segment-3.mp4")
        #expect(machine.finishedDuration == MediaTime(value: 10, timescale: 1) && !machine.isRecording)
        let undone = machine.removeLast(), rest = machine.removeAll()
        #expect(undone?.url == third)
        #expect(rest.map(\.url) == [first] && machine.segments.isEmpty)
    }

    @Test func nothingStartsAtTheLimit() {
        var machine = SegmentedRecorderStateMachine()
        #expect(throws: ReelError.self) { try machine.beginSegment(remaining: .zero, limit: limit, in: folder) }
        #expect(!machine.isRecording)
    }

    /// A segment that ends before its progress timer is handed over (at once, at the limit)
    /// must not leave the timer running: the recorder is told to cancel it.
    @Test func aTimerForASegmentAlreadyEndedIsRefused() throws {
        var machine = SegmentedRecorderStateMachine()
        let url = try machine.beginSegment(remaining: limit, limit: limit, in: folder)
        let none = machine.segmentEnded(SegmentedRecorder.Segment(url: url, duration: .zero))
        #expect(none == nil)
        // (A dispatch source must be resumed before it is released.)
        let timer = DispatchSource.makeTimerSource()
        timer.resume()
        defer { timer.cancel() }
        let late = machine.progressStarted(timer)
        #expect(!late)
        _ = try machine.beginSegment(remaining: limit, limit: limit, in: folder)
        let handed = machine.progressStarted(timer)
        let cancel = machine.segmentEnded(nil)
        #expect(handed && cancel.map { $0 as AnyObject } === timer as AnyObject)
    }
}

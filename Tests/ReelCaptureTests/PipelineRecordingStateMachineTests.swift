@testable import ReelCapture
import ReelCore
import Testing

/// The filtered pipeline's recording as values: the race the pipeline had (the sound's
/// queue writing before the first picture's thread had started the writer's session, and
/// between the sound of that picture's moment) cannot happen in these transitions.
@Suite struct PipelineRecordingStateMachineTests {
    typealias Machine = PipelineRecordingStateMachine<String>

    /// 1024 samples of silence at 48 kHz from sample `start`.
    func sound(_ start: Int64) throws -> SampleBuffer {
        let buffer = try AudioBuffer.float(channels: [[Float](repeating: 0, count: 1024)], sampleRate: 48000)
        return SampleBuffer(audioBuffer: buffer, presentationTime: MediaTime(value: start, timescale: 48000))
    }

    @Test func soundWaitsWhileTheSessionStartsAndIsWrittenInOrder() throws {
        var machine = Machine()
        // Sound before any recording is only remembered.
        guard case .none = machine.sound(try sound(0)) else {
            Issue.record("sound written while idle")
            return
        }
        let started = machine.start("writer"), second = machine.start("second")
        #expect(started && !second, "one recording at a time")
        guard case .none = machine.sound(try sound(1024)) else {
            Issue.record("sound written before the first picture")
            return
        }
        // The first picture at 1500/48000 s: the sound of its moment (the run from 1024) is handed over.
        guard case .start(let sink, let earlier) = machine.picture(at: MediaTime(value: 1500, timescale: 48000)) else {
            Issue.record("the first picture does not start the session")
            return
        }
        #expect(sink == "writer" && earlier.map(\.presentationTime.value) == [1024])
        // Sound that comes while the session starts waits: the old pipeline let it through here.
        guard case .none = machine.sound(try sound(2048)) else {
            Issue.record("sound written while the session starts")
            return
        }
        let handedOver = machine.sessionStarted(written: MediaTime(value: 2048, timescale: 48000))
        let pending = try #require(handedOver)
        #expect(pending.map(\.presentationTime.value) == [2048])
        let more = machine.sessionStarted(written: MediaTime(value: 3072, timescale: 48000))
        #expect(more == nil)
        // Now the sound's queue writes, from where the start left off.
        guard case .write = machine.sound(try sound(3072)) else {
            Issue.record("sound dropped after the start")
            return
        }
        guard case .write = machine.picture(at: MediaTime(value: 3100, timescale: 48000)) else {
            Issue.record("picture dropped")
            return
        }
        machine.pictureWritten()
        let ended = machine.stop()
        let stopped = try #require(ended)
        #expect(stopped.sink == "writer" && stopped.frames == 1 && stopped.failure == nil)
        let again = machine.stop()
        #expect(!machine.isRecording && again == nil)
    }

    @Test func aFailureKeepsTheFirstErrorAndDropsTheRest() throws {
        var machine = Machine()
        let started = machine.start("writer")
        #expect(started)
        guard case .start = machine.picture(at: .zero) else {
            Issue.record("no start")
            return
        }
        let pending = machine.sessionStarted(written: .invalid)
        #expect(pending == nil)
        machine.fail(ReelError(.io, "first"))
        machine.fail(ReelError(.io, "second"))
        guard case .none = machine.sound(try sound(0)) else {
            Issue.record("sound written after a failure")
            return
        }
        guard case .none = machine.picture(at: MediaTime(value: 1, timescale: 30)) else {
            Issue.record("picture after a failure")
            return
        }
        let stopped = machine.stop()
        #expect(stopped?.failure?.message == "first")
    }
}

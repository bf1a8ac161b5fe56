import Foundation
@testable import ReelCapture
import ReelCore
import Testing

/// The movie file output's rules, as pure transitions: no session, no threads, no files.
@Suite struct RecordingStateMachineTests {
    typealias Machine = RecordingStateMachine<String>

    static let frame = MediaTime(value: 1, timescale: 30)

    static func picture(_ index: Int64) throws -> SampleBuffer {
        SampleBuffer(pixelBuffer: try PixelBuffer(width: 16, height: 16, pixelFormat: .yuv420p),
                     presentationTime: frame * index, duration: frame)
    }

    /// 1024 samples at 48 kHz starting at `sample`.
    static func sound(_ sample: Int64) throws -> SampleBuffer {
        SampleBuffer(audioBuffer: try AudioBuffer.float(channels: [[Float](repeating: 0, count: 1024)], sampleRate: 48000),
                     presentationTime: MediaTime(value: sample, timescale: 48000))
    }

    /// A machine recording to "file", its first picture (frame `first`) written.
    static func recording(from first: Int64 = 10, audio: Bool = true, limit: MediaTime = .invalid) throws -> Machine {
        var machine = Machine()
        let result1 = machine.beginOpening()
        #expect(result1)
        let result2 = machine.opened("file", hasAudio: audio, limit: limit)
        #expect(result2 == nil)
        guard case .write = machine.video(try picture(first)) else {
            Issue.record("the first picture is not written")
            return machine
        }
        _ = machine.videoWritten(error: nil)
        return machine
    }

    @Test func picturesThatCameWhileOpeningAreWrittenFirstAndStartTheSession() throws {
        var machine = Machine()
        let result3 = machine.beginOpening()
        #expect(result3)
        let result4 = machine.beginOpening()
        #expect(!result4, "a second recording is refused while one opens")
        let result5 = machine.video(try Self.picture(3))
        #expect(result5.isDrop)
        let result6 = machine.video(try Self.picture(4))
        #expect(result6.isDrop)
        let result7 = machine.opened("file", hasAudio: true, limit: .invalid)
        #expect(result7 == nil)
        guard case .write(let sink, let pictures, let startAt, _, let frames, let finish) = machine.video(try Self.picture(5)) else {
            Issue.record("not written")
            return
        }
        #expect(sink == "file")
        #expect(pictures.map(\.presentationTime) == [Self.frame * 3, Self.frame * 4, Self.frame * 5])
        #expect(startAt == Self.frame * 3)
        #expect(frames == 3)
        #expect(finish == nil)
        #expect(machine.isRecording)
    }

    @Test func soundFromBeforeTheFirstPictureIsWrittenWithTheNextSound() throws {
        var machine = Machine()
        let result8 = machine.beginOpening()
        #expect(result8)
        // Sound at 0.30 s and 0.32 s; the first picture at 10/30 s = 0.333 s.
        let result9 = machine.audio(try Self.sound(14400))
        #expect(result9.isDrop)
        let result10 = machine.audio(try Self.sound(15424))
        #expect(result10.isDrop)
        let result11 = machine.opened("file", hasAudio: true, limit: .invalid)
        #expect(result11 == nil)
        _ = machine.video(try Self.picture(10))
        _ = machine.videoWritten(error: nil)
        guard case .write(_, let samples) = machine.audio(try Self.sound(16448)) else {
            Issue.record("not written")
            return
        }
        // The run ending before the first picture is left out; the one across it is kept.
        #expect(samples.map(\.presentationTime.value) == [15424, 16448])
    }

    /// An encoder that takes most of a second to open (a busy machine): the pictures that
    /// waited are written, and so is all their sound. Half a second of it was kept before,
    /// and the recording's sound started up to two AAC frames after its first picture
    /// (RecoveredRecordingSyncTests saw 42.7 ms at load 30).
    @Test func aSlowOpeningKeepsTheSoundOfEveryPictureThatWaited() throws {
        var machine = Machine()
        let began = machine.beginOpening()
        #expect(began)
        // 0.9 s: 27 pictures and 43 runs of sound, interleaved as they come.
        var nextSound: Int64 = 0
        for index in 0..<27 {
            _ = machine.video(try Self.picture(Int64(index)))
            while nextSound < Int64(index + 1) * 1600 {
                let kept = machine.audio(try Self.sound(nextSound))
                #expect(kept.isDrop)
                nextSound += 1024
            }
        }
        let stop = machine.opened("file", hasAudio: true, limit: .invalid)
        #expect(stop == nil)
        guard case .write(_, let pictures, let startAt, _, _, _) = machine.video(try Self.picture(27)) else {
            Issue.record("not written")
            return
        }
        #expect(pictures.count == 28 && startAt == .zero)
        _ = machine.videoWritten(error: nil)
        guard case .write(_, let samples) = machine.audio(try Self.sound(nextSound)) else {
            Issue.record("the sound is not written")
            return
        }
        #expect(samples.first?.presentationTime == .zero, "the sound starts at \(samples.first?.presentationTime.seconds ?? -1) s")
        #expect(samples.count == Int(nextSound / 1024) + 1)
        // Sound from before the oldest waiting picture is still let go.
        var late = Machine()
        let lateBegan = late.beginOpening()
        #expect(lateBegan)
        for run in 0..<10 { _ = late.audio(try Self.sound(Int64(run) * 1024)) }
        _ = late.video(try Self.picture(6)) // 0.2 s: sample 9600, inside the tenth run
        _ = late.audio(try Self.sound(10240))
        let lateStop = late.opened("file", hasAudio: true, limit: .invalid)
        #expect(lateStop == nil)
        _ = late.video(try Self.picture(7))
        _ = late.videoWritten(error: nil)
        guard case .write(_, let kept) = late.audio(try Self.sound(11264)) else {
            Issue.record("the sound is not written")
            return
        }
        #expect(kept.map(\.presentationTime.value) == [9216, 10240, 11264])
        // A starved camera: 2.5 s of sound reach the output before the first picture (t = 0).
        var starved = Machine()
        let starvedBegan = starved.beginOpening()
        #expect(starvedBegan)
        for run in 0..<118 { _ = starved.audio(try Self.sound(Int64(run) * 1024)) }
        let starvedStop = starved.opened("file", hasAudio: true, limit: .invalid)
        #expect(starvedStop == nil)
        _ = starved.video(try Self.picture(0))
        _ = starved.videoWritten(error: nil)
        guard case .write(_, let all) = starved.audio(try Self.sound(118 * 1024)) else {
            Issue.record("the sound is not written")
            return
        }
        #expect(all.first?.presentationTime == .zero && all.count == 119, "\(all.count) runs from \(all.first?.presentationTime.seconds ?? -1) s")
    }

    /// Sound that comes after the first picture but ends before it (a microphone behind the
    /// camera) is left out: written, it would be laid from the start, late by its offset.
    @Test func soundThatEndsBeforeTheFirstPictureIsLeftOutEvenWhenItComesLate() throws {
        var machine = try Self.recording(from: 30) // 1 s: sample 48000
        let late = machine.audio(try Self.sound(45056)) // 45056...46080, before the picture
        #expect(late.isDrop)
        guard case .write(_, let samples) = machine.audio(try Self.sound(47104)) else {
            Issue.record("the run across the first picture is not written")
            return
        }
        #expect(samples.map(\.presentationTime.value) == [47104])
    }

    @Test func theDurationLimitStopsAtItsInstant() throws {
        var machine = try Self.recording(from: 0, limit: MediaTime(value: 1, timescale: 10))
        // 0.1 s is three frames: the third reaches the limit and stops the recording.
        guard case .write(_, _, _, _, _, nil) = machine.video(try Self.picture(1)) else {
            Issue.record("frame 1")
            return
        }
        _ = machine.videoWritten(error: nil)
        guard case .write(_, _, _, _, _, let finish?) = machine.video(try Self.picture(2)) else {
            Issue.record("frame 2 should end the recording")
            return
        }
        #expect(finish.end == MediaTime(value: 1, timescale: 10))
        let result12 = machine.video(try Self.picture(3))
        #expect(result12.isDrop, "no picture after the stop")
        #expect(machine.summary.reason == .maximumDurationReached)
    }

    @Test func aStopWaitsForTheSoundOfTheLastPictureAndCutsTheRest() throws {
        var machine = try Self.recording(from: 0)
        // Pictures to 2/30 s (3200 samples); sound so far to 1024.
        _ = machine.video(try Self.picture(1))
        _ = machine.videoWritten(error: nil)
        guard case .write = machine.audio(try Self.sound(0)) else {
            Issue.record("sound 0")
            return
        }
        let result13 = machine.audioWritten(end: MediaTime(value: 1024, timescale: 48000), error: nil)
        #expect(result13.isNothing)
        let orderResult = machine.stop(.requested)
        let order = try #require(orderResult)
        #expect(order.end == Self.frame * 2)
        #expect(order.mustWait, "the sound has not reached the last picture")
        let result14 = machine.video(try Self.picture(2))
        #expect(result14.isDrop, "no picture after the stop")
        let result15 = machine.stop(.requested)
        #expect(result15 == nil, "a second stop finishes nothing")
        guard case .write = machine.audio(try Self.sound(1024)) else {
            Issue.record("sound 1024")
            return
        }
        let result16 = machine.audioWritten(end: MediaTime(value: 2048, timescale: 48000), error: nil)
        #expect(result16.isNothing)
        guard case .write = machine.audio(try Self.sound(2048)) else {
            Issue.record("sound 2048")
            return
        }
        let result17 = machine.audioWritten(end: MediaTime(value: 3072, timescale: 48000), error: nil)
        #expect(result17.isNothing)
        guard case .write = machine.audio(try Self.sound(3072)) else {
            Issue.record("sound 3072")
            return
        }
        let result18 = machine.audioWritten(end: MediaTime(value: 4096, timescale: 48000), error: nil)
        #expect(result18.isWake)
        let result19 = machine.audio(try Self.sound(4096))
        #expect(result19.isDrop, "sound past the last picture is left out")
        let (error, summary) = machine.finished()
        #expect(error == nil)
        #expect(summary == Machine.Summary(duration: Self.frame * 2, frames: 2, reason: .requested, start: .zero))
        #expect(machine.summary.duration == Self.frame * 2, "the duration stays readable after the finish")
    }

    @Test func aStopWithTheSoundInNeedNotWait() throws {
        var machine = try Self.recording(from: 0)
        guard case .write = machine.audio(try Self.sound(0)) else {
            Issue.record("sound")
            return
        }
        _ = machine.audioWritten(end: MediaTime(value: 2048, timescale: 48000), error: nil)
        let result20 = machine.stop(.requested)
        #expect(result20?.mustWait == false)
    }

    @Test func aMicrophoneThatFallsSilentIsGivenUpOnOnceItsAppendEnds() throws {
        var machine = try Self.recording(from: 0)
        guard case .write = machine.audio(try Self.sound(0)) else {
            Issue.record("sound")
            return
        }
        // An append is under way when the stop comes, and the wait runs out.
        let result21 = machine.stop(.requested)
        #expect(result21?.mustWait == true)
        let result22 = machine.stopWaitingForAudio()
        #expect(!result22, "the append under way must end first")
        let result23 = machine.audioWritten(end: MediaTime(value: 1024, timescale: 48000), error: nil)
        #expect(result23.isWake)
        let result24 = machine.audio(try Self.sound(1024))
        #expect(result24.isDrop)
    }

    @Test func aFailedAppendFinishesTheRecordingAsFailed() throws {
        var machine = try Self.recording(from: 0)
        _ = machine.video(try Self.picture(1))
        let failure = ReelError(.diskFull, "no space")
        guard case .finish(let order) = machine.videoWritten(error: failure) else {
            Issue.record("no finish")
            return
        }
        #expect(order.sink == "file")
        let (error, summary) = machine.finished()
        #expect(error == failure)
        #expect(summary.reason == .failed)
    }

    @Test func aStopWhileOpeningFinishesOnceOpen() throws {
        var machine = Machine()
        let result25 = machine.beginOpening()
        #expect(result25)
        let result26 = machine.stop(.requested)
        #expect(result26 == nil)
        let orderResult = machine.opened("file", hasAudio: false, limit: .invalid)
        let order = try #require(orderResult)
        #expect(!order.mustWait)
        let result27 = machine.finished()
        #expect(result27.summary.reason == .requested)
        let result28 = machine.beginOpening()
        #expect(result28, "the next recording can start")
    }

    @Test func anInterruptionKeepsItsReasonAndError() throws {
        var machine = try Self.recording(from: 0, audio: false)
        let gone = ReelError(.io, "recording stopped: the device went away")
        let result29 = machine.stop(.interrupted, error: gone)
        #expect(result29?.mustWait == false)
        let (error, summary) = machine.finished()
        #expect(error == gone)
        #expect(summary.reason == .interrupted)
    }
}

extension RecordingStateMachine.VideoAction {
    var isDrop: Bool {
        if case .drop = self { return true }
        return false
    }
}

extension RecordingStateMachine.AudioAction {
    var isDrop: Bool {
        if case .drop = self { return true }
        return false
    }
}

extension RecordingStateMachine.AfterWrite {
    var isNothing: Bool {
        if case .nothing = self { return true }
        return false
    }

    var isWake: Bool {
        if case .wakeFinisher = self { return true }
        return false
    }
}

extension RecordingStateMachine.FinishOrder: Equatable where Sink: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.sink == rhs.sink && lhs.end == rhs.end && lhs.mustWait == rhs.mustWait
    }
}

import Foundation
import ReelCore
@testable import ReelPlayback
import ReelTestSupport
import Testing

/// The states ReelPlayback keeps under its locks, driven as pure transitions (the player's
/// time observers and the sound device's clock, with no player, device or thread), and the
/// player's item-change lock taken from two threads at once.
@Suite struct PlaybackLockStateTests {
    func seconds(_ value: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: value, timescale: scale) }

    /// Runs the calls `due` gives and returns what the blocks recorded.
    private func run(_ calls: [PlayerObserversStateMachine.Call], into log: PosixMutex<[String]>) -> [String] {
        log.withLock { $0 = [] }
        for call in calls { call.block() }
        return log.withLock { $0.sorted() }
    }

    @Test func periodicObserversFireOnEachNewSlotAndOnEveryJump() {
        let log = PosixMutex<[String]>([])
        var observers = PlayerObserversStateMachine()
        let id = observers.add(
            .init(
                interval: seconds(1, 2), queue: nil,
                block: { time in
                    log.withLock { $0.append("p \(time.seconds)") }
                }))
        #expect(run(observers.due(at: .zero, jumped: true), into: log) == ["p 0.0"])
        // Still in slot 0: nothing; slot 1 at 0.5 s: once; slot 1 again: nothing.
        #expect(run(observers.due(at: seconds(1, 4), jumped: false), into: log).isEmpty)
        #expect(run(observers.due(at: seconds(1, 2), jumped: false), into: log) == ["p 0.5"])
        #expect(run(observers.due(at: seconds(3, 4), jumped: false), into: log).isEmpty)
        // A jump fires whatever the slot, and counts slots from there.
        #expect(run(observers.due(at: seconds(3, 4), jumped: true), into: log) == ["p 0.75"])
        #expect(run(observers.due(at: seconds(9, 10), jumped: false), into: log).isEmpty)
        observers.remove(id)
        #expect(observers.due(at: seconds(5), jumped: true).isEmpty)
    }

    @Test func boundaryObserversFireOncePerTimeCrossedInNormalPlayOnly() {
        let log = PosixMutex<[String]>([])
        var observers = PlayerObserversStateMachine()
        _ = observers.add(
            .init(
                times: [seconds(1), seconds(2), .invalid, seconds(3)], queue: nil,
                block: {
                    log.withLock { $0.append("b") }
                }))
        #expect(run(observers.due(at: seconds(1, 2), jumped: false), into: log).isEmpty)
        // 0.5 → 2.5 crosses 1 and 2 (the invalid time is dropped).
        #expect(run(observers.due(at: seconds(5, 2), jumped: false), into: log) == ["b", "b"])
        // A seek back then forward past 3 crosses nothing while jumping…
        #expect(run(observers.due(at: seconds(7, 2), jumped: true), into: log).isEmpty)
        #expect(observers.lastTime == seconds(7, 2))
        // …and normal play onwards from there crosses nothing more.
        #expect(run(observers.due(at: seconds(4), jumped: false), into: log).isEmpty)
        // Going backwards in normal play crosses nothing either.
        #expect(run(observers.due(at: seconds(1, 2), jumped: false), into: log).isEmpty)
        #expect(run(observers.due(at: seconds(1), jumped: false), into: log) == ["b"])
    }

    @Test func theSoundClockNeverRunsBackNorPastWhatWasWritten() {
        var clock = AudioClock.State(sampleRate: 48000)
        #expect(clock.reading(at: seconds(100)) == .zero)
        // 0.1 s written at host 100 s, 0.05 s of it still waiting: 0.05 s heard.
        clock.didWrite(4800, latencyMicroseconds: 50000, at: seconds(100))
        #expect(clock.reading(at: seconds(100)) == MediaTime(value: 2400, timescale: 48000))
        // 20 ms later by the host clock: 0.07 s; 1 s later: held at the 0.1 s written.
        #expect(clock.reading(at: seconds(10002, 100)) == MediaTime(value: 3360, timescale: 48000))
        #expect(clock.reading(at: seconds(101)) == MediaTime(value: 4800, timescale: 48000))
        // A write reporting more latency would step the reading back: it holds instead.
        clock.didWrite(480, latencyMicroseconds: 100_000, at: seconds(101))
        #expect(clock.reading(at: seconds(101)) == MediaTime(value: 4800, timescale: 48000))
        // A flush keeps the sample being heard and puts the next write the new latency after it.
        clock.didFlush(latencyMicroseconds: 20000, at: seconds(101))
        #expect(clock.written == 480 + 960)
        #expect(clock.reading(at: seconds(101)) == MediaTime(value: 4800, timescale: 48000))
        // An absurd latency is bounded at 10 s, not overflowed.
        clock.didWrite(480, latencyMicroseconds: .max, at: seconds(102))
        #expect(clock.written == 480 + 960 + 480)
        #expect(clock.reading(at: seconds(103)) == MediaTime(value: 4800, timescale: 48000))
    }

    /// The sound feeder reads the queue while the player's timer moves it to the next item:
    /// both under the player's item-change lock, from two threads, for many item ends (the
    /// thread sanitizer's subject: `make sanitize` reported the lock's empty state as raced
    /// between `soundSnapshot(forHostTime:)` and `QueuePlayer.itemDidEnd(_:)`).
    @Test func soundSnapshotsWhileTheQueueAdvances() throws {
        let directory = try Paths.temporaryDirectory("reel-playback-locks")
        let clip = directory.appendingPathComponent("short.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x36:rate=30:duration=0.2",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip.path])
        let items = (0..<40).map { _ in PlayerItem(url: clip) }
        let clock = ManualClock()
        let player = QueuePlayer(items: items, clock: clock)
        player.play()
        let done = DispatchSemaphore(value: 0), reading = DispatchSemaphore(value: 0)
        let reads = PosixMutex(0)
        Thread.detachNewThread {
            for step in 0..<4000 {
                let snapshot = player.soundSnapshot(forHostTime: MediaTime(value: Int64(step), timescale: 500))
                if snapshot.item != nil { reads.withLock { $0 += 1 } }
                if step == 0 { reading.signal() }
            }
            done.signal()
        }
        // The timer starts once the feeder reads: an optimised build's timer emptied the queue
        // before a loaded machine started the feeder's thread, and nothing ran at the same time.
        reading.wait()
        for _ in 0..<130 { clock.advance(by: MediaTime(value: 1, timescale: 15)) }
        done.wait()
        // 8.7 s of clock over 40 items of 0.2 s: every item played through, the queue empty.
        #expect(player.items().isEmpty && player.currentItem == nil)
        #expect(reads.withLock { $0 } > 0)
    }
}

import Foundation
import ReelAV
import ReelComposition
import ReelALSA
import ReelCore
import ReelPulse

/// Feeds a player's sound to a PulseAudio stream or an ALSA PCM on a thread of its own, which the stream's
/// blocking writes pace: each block is the item's sound at the item time the player's
/// clock (this device's ``AudioClock``) will reach when the block is heard. At a rate other
/// than 1 the sound is stretched with its pitch kept by the exports' ``TimeStretcher`` (an
/// exact time map with its onsets locked, so a clap stays on its picture; FFmpeg's `atempo`
/// moved them 7–18 ms early at rate 2), or with `.varispeed` resampled; paused, what waits
/// in the device is dropped and it plays silence, so its clock runs on.
final class AudioOutput: Sendable {
    static let sampleRate = 48000
    /// Samples per write: 10 ms.
    static let block = 480
    static let channels = 2

    let clock: AudioClock
    private nonisolated(unsafe) let stream: any SoundSink
    private let state = PosixMutex(State())

    /// The feeding thread's life and its flush count, under the output's one lock.
    private struct State {
        enum Phase {
            /// Not started, or feeding.
            case running
            /// ``stop()`` was called; the thread ends after its current write.
            case stopping
            /// The thread has ended (stopped, the player gone, or the stream failed).
            case finished
        }
        private(set) var phase = Phase.running
        /// How many times what waited in the device was dropped.
        private(set) var flushes = 0
        /// How many times the device ran dry between two writes.
        private(set) var starved = 0

        var shouldFeed: Bool {
            if case .running = phase { return true }
            return false
        }

        mutating func stop() {
            if case .running = phase { phase = .stopping }
        }

        mutating func didFlush() { flushes += 1 }

        mutating func didStarve(_ device: Int) { starved = max(starved + 1, device) }

        mutating func deviceReports(_ device: Int) { starved = max(starved, device) }

        mutating func threadEnded() { phase = .finished }
    }

    /// How many times what waited in the device was dropped for a new course (tests: a
    /// queue's join is the same course, and drops nothing).
    var flushes: Int { state.withLock { $0.flushes } }

    /// How much sound the device holds ahead of what is heard: enough to ride out a loaded
    /// machine's stalls of the sound server as well as of this feeder (at 0.3 s a server that
    /// woke late drained it and the sink played gaps; see docs/playback.md). A seek, a rate
    /// change and a pause drop what waits, so the length costs no delay in answering them.
    static let bufferDuration = 1.0

    /// Which device the sound goes to (`pulse`, `alsa:default`).
    var deviceSpelling: String { stream.deviceSpelling }

    /// Times the device ran dry: the feeder's own count (the sound still waiting, by the
    /// last reading moved on by the host clock, was gone before the next write), or the
    /// device's where it reports more.
    var underruns: Int { state.withLock { $0.starved } }

    /// Opens the device, or nil when there is none: ``AudioDevice/automatic`` tries
    /// `REEL_AUDIO_DEVICE`'s device, else PulseAudio, then ALSA's `default` PCM.
    init?(device: AudioDevice) {
        guard let sink = Self.open(device) else { return nil }
        stream = sink
        clock = AudioClock(sampleRate: Int32(Self.sampleRate))
    }

    private static func open(_ device: AudioDevice) -> (any SoundSink)? {
        switch device {
        case .none:
            return nil
        case .automatic:
            if let chosen = AudioDevice.fromEnvironment() { return open(chosen) }
            return open(.pulseAudio(server: nil, sink: nil)) ?? open(.alsa(device: "default"))
        case .pulseAudio(let server, let sink):
            return try? PulseStream(name: "reel", server: server, sink: sink, sampleRate: sampleRate, channels: channels,
                                    bufferDuration: bufferDuration)
        case .alsa(let name):
            return try? ALSAStream(device: name, sampleRate: sampleRate, channels: channels, bufferDuration: bufferDuration)
        }
    }

    /// Starts feeding `player`'s sound; the thread ends when the player goes or ``stop()`` is called.
    func start(for player: Player) {
        let thread = Thread { [weak player, self] in
            var feed = Feed()
            var waiting: (seconds: Double, at: Double)?
            while self.state.withLock({ $0.shouldFeed }) {
                guard let player else { break }
                // A seek, a rate change, another item or play after pause: what waits in the
                // device was read for another course, so it is dropped and the sound follows
                // at once. The queue's next item, met at the end, is the same course: no drop.
                let position = MediaTime(value: self.clock.writtenSamples, timescale: Int32(Self.sampleRate))
                let snapshot = player.soundSnapshot(forHostTime: position)
                // Paused: the sound waiting in the device stops now, not a buffer later.
                if feed.isOffCourse(snapshot) || feed.isPausing(snapshot) {
                    self.stream.flush()
                    waiting = nil
                    self.state.withLock { $0.didFlush() }
                    self.clock.didFlush(latencyMicroseconds: self.stream.latencyMicroseconds())
                }
                let samples = feed.next(for: player, at: self.clock.writtenSamples)
                // What still waited in the device: the last reading, moved on by the host clock.
                if let last = waiting, Self.seconds() - last.at > last.seconds, player.rate > 0 {
                    self.state.withLock { $0.didStarve(self.stream.deviceUnderruns) }
                }
                do throws(ReelError) {
                    try self.stream.write(samples)
                } catch {
                    break
                }
                let latency = self.stream.latencyMicroseconds()
                self.clock.didWrite(Self.block, latencyMicroseconds: latency)
                waiting = (Double(latency) / 1e6, Self.seconds())
                let reported = self.stream.deviceUnderruns
                if reported > 0 { self.state.withLock { $0.deviceReports(reported) } }
            }
            self.state.withLock { $0.threadEnded() }
        }
        thread.name = "reel.player.audio"
        thread.start()
    }

    func stop() { state.withLock { $0.stop() } }

    private static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The feeding thread's own state: the sound read ahead, and what it was read for.
    /// Internal so that tests can drive it sample by sample on a manual clock.
    struct Feed {
        var reader: CompositionPlaybackReader?
        var item: PlayerItem?
        var rate = 0.0
        /// `.varispeed`: the sound resampled, its pitch following the rate.
        var tempo: AudioFilterGraph?
        /// `.timeDomain` at a rate other than 1: the pitch kept, the onsets on their time.
        var stretcher: TimeStretcher?
        /// The next item sample to read.
        var cursor: Int64 = 0
        /// Stretched sound waiting to be written, per channel.
        var waiting: [[Float]] = Array(repeating: [], count: AudioOutput.channels)
        /// The item time the reading started at, and the samples handed out since: the item
        /// time of the next sample out is `start + produced × rate / 48000`.
        var start = MediaTime.zero
        var produced: Int64 = 0

        /// The item time of the next sample handed out, in seconds.
        var nextSeconds: Double { start.seconds + Double(produced) * rate / Double(AudioOutput.sampleRate) }

        /// Whether the player has stopped (rate 0) while sound read for playing still waits.
        func isPausing(_ snapshot: Player.SoundSnapshot) -> Bool { item != nil && snapshot.rate == 0 }

        /// Whether the player's course at the next sample written (its item, rate and time
        /// there) is not the one the sound was read for.
        func isOffCourse(_ snapshot: Player.SoundSnapshot) -> Bool {
            guard let wanted = snapshot.item, snapshot.rate > 0, snapshot.time < wanted.endTime else { return false }
            guard let item, reader != nil, rate == snapshot.rate else { return true }
            if item === wanted { return abs(snapshot.time.seconds - nextSeconds) > 0.002 }
            // Read on into the next item while the player still shows the last moment of this one.
            if item === snapshot.next {
                return (wanted.endTime.seconds - snapshot.time.seconds) > 0.002 || abs(nextSeconds - item.startTime.seconds) > 0.002
            }
            return true
        }

        /// The next block, interleaved: the player's sound from device sample `position` on,
        /// running on into the queue's next item where the current one ends, sample-exact.
        mutating func next(for player: Player, at position: Int64) -> [Float] {
            var out = [Float](repeating: 0, count: AudioOutput.block * AudioOutput.channels)
            var filled = 0
            while filled < AudioOutput.block {
                let host = MediaTime(value: position + Int64(filled), timescale: Int32(AudioOutput.sampleRate))
                let snapshot = player.soundSnapshot(forHostTime: host)
                guard let wanted = snapshot.item, snapshot.rate > 0, wanted.status == .readyToPlay,
                      snapshot.time < wanted.endTime else {
                    item = nil // resume from the player's time when it plays again
                    break
                }
                if isOffCourse(snapshot) {
                    restart(item: wanted, time: snapshot.time, rate: snapshot.rate)
                }
                guard let item else { break }
                // The samples left of this item at this rate; past them the next item follows.
                let left = (item.endTime.seconds - nextSeconds) * Double(AudioOutput.sampleRate) / rate
                let count = min(AudioOutput.block - filled, max(0, Int(min(left.rounded(), 1e6))))
                if count > 0 {
                    fill(&out, from: filled, count: count, gain: snapshot.gain)
                    filled += count
                }
                if filled < AudioOutput.block {
                    // This item is done: the next one in the queue starts (at its start time)
                    // at this very sample; without one the rest is silence.
                    guard item === snapshot.item, let following = snapshot.next, following.status == .readyToPlay else { break }
                    restart(item: following, time: following.startTime, rate: rate)
                }
            }
            return out
        }

        /// Hands out `count` samples of the current item into `out` from frame `offset`.
        private mutating func fill(_ out: inout [Float], from offset: Int, count: Int, gain: Float) {
            guard let item else { return }
            do throws(ReelError) {
                while waiting[0].count < count {
                    guard let reader else { break }
                    let chunk = 1024
                    let sound = try reader.sound(startSample: cursor, count: chunk)
                    cursor += Int64(chunk)
                    if let stretcher {
                        stretcher.push((0..<AudioOutput.channels).map {
                            sound.floatSamples(channel: min($0, sound.format.channelCount - 1))
                        })
                        let pulled = stretcher.pull()
                        for c in 0..<AudioOutput.channels { waiting[c] += pulled[min(c, pulled.count - 1)] }
                    } else if let tempo {
                        try tempo.push(sound)
                        while let pulled = try tempo.pull() { append(pulled) }
                    } else {
                        append(sound)
                    }
                }
            } catch {
                item.fail(error)
                reader = nil
            }
            let available = min(count, waiting[0].count)
            for c in 0..<AudioOutput.channels {
                for i in 0..<available { out[(offset + i) * AudioOutput.channels + c] = waiting[c][i] * gain }
                waiting[c].removeFirst(available)
            }
            produced += Int64(count)
        }

        private mutating func append(_ sound: AudioBuffer) {
            for c in 0..<AudioOutput.channels {
                waiting[c] += sound.floatSamples(channel: min(c, sound.format.channelCount - 1))
            }
        }

        private mutating func restart(item: PlayerItem, time: MediaTime, rate: Double) {
            self.item = item
            self.rate = rate
            cursor = time.convertScale(Int32(AudioOutput.sampleRate), method: .roundTowardNegativeInfinity).value
            // The sound starts on the sample at or before the player's time, and the time map
            // counts from that sample: counted from the player's time itself (a fraction of a
            // sample later), the item's end came half a sample early when that fraction was
            // over a half, and its last sample was left out (ALSAOutputTests saw it in CI).
            start = MediaTime(value: cursor, timescale: Int32(AudioOutput.sampleRate))
            produced = 0
            waiting = Array(repeating: [], count: AudioOutput.channels)
            reader = try? CompositionPlaybackReader(composition: item.composition, videoComposition: nil,
                                                    audioMix: item.audioMix, size: nil, startingAt: start,
                                                    includesVideo: false)
            tempo = nil
            stretcher = nil
            if abs(rate - 1) > 1e-9 {
                if item.audioTimePitchAlgorithm == .varispeed {
                    let format = AudioFormat(sampleFormat: .floatPlanar, sampleRate: AudioOutput.sampleRate,
                                             channelLayout: .default(channels: AudioOutput.channels))
                    let chain = "asetrate=\(Double(AudioOutput.sampleRate) * rate),aresample=\(AudioOutput.sampleRate)"
                    tempo = try? AudioFilterGraph(description: chain, format: format)
                } else {
                    // Output sample n plays source sample n × rate from the restart: the
                    // player's clock and the sound keep one time map.
                    stretcher = TimeStretcher(rate: rate, channels: AudioOutput.channels, sampleRate: AudioOutput.sampleRate)
                }
            }
        }
    }
}

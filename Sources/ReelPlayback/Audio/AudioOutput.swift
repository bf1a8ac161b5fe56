import Foundation
import ReelAV
import ReelComposition
import ReelCore
import ReelPulse
import Synchronization

/// Feeds a player's sound to a PulseAudio stream on a thread of its own, which the stream's
/// blocking writes pace: each block is the item's sound at the item time the player's
/// clock (this device's ``AudioClock``) will reach when the block is heard. At a rate other
/// than 1 the sound is stretched with its pitch kept by the exports' ``TimeStretcher`` (an
/// exact time map with its onsets locked, so a clap stays on its picture; FFmpeg's `atempo`
/// moved them 7–18 ms early at rate 2), or with `.varispeed` resampled; paused, the device
/// plays silence, so its clock runs on.
final class AudioOutput: Sendable {
    static let sampleRate = 48000
    /// Samples per write: 10 ms.
    static let block = 480
    static let channels = 2

    let clock: AudioClock
    private nonisolated(unsafe) let stream: PulseStream
    private let stopped = Mutex(false)
    private let finished = Mutex(false)

    /// Opens the device, or nil when there is no sound server.
    init?(device: AudioDevice) {
        let server: String?, sink: String?
        switch device {
        case .none: return nil
        case .automatic: (server, sink) = (nil, nil)
        case .pulseAudio(let address, let name): (server, sink) = (address, name)
        }
        do throws(ReelError) {
            stream = try PulseStream(name: "reel", server: server, sink: sink, sampleRate: Self.sampleRate, channels: Self.channels,
                                     bufferDuration: 0.3)
        } catch {
            return nil
        }
        clock = AudioClock(sampleRate: Int32(Self.sampleRate))
    }

    /// Starts feeding `player`'s sound; the thread ends when the player goes or ``stop()`` is called.
    func start(for player: Player) {
        let thread = Thread { [weak player, self] in
            var feed = Feed()
            while !self.stopped.withLock({ $0 }) {
                guard let player else { break }
                // A seek, a rate change, a new item or play after pause: what waits in the
                // device was read for the old course, so it is dropped and the sound follows at once.
                if feed.mustRestart(for: player.soundSnapshot(forHostTime: self.clock.hostTime)) {
                    self.stream.flush()
                    self.clock.didFlush(latencyMicroseconds: self.stream.latencyMicroseconds())
                }
                let samples = feed.next(for: player, at: self.clock.writtenSamples)
                do throws(ReelError) {
                    try self.stream.write(samples)
                } catch {
                    break
                }
                self.clock.didWrite(Self.block, latencyMicroseconds: self.stream.latencyMicroseconds())
            }
            self.finished.withLock { $0 = true }
        }
        thread.name = "reel.player.audio"
        thread.start()
    }

    func stop() { stopped.withLock { $0 = true } }

    /// The feeding thread's own state: the sound read ahead, and what it was read for.
    private struct Feed {
        var reader: CompositionPlaybackReader?
        var item: ObjectIdentifier?
        var generation = -1
        var rate = 0.0
        /// `.varispeed`: the sound resampled, its pitch following the rate.
        var tempo: AudioFilterGraph?
        /// `.timeDomain` at a rate other than 1: the pitch kept, the onsets on their time.
        var stretcher: TimeStretcher?
        /// The next item sample to read.
        var cursor: Int64 = 0
        /// Stretched sound waiting to be written, per channel.
        var waiting: [[Float]] = Array(repeating: [], count: AudioOutput.channels)

        /// Whether the player has jumped since the sound was read: it plays now, and from
        /// another item, time course or rate than what was read.
        func mustRestart(for snapshot: (item: PlayerItem?, time: MediaTime, rate: Double, generation: Int, gain: Float)) -> Bool {
            guard let item = snapshot.item, snapshot.rate > 0, snapshot.time < item.endTime else { return false }
            return generation != snapshot.generation || self.item != ObjectIdentifier(item) || rate != snapshot.rate
        }

        /// The next block, interleaved: the item's sound at the player's time for device sample `position`.
        mutating func next(for player: Player, at position: Int64) -> [Float] {
            let snapshot = player.soundSnapshot(forHostTime: MediaTime(value: position, timescale: Int32(AudioOutput.sampleRate)))
            guard let item = snapshot.item, snapshot.rate > 0, item.status == .readyToPlay,
                  snapshot.time < item.endTime else {
                generation = -1 // resume from the player's time when it plays again
                return [Float](repeating: 0, count: AudioOutput.block * AudioOutput.channels)
            }
            if generation != snapshot.generation || self.item != ObjectIdentifier(item) || rate != snapshot.rate {
                restart(item: item, time: snapshot.time, rate: snapshot.rate, generation: snapshot.generation)
            }
            do throws(ReelError) {
                while waiting[0].count < AudioOutput.block {
                    guard let reader else { break }
                    let count = 1024
                    let sound = try reader.sound(startSample: cursor, count: count)
                    cursor += Int64(count)
                    if let stretcher {
                        stretcher.push((0..<AudioOutput.channels).map {
                            sound.floatSamples(channel: min($0, sound.format.channelCount - 1))
                        })
                        let out = stretcher.pull()
                        for c in 0..<AudioOutput.channels { waiting[c] += out[min(c, out.count - 1)] }
                    } else if let tempo {
                        try tempo.push(sound)
                        while let out = try tempo.pull() { append(out) }
                    } else {
                        append(sound)
                    }
                }
            } catch {
                item.fail(error)
                reader = nil
            }
            let gain = snapshot.gain
            var out = [Float](repeating: 0, count: AudioOutput.block * AudioOutput.channels)
            let available = min(AudioOutput.block, waiting[0].count)
            for c in 0..<AudioOutput.channels {
                for i in 0..<available { out[i * AudioOutput.channels + c] = waiting[c][i] * gain }
                waiting[c].removeFirst(available)
            }
            return out
        }

        private mutating func append(_ sound: AudioBuffer) {
            for c in 0..<AudioOutput.channels {
                waiting[c] += sound.floatSamples(channel: min(c, sound.format.channelCount - 1))
            }
        }

        private mutating func restart(item: PlayerItem, time: MediaTime, rate: Double, generation: Int) {
            self.item = ObjectIdentifier(item)
            self.generation = generation
            self.rate = rate
            waiting = Array(repeating: [], count: AudioOutput.channels)
            cursor = time.convertScale(Int32(AudioOutput.sampleRate), method: .roundTowardNegativeInfinity).value
            reader = try? CompositionPlaybackReader(composition: item.composition, videoComposition: nil,
                                                    audioMix: item.audioMix, size: nil, startingAt: time,
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

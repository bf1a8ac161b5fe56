import ReelAV
import ReelAsset
import ReelCore

/// How sped-up or slowed-down audio sounds. `AVAudioTimePitchAlgorithm`.
public enum AudioTimePitchAlgorithm: Sendable, Hashable {
    /// The pitch stays; the sound is stretched in time, every onset kept where the picture
    /// puts it (`TimeStretcher`: WSOLA with onset locks). `.timeDomain`.
    case timeDomain
    /// Pitch follows speed, like a tape played fast or slow. `.varispeed`.
    case varispeed
}

/// Mixes a composition's audio tracks into 48 kHz float audio, block by block in
/// timeline order: each segment's source is read from its start, placed at its
/// target time to the sample, scaled by the mix's volume, and summed. Silence fills
/// gaps and clips without audio.
final class AudioRenderer {
    static let sampleRate = 48000
    let channels: Int
    private let composition: MutableComposition
    private let mix: AudioMix?
    private let pitch: AudioTimePitchAlgorithm
    private var readers: [String: SegmentAudio] = [:]

    init(composition: MutableComposition, mix: AudioMix?, channels: Int = 2, pitch: AudioTimePitchAlgorithm = .timeDomain) {
        self.composition = composition
        self.mix = mix
        self.channels = channels
        self.pitch = pitch
    }

    /// The mixed audio for samples `[start, start + count)` of the timeline.
    func render(startSample start: Int64, count: Int) throws(ReelError) -> AudioBuffer {
        var mixed = [[Float]](repeating: [Float](repeating: 0, count: count), count: channels)
        let rate = Int64(Self.sampleRate)
        let blockStart = MediaTime(value: start, timescale: Int32(rate))
        let blockEnd = MediaTime(value: start + Int64(count), timescale: Int32(rate))
        let block = MediaTimeRange(start: blockStart, end: blockEnd)
        for track in composition.tracks(withMediaType: .audio) {
            for segment in track.segments where !segment.isEmpty && segment.timeMapping.target.overlaps(block) {
                let target = segment.timeMapping.target
                // Sample positions of the overlap, on the timeline and in the segment.
                let first = max(start, target.start.multiplied(byRatio: rate, divisor: 1).convertScale(1).value)
                let last = min(start + Int64(count), target.end.multiplied(byRatio: rate, divisor: 1).convertScale(1).value)
                guard last > first else { continue }
                let key = "\(track.trackID)/\(segment.timeMapping.target.start)"
                let source: SegmentAudio
                if let existing = readers[key] { source = existing } else {
                    source = try SegmentAudio(segment: segment, channels: channels, pitch: pitch)
                    readers[key] = source
                }
                let offset = first - target.start.multiplied(byRatio: rate, divisor: 1).convertScale(1).value
                let samples = try source.samples(from: offset, count: Int(last - first))
                let n = Int(last - first)
                // Each sample's own gain: a line from the block's first to its last sample, or sample
                // by sample where a ramp starts or ends inside (the volume at `last`, after the
                // segment, was the far end of the line: a crossfade's last block rose to full volume).
                let gains = mix?.inputParameters.first { $0.trackID == track.trackID }?
                    .volumes(firstSample: first, count: n, rate: Int32(rate)).map { Float($0) }
                for channel in 0..<channels {
                    let input = samples[min(channel, samples.count - 1)]
                    for i in 0..<n {
                        mixed[channel][Int(first - start) + i] += input[i] * (gains?[i] ?? 1)
                    }
                }
                if target.end <= blockEnd { readers[key] = nil }
            }
        }
        return try AudioBuffer.float(channels: mixed, sampleRate: Self.sampleRate)
    }
}

/// One segment's source audio, read in order and handed out by sample position
/// relative to the segment's start.
final class SegmentAudio {
    private let reader: AssetReader?
    private let output: AssetReaderTrackOutput?
    private var buffered: [[Float]]
    private var bufferedStart: Int64 = 0
    private let start: MediaTime
    private var primed = false
    private let channels: Int
    /// Stretches the source to the segment's speed, pitch kept; nil at normal speed or varispeed.
    private let stretcher: TimeStretcher?
    /// Varispeed (pitch follows speed); nil at normal speed or with the pitch kept.
    private let stretch: AudioFilterGraph?
    private var sourceEnded = false

    init(segment: CompositionTrackSegment, channels: Int, pitch: AudioTimePitchAlgorithm = .timeDomain) throws(ReelError) {
        self.channels = channels
        let rate = segment.rate
        stretcher = abs(rate - 1) > 1e-9 && pitch == .timeDomain
            ? TimeStretcher(rate: rate, channels: channels, sampleRate: AudioRenderer.sampleRate) : nil
        if abs(rate - 1) > 1e-9, pitch == .varispeed {
            let format = AudioFormat(sampleFormat: .floatPlanar, sampleRate: AudioRenderer.sampleRate,
                                     channelLayout: .default(channels: channels))
            let chain = "asetrate=\(Double(AudioRenderer.sampleRate) * rate),aresample=\(AudioRenderer.sampleRate)"
            stretch = try AudioFilterGraph(description: chain, format: format)
        } else {
            stretch = nil
        }
        buffered = Array(repeating: [], count: channels)
        start = segment.timeMapping.source.start
        guard let url = segment.sourceURL else {
            reader = nil
            output = nil
            return
        }
        rateOfStretch = rate
        let asset = try segment.sourceAsset()
        guard let track = asset.track(withTrackID: segment.sourceTrackID) else {
            throw ReelError(.invalidArgument, "has no track \(segment.sourceTrackID)", subject: url.path)
        }
        let reader = try AssetReader(asset: asset)
        reader.timeRange = segment.timeMapping.source
        let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(
            sampleFormat: .floatPlanar, sampleRate: AudioRenderer.sampleRate, channelCount: channels))
        try reader.add(output)
        try reader.startReading()
        self.reader = reader
        self.output = output
    }

    private var rateOfStretch: Double = 1

    private func append(_ audio: AudioBuffer) {
        for c in 0..<channels { buffered[c] += audio.floatSamples(channel: min(c, audio.format.channelCount - 1)) }
    }

    private func append(_ samples: [[Float]]) {
        guard !samples.isEmpty else { return }
        for c in 0..<channels { buffered[c] += samples[min(c, samples.count - 1)] }
    }

    /// `count` samples per channel from position `offset` (samples after the segment's start).
    func samples(from offset: Int64, count: Int) throws(ReelError) -> [[Float]] {
        while bufferedStart + Int64(buffered[0].count) < offset + Int64(count) {
            guard !sourceEnded, let output else { break }
            guard let sample = try output.copyNextSampleBuffer(), let audio = sample.audioBuffer else {
                sourceEnded = true
                if let stretcher {
                    stretcher.finish()
                    append(stretcher.pull())
                }
                if let stretch {
                    try stretch.finish()
                    while let out = try stretch.pull() { append(out) }
                }
                break
            }
            if !primed {
                // Silence before the source's first sample, if it starts late (stretched too).
                let lead = (sample.presentationTime - start).multiplied(byRatio: Int64(AudioRenderer.sampleRate), divisor: 1)
                    .convertScale(1).value
                if let stretcher {
                    // Silence is stretched with the rest, so the time map stays exact.
                    if lead > 0 { stretcher.push([[Float](repeating: 0, count: Int(lead))]) }
                } else {
                    let scaled = stretch == nil ? lead : Int64((Double(lead) / max(rateOfStretch, 1e-6)).rounded())
                    if scaled > 0 { for c in 0..<channels { buffered[c] += [Float](repeating: 0, count: Int(scaled)) } }
                }
                primed = true
            }
            if let stretcher {
                stretcher.push((0..<audio.format.channelCount).map { audio.floatSamples(channel: $0) })
                append(stretcher.pull())
            } else if let stretch {
                try stretch.push(audio)
                while let out = try stretch.pull() { append(out) }
            } else {
                append(audio)
            }
        }
        // Drop what lies before `offset`, then hand out `count` samples (zero-padded at the end).
        let drop = Int(max(0, min(offset - bufferedStart, Int64(buffered[0].count))))
        if drop > 0 {
            for c in 0..<channels { buffered[c].removeFirst(drop) }
            bufferedStart += Int64(drop)
        }
        return (0..<channels).map { c in
            let available = Array(buffered[c].prefix(count))
            return available + [Float](repeating: 0, count: count - available.count)
        }
    }
}

import Foundation
import ReelAsset
import ReelCore

extension CompositionSpec {
    /// The clips' `audio` (volume, fadeIn, fadeOut) made into the volume ramps of their sound
    /// tracks, as AVFoundation code does with `setVolumeRamp`: each clip's envelope (silence
    /// up to its volume over `fadeIn` from its start, down to silence over `fadeOut` to its
    /// end) multiplies what the track already has there, a transition's crossfade included,
    /// so a fade inside a dissolve is the product of the two.
    /// - Parameters:
    ///   - mix: The sequence's mix; clip `i`'s sound is on `tracks[i % 2]`.
    ///   - tracks: The sequence's two sound tracks.
    ///   - ranges: Each clip's place on the timeline, as the sequence built it.
    ///   - assets: Each clip's file, to refuse sound settings for a clip without sound.
    /// - Throws: ``ReelError`` naming `clips[i].audio` when the fades are longer than the
    ///   clip, or the clip has no sound.
    func applyClipSound(to mix: inout AudioMix, tracks: [Int], ranges: [MediaTimeRange], assets: [Asset]) throws(ReelError) {
        guard clips.contains(where: { $0.audio != nil }), tracks.count == 2, ranges.count == clips.count else { return }
        struct Envelope {
            let range: MediaTimeRange
            let volume: Double, fadeIn: Double, fadeOut: Double

            func gain(at time: MediaTime) -> Double {
                let into = (time - range.start).seconds, left = (range.end - time).seconds
                var value = volume
                if fadeIn > 0, into < fadeIn { value = min(value, volume * max(into, 0) / fadeIn) }
                if fadeOut > 0, left < fadeOut { value = min(value, volume * max(left, 0) / fadeOut) }
                return value
            }
        }
        var envelopes: [Int: Envelope] = [:]
        for (index, clip) in clips.enumerated() {
            guard let sound = clip.audio else { continue }
            let name = "clips[\(index)].audio"
            for (key, value, rule) in [("volume", sound.volume, Self.numberRules["clips[].audio.volume"]),
                                       ("fadeIn", sound.fadeIn, Self.numberRules["clips[].audio.fadeIn"]),
                                       ("fadeOut", sound.fadeOut, Self.numberRules["clips[].audio.fadeOut"])] {
                if let value, let rule, !rule.admits(value) { throw rule.refusal(value, at: "\(name).\(key)") }
            }
            guard index < assets.count, !assets[index].tracks(withMediaType: .audio).isEmpty else {
                throw ReelError(.invalidArgument, "the clip's file has no sound to set", subject: name)
            }
            let fadeIn = sound.fadeIn ?? 0, fadeOut = sound.fadeOut ?? 0
            let length = ranges[index].duration.seconds
            guard fadeIn + fadeOut <= length + 1e-6 else {
                throw ReelError(.invalidArgument,
                                "fadeIn and fadeOut (\(Self.format(fadeIn)) + \(Self.format(fadeOut)) s) are longer than the clip (\(String(format: "%.3f", length)) s)",
                                subject: name)
            }
            envelopes[index] = Envelope(range: ranges[index], volume: sound.volume ?? 1, fadeIn: fadeIn, fadeOut: fadeOut)
        }
        for (parity, trackID) in tracks.enumerated() {
            let mine = envelopes.filter { $0.key % 2 == parity }
            guard !mine.isEmpty, let slot = mix.inputParameters.firstIndex(where: { $0.trackID == trackID }) else { continue }
            // Corners of every envelope, and points through each fade (at most 2000 a fade, 10 ms
            // apart or more) so that a fade times a crossfade stays near its curve.
            var times: [MediaTime] = []
            for envelope in mine.values {
                let start = envelope.range.start, end = envelope.range.end
                times += [start, end]
                for (from, seconds) in [(start, envelope.fadeIn), (end - MediaTime(seconds: envelope.fadeOut, preferredTimescale: 48000),
                                                                  envelope.fadeOut)] where seconds > 0 {
                    let steps = Int(min(2000, max(1, (seconds / 0.01).rounded(.up))))
                    for step in 0...steps {
                        times.append(from + MediaTime(seconds: seconds * Double(step) / Double(steps), preferredTimescale: 48000))
                    }
                }
            }
            let ordered = mine.values.sorted { $0.range.start < $1.range.start }
            mix.inputParameters[slot].multiply(at: times) { time, fromBefore in
                // The clip playing on this track then: an instant before `time`, or at it.
                let playing = ordered.last { fromBefore ? $0.range.start < time && time <= $0.range.end
                    : $0.range.start <= time && time < $0.range.end }
                return playing?.gain(at: time) ?? 1
            }
        }
    }
}

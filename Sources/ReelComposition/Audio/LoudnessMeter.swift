import Foundation
import ReelAV
public import ReelCore

/// The integrated loudness (EBU R128, LUFS) of a composition's mixed sound, measured by
/// FFmpeg's `ebur128` filter over the whole mix: the first pass of a loudness
/// normalisation, whose second pass is a gain in the ``AudioMix``.
public enum LoudnessMeter {
    /// Measures the mix.
    /// - Parameters:
    ///   - composition: The composition.
    ///   - mix: Its audio mix (volumes and fades), as the export applies it.
    /// - Returns: The integrated loudness in LUFS and the sample peak (dBFS); nil when the mix
    ///   is silent or has no sound (nothing to normalise).
    /// - Throws: ``ReelError`` when a source cannot be read or the filter refuses.
    public static func measure(_ composition: MutableComposition, mix: AudioMix) throws(ReelError)
        -> (integrated: Double, peak: Double)? {
        guard !composition.tracks(withMediaType: .audio).isEmpty, composition.duration.isNumeric else { return nil }
        let renderer = AudioRenderer(composition: composition, mix: mix, channels: 2)
        let format = AudioFormat(sampleFormat: .floatPlanar, sampleRate: AudioRenderer.sampleRate, channelLayout: .default(channels: 2))
        let graph = try AudioFilterGraph(description: "ebur128=metadata=1:peak=sample", format: format)
        let total = composition.duration.multiplied(byRatio: Int64(AudioRenderer.sampleRate), divisor: 1).convertScale(1).value
        var position: Int64 = 0
        var last: [String: String] = [:]
        while position < total {
            let count = Int(min(Int64(AudioRenderer.sampleRate), total - position))
            try graph.push(try renderer.render(startSample: position, count: count))
            position += Int64(count)
            while let out = try graph.pullWithMetadata() { if !out.metadata.isEmpty { last = out.metadata } }
        }
        try graph.finish()
        while let out = try graph.pullWithMetadata() { if !out.metadata.isEmpty { last = out.metadata } }
        let peaks = last.filter { $0.key.hasPrefix("lavfi.r128.sample_peaks_ch") }.compactMap { Double($0.value) }
        guard let integrated = last["lavfi.r128.I"].flatMap(Double.init), integrated.isFinite, integrated > -70 else { return nil }
        let peak = peaks.max().map { 20 * log10(max($0, 1e-9)) } ?? 0
        return (integrated, peak)
    }
}

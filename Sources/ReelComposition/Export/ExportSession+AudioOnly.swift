import Foundation
import ReelAsset
import ReelCore

extension ExportPreset {
    /// The sound alone, AAC in an `.m4a` file. `AVAssetExportPresetAppleM4A`.
    public static let appleM4A = ExportPreset(rawValue: "m4a")
}

extension ExportSession {
    /// Whether this export writes the sound alone: the ``ExportPreset/appleM4A`` preset or an
    /// `.m4a` file type.
    var writesSoundOnly: Bool { preset == .appleM4A || outputFileType == .m4a }

    /// Writes the composition's mix (its audio mix, volumes and ramps, at the pitch
    /// algorithm's speed changes) as AAC, 48 kHz stereo, over the time range, no picture: what
    /// `AVAssetExportPresetAppleM4A` writes. The file lasts the composition's length (its
    /// pictures' span, silence where nothing sounds), checked after writing.
    /// - Parameters:
    ///   - url: The output.
    ///   - progressHandler: Told the fraction done.
    /// - Throws: ``ReelError`` when the composition has no sound or the writing fails.
    func exportSoundOnly(to url: URL, progressHandler: (@Sendable (Double) -> Void)?) throws(ReelError) {
        guard Self.hasSound(composition) else {
            throw ReelError(.invalidArgument, "the composition has no sound to write as .m4a", subject: url.path)
        }
        let range = timeRange.intersection(MediaTimeRange(start: .zero, duration: composition.duration))
        guard range.duration > .zero else {
            throw ReelError(.invalidArgument, "the composition is empty over the time range", subject: "timeRange")
        }
        let writer = try AssetWriter(outputURL: url, fileType: .m4a)
        writer.shouldOptimizeForNetworkUse = shouldOptimizeForNetworkUse
        writer.metadata = metadata
        let input = AssetWriterInput(
            mediaType: .audio,
            outputSettings: AudioSettings(
                codec: .aac, sampleRate: AudioRenderer.sampleRate, channelCount: 2))
        try writer.add(input)
        let audio = AudioRenderer(composition: composition, mix: audioMix, pitch: audioTimePitchAlgorithm)
        let rate = Int64(AudioRenderer.sampleRate)
        let first = range.start.multiplied(byRatio: rate, divisor: 1).convertScale(1).value
        let last = range.end.multiplied(byRatio: rate, divisor: 1).convertScale(1).value
        writer.exportCheck = ExportCheck(video: nil, audio: MediaTimeRange(start: .zero, duration: range.duration))
        do throws(ReelError) {
            try writer.startWriting()
            writer.startSession(atSourceTime: .zero)
            var next = first
            while next < last {
                if isCancelled { throw ReelError(.cancelled, "the export was cancelled", subject: url.path) }
                let count = Int(min(4096, last - next))
                let mixed = try audio.render(startSample: next, count: count)
                try input.append(
                    SampleBuffer(audioBuffer: mixed, presentationTime: MediaTime(value: next - first, timescale: Int32(rate))))
                next += Int64(count)
                let fraction = Double(next - first) / Double(max(last - first, 1))
                progressHandler?(fraction)
            }
            writer.endSession(atSourceTime: range.duration)
            try writer.finishSynchronously()
        } catch {
            writer.cancelWriting()
            throw error
        }
    }
}

public import Foundation
public import ReelAsset
public import ReelCore

/// A range of a file played backwards, picture and sound, written as a new file: what a
/// composition's `reverse` clip plays. The range is read from its end in windows (a second,
/// or less for large pictures), each decoded, turned around and appended, so memory holds
/// one window however long the clip; every picture keeps its own length, and the sound's
/// samples run backwards on the same timeline, so a sound that sat on a picture still does.
public enum ReversedCopy {
    /// Writes `range` of `asset` backwards to `url`: the range's last moment first.
    /// - Parameters:
    ///   - asset: The source file (a video track, and a sound track if it has one).
    ///   - range: The part to reverse; the output lasts as long, from 0.
    ///   - url: The file to write (near-lossless H.264 and AAC, as the composition encodes
    ///     it again). Written whole by ``AssetWriter``.
    ///   - fileType: The container.
    /// - Throws: ``ReelError`` for a source without video, an empty range, or a read or write failure.
    public static func write(_ asset: Asset, range: MediaTimeRange, to url: URL, fileType: FileType = .mov) throws(ReelError) {
        guard let video = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: asset.url.path)
        }
        guard range.isValid, range.start.isNumeric, range.end.isNumeric, range.duration > .zero else {
            throw ReelError(.invalidArgument, "the range to reverse \(range) is empty", subject: asset.url.path)
        }
        let width = max(2, Int(video.naturalSize.width) & ~1), height = max(2, Int(video.naturalSize.height) & ~1)
        let audio = asset.tracks(withMediaType: .audio).first
        let channels = min(max(audio?.channelCount ?? 2, 1), 2)
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let pictures = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: width, height: height, quality: 12, preset: "veryfast",
            expectedFrameRate: video.nominalFrameRate > 0 ? video.nominalFrameRate : nil))
        pictures.transform = video.preferredTransform
        try writer.add(pictures)
        var sound: AssetWriterInput?
        if audio != nil {
            let input = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: channels))
            try writer.add(input)
            sound = input
        }
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        // A window holds at most about 256 MB of pictures, and at most a second.
        let frameBytes = Double(width * height) * 1.5
        let frameSeconds = video.minFrameDuration.isNumeric && video.minFrameDuration > .zero ? video.minFrameDuration.seconds : 1.0 / 30
        let windowSeconds = min(1, max(0.1, 256e6 / frameBytes * frameSeconds))
        let window = MediaTime(seconds: windowSeconds, preferredTimescale: 90000)
        // The start of the earliest picture of the window after this one (the end of the last
        // picture of this one), reading backwards.
        var laterStart = range.end
        var windowEnd = range.end
        while windowEnd > range.start {
            let windowStart = max(range.start, windowEnd - window)
            let span = MediaTimeRange(start: windowStart, end: windowEnd)
            // Pictures that start in the window (and, in the first, the one on screen at its start).
            var frames: [(time: MediaTime, picture: PixelBuffer)] = []
            let reader = try AssetReader(asset: asset)
            reader.timeRange = span
            let output = AssetReaderTrackOutput(track: video, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p,
                                                                                                  width: width, height: height))
            try reader.add(output)
            try reader.startReading()
            while let sample = try output.copyNextSampleBuffer() {
                guard let picture = sample.pixelBuffer else { continue }
                let time = sample.presentationTime
                guard time < windowEnd else { break }
                if time < windowStart {
                    // The picture on screen at the range's start belongs to the first window only.
                    guard windowStart == range.start else { continue }
                    frames = [(time, picture)]
                    continue
                }
                frames.append((time, picture))
            }
            for (index, frame) in frames.enumerated().reversed() {
                let end = min(index + 1 < frames.count ? frames[index + 1].time : laterStart, range.end)
                let start = max(frame.time, range.start)
                guard end > start else { continue }
                try pictures.append(SampleBuffer(pixelBuffer: frame.picture, presentationTime: range.end - end, duration: end - start))
            }
            if let first = frames.first { laterStart = max(first.time, range.start) }
            if let audio, let sound {
                try appendReversedSound(of: asset, track: audio, span: span, reversedStart: range.end - windowEnd,
                                        channels: channels, to: sound)
            }
            windowEnd = windowStart
        }
        pictures.markAsFinished()
        sound?.markAsFinished()
        try writer.finishSynchronously()
    }

    /// The samples of `span` (48 kHz, cut to the sample), backwards, appended at `reversedStart`.
    private static func appendReversedSound(of asset: Asset, track: AssetTrack, span: MediaTimeRange, reversedStart: MediaTime,
                                            channels: Int, to input: AssetWriterInput) throws(ReelError) {
        let rate = 48000
        func sampleIndex(_ time: MediaTime) -> Int64 {
            let scaled = time.convertScale(Int32(rate), method: .roundHalfAwayFromZero)
            return scaled.isNumeric ? scaled.value : 0
        }
        let first = sampleIndex(span.start), last = sampleIndex(span.end)
        guard last > first else { return }
        var kept = Array(repeating: [Float](repeating: 0, count: Int(last - first)), count: channels)
        let reader = try AssetReader(asset: asset)
        // A little before, so that the window's first samples are decoded whatever the priming.
        reader.timeRange = MediaTimeRange(start: max(.zero, span.start - MediaTime(value: 1, timescale: 10)), end: span.end)
        let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(
            sampleFormat: .floatPlanar, sampleRate: rate, channelCount: channels))
        try reader.add(output)
        try reader.startReading()
        while let sample = try output.copyNextSampleBuffer() {
            guard let buffer = sample.audioBuffer else { continue }
            let start = sampleIndex(sample.presentationTime)
            guard start < last else { break }
            for channel in 0..<min(channels, buffer.format.channelCount) {
                let samples = buffer.floatSamples(channel: channel)
                for (offset, value) in samples.enumerated() {
                    let index = start + Int64(offset) - first
                    if index >= 0, index < Int64(kept[channel].count) { kept[channel][Int(index)] = value }
                }
            }
        }
        for channel in kept.indices { kept[channel].reverse() }
        try input.append(SampleBuffer(audioBuffer: try AudioBuffer.float(channels: kept, sampleRate: rate),
                                      presentationTime: reversedStart))
    }
}

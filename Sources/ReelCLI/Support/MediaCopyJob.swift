import Foundation
import ReelAsset
import ReelCore

/// Reads a file's first video and audio track and writes them again, re-encoded,
/// with an optional change to each picture on the way: what `transcode` and `filter` share.
final class MediaCopyJob {
    /// The encoder speed presets x264 and x265 know.
    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow",
                          "placebo"]

    /// `--preset`, checked against ``presets``.
    static func preset(_ arguments: ParsedArguments) throws(UsageError) -> String? {
        guard let name = arguments.value("preset") else { return nil }
        guard presets.contains(name) else {
            throw UsageError("--preset is one of \(presets.joined(separator: ", ")), not '\(name)'", command: arguments.command)
        }
        return name
    }

    struct Options {
        var codec: VideoSettings.Codec = .h264
        var size: (width: Int, height: Int)?
        var quality: Double?
        var bitRate: Int?
        var keyFrameInterval: Int?
        var preset: String?
        var fragmentInterval: Double?
        var audioBitRate: Int?
        var includeAudio = true
    }

    let asset: Asset
    let outputURL: URL
    private let reader: AssetReader
    private let writer: AssetWriter
    private let video: (AssetReaderTrackOutput, AssetWriterInput)
    private let audio: (AssetReaderTrackOutput, AssetWriterInput)?
    /// Where the appended pictures and sound lie, for the export check.
    private var appended: (video: MediaTimeRange?, audio: MediaTimeRange?) = (nil, nil)

    /// The input's length in seconds, for progress.
    var duration: Double { max(asset.duration.seconds, 0.001) }

    /// - Parameter imageSequenceFrameRate: for an image sequence's pattern (`f-%04d.png`), the
    ///   frames a second it plays at (25 when nil).
    convenience init(input: String, output: URL, fileType: FileType, quality: Double?, preset: String?,
                     imageSequenceFrameRate: Double? = nil) throws(ReelError) {
        var options = Options()
        options.quality = quality
        options.preset = preset
        try self.init(input: input, output: output, fileType: fileType, options: options,
                      imageSequenceFrameRate: imageSequenceFrameRate)
    }

    init(input: String, output: URL, fileType: FileType, options: Options, imageSequenceFrameRate: Double? = nil) throws(ReelError) {
        let url = URL(fileURLWithPath: input)
        asset = Asset.isImageSequence(url) ? try Asset(imageSequence: url, frameRate: imageSequenceFrameRate ?? 25)
            : try Asset(url: url)
        outputURL = output
        guard let videoTrack = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: input)
        }
        let audioTrack = options.includeAudio ? asset.tracks(withMediaType: .audio).first : nil
        // A requested size is the size on screen: for a turned clip, the stored picture is the other way round.
        let turned = videoTrack.orientation?.swapsDimensions ?? false
        let requested = options.size.map { turned ? (width: $0.height, height: $0.width) : $0 }
        let width = requested?.width ?? (Int(videoTrack.naturalSize.width) & ~1)
        let height = requested?.height ?? (Int(videoTrack.naturalSize.height) & ~1)
        let frameRate = videoTrack.nominalFrameRate > 0 ? videoTrack.nominalFrameRate : 30

        // Matroska and WebM carry no display matrix here (FFmpeg 5.1's muxer writes none): a
        // turned clip is turned upright in its pixels instead, as players would show it.
        let turnsPixels = !fileType.isISOBaseMedia && (videoTrack.orientation ?? .up) != .up
        let written = turnsPixels && turned ? (width: height, height: width) : (width: width, height: height)

        reader = try AssetReader(asset: asset)
        let videoOutput = AssetReaderTrackOutput(
            track: videoTrack, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p, width: width, height: height))
        videoOutput.appliesPreferredTrackTransform = turnsPixels
        try reader.add(videoOutput)
        let channels = min(max(audioTrack?.channelCount ?? 1, 1), 2)
        let audioOutput = audioTrack.map {
            AssetReaderTrackOutput(track: $0, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar, sampleRate: 48000,
                                                                                 channelCount: channels))
        }
        if let audioOutput { try reader.add(audioOutput) }
        // The decoders open here, so a source they refuse (a picture size FFmpeg rejects) is
        // reported with FFmpeg's words, about the source, before any output exists.
        try reader.startReading()

        writer = try AssetWriter(outputURL: output, fileType: fileType)
        if let fragment = options.fragmentInterval {
            writer.movieFragmentInterval = MediaTime(seconds: fragment, preferredTimescale: 1000)
        }
        writer.metadata = AssetMetadata(creationDate: asset.metadata.creationDate, make: asset.metadata.make,
                                        model: asset.metadata.model, location: asset.metadata.location,
                                        title: asset.metadata.title)
        let videoInput = AssetWriterInput(
            mediaType: .video,
            outputSettings: VideoSettings(codec: options.codec, width: written.width, height: written.height, bitRate: options.bitRate,
                                          quality: options.quality, keyFrameInterval: options.keyFrameInterval,
                                          preset: options.preset, expectedFrameRate: frameRate))
        if !turnsPixels { videoInput.transform = videoTrack.preferredTransform }
        try writer.add(videoInput)
        video = (videoOutput, videoInput)

        if let audioOutput {
            let input = AssetWriterInput(
                mediaType: .audio,
                outputSettings: AudioSettings(codec: fileType == .webm ? .opus : .aac, sampleRate: 48000,
                                              channelCount: channels, bitRate: options.audioBitRate))
            try writer.add(input)
            audio = (audioOutput, input)
        } else {
            audio = nil
        }
    }

    /// Copies every sample, passing pictures through `change`, and finishes the file.
    /// On failure the output is discarded (a fragmented one keeps its `.partial` file).
    func run(progress: ProgressReporter,
             change: (SampleBuffer) throws(ReelError) -> SampleBuffer = { $0 }) async throws(ReelError) {
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        do throws(ReelError) {
            let frames = try copySamples(progress: progress, change: change)
            guard frames > 0 else { throw ReelError(.invalidData, "has no video frames to copy", subject: asset.url.path) }
            // The file is checked against what was handed to the writer: each stream from its
            // first appended sample to the end of its last.
            writer.exportCheck = ExportCheck(video: appended.video, audio: appended.audio)
        } catch {
            writer.cancelWriting()
            throw error
        }
        try await writer.finishWriting()
    }

    /// Feeds the writer in time order, so the muxer interleaves without buffering.
    /// Returns the number of pictures written.
    private func copySamples(progress: ProgressReporter,
                             change: (SampleBuffer) throws(ReelError) -> SampleBuffer) throws(ReelError) -> Int {
        var frames = 0
        var nextVideo = try video.0.copyNextSampleBuffer()
        var nextAudio = try audio?.0.copyNextSampleBuffer()
        while nextVideo != nil || nextAudio != nil {
            let videoFirst: Bool
            if let v = nextVideo, let a = nextAudio {
                videoFirst = v.presentationTime <= a.presentationTime
            } else {
                videoFirst = nextVideo != nil
            }
            if videoFirst, let sample = nextVideo {
                if sample.presentationTime >= .zero {
                    try video.1.append(try change(sample))
                    frames += 1
                    appended.video = Self.extend(appended.video, with: sample)
                }
                progress.update(sample.presentationTime.seconds)
                nextVideo = try video.0.copyNextSampleBuffer()
            } else if let sample = nextAudio, let audio {
                try audio.1.append(sample)
                appended.audio = Self.extend(appended.audio, with: sample)
                nextAudio = try audio.0.copyNextSampleBuffer()
            }
        }
        return frames
    }

    /// `range` grown to take in `sample` (its time to its time plus duration).
    private static func extend(_ range: MediaTimeRange?, with sample: SampleBuffer) -> MediaTimeRange? {
        let start = sample.presentationTime
        let duration = sample.duration.isNumeric && sample.duration > .zero ? sample.duration
            : (sample.audioBuffer?.duration ?? .zero)
        guard start.isNumeric else { return range }
        guard let range else { return MediaTimeRange(start: start, duration: duration) }
        return MediaTimeRange(start: min(range.start, start), end: max(range.end, start + duration))
    }
}

import Foundation
import ReelAsset
import ReelCore

/// `reel transcode IN -o OUT`: re-encode a file's first video and audio track.
struct TranscodeCommand: Command {
    let spec = CommandSpec(
        name: "transcode",
        abstract: "Re-encode a file: codec, size, quality, fragmenting.",
        usage: "IN -o OUT [--codec h264|hevc|prores|vp9] [--size WxH] [--crf N] [--preset NAME] [--fragment-interval S]",
        positionals: 1...1,
        options: [
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v, .webm, .mkv)."),
            .value("codec", short: "c", "CODEC", help: "h264 (default), hevc, prores (.mov) or vp9 (.webm)."),
            .value("size", short: "s", "WxH", help: "Scale to this size (even numbers); default: the source's."),
            .value("crf", "N", help: "Quality, 0-51 (lower is better): 23 for h264, 28 for hevc."),
            .value("bitrate", "BPS", help: "Target video bits per second instead of --crf (e.g. 4000000)."),
            .value("preset", "NAME", help: "Encoder speed: ultrafast ... medium (default) ... veryslow."),
            .value("keyframe-interval", "N", help: "Frames between keyframes."),
            .value("fragment-interval", "S", help: "Write a fragmented file, a fragment every S seconds."),
            .value("audio-bitrate", "BPS", help: "Audio bits per second (default 128000 for stereo)."),
            .flag("no-audio", help: "Leave the audio out."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ],
        discussion: """
        The first video track and the first audio track are written; the video keeps its rotation.
        The output appears only when complete; a fragmented one is written as NAME.partial.EXT
        until then, and stays playable up to its last fragment if interrupted.

        Example:
          reel transcode clip.mov -o clip.mp4 --size 1280x720 --crf 20
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let outputPath = arguments.value("output") else {
            throw UsageError("'transcode' needs -o OUT", command: spec.name)
        }
        let codec: VideoSettings.Codec = switch arguments.value("codec") ?? "h264" {
        case "h264": .h264
        case "hevc", "h265": .hevc
        case "prores": .proRes422
        case "vp9": .vp9
        case let other: throw UsageError("--codec is h264, hevc, prores or vp9, not '\(other)'", command: spec.name)
        }
        let size = try arguments.size("size")
        let crf = try arguments.double("crf", in: 0...63)
        let bitRate = try arguments.int("bitrate", in: 10_000...1_000_000_000)
        let keyInterval = try arguments.int("keyframe-interval", in: 1...10_000)
        let fragment = try arguments.double("fragment-interval", in: 0.1...3600)
        let audioBitRate = try arguments.int("audio-bitrate", in: 8_000...1_000_000)
        if let size, size.width % 2 != 0 || size.height % 2 != 0, codec != .proRes422 {
            throw UsageError("--size wants even numbers, not \(size.width)x\(size.height)", command: spec.name)
        }
        let outputURL = URL(fileURLWithPath: outputPath)
        guard let fileType = FileType(pathExtension: outputURL.pathExtension) else {
            throw UsageError("-o must end in .mp4, .mov, .m4v, .webm or .mkv, not '\(outputPath)'", command: spec.name)
        }
        let inputPath = arguments.positionals[0]
        if URL(fileURLWithPath: inputPath).standardizedFileURL == outputURL.standardizedFileURL {
            throw ReelError(.invalidArgument, "the output would overwrite the input", subject: outputPath)
        }

        let asset = try Asset(path: inputPath)
        guard let videoTrack = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track to transcode", subject: inputPath)
        }
        let audioTrack = arguments.flag("no-audio") ? nil : asset.tracks(withMediaType: .audio).first
        let width = size?.width ?? (Int(videoTrack.naturalSize.width) & ~1)
        let height = size?.height ?? (Int(videoTrack.naturalSize.height) & ~1)
        let frameRate = videoTrack.nominalFrameRate > 0 ? videoTrack.nominalFrameRate : 30

        let reader = try AssetReader(asset: asset)
        let videoOutput = AssetReaderTrackOutput(
            track: videoTrack, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p, width: width, height: height))
        try reader.add(videoOutput)
        let audioChannels = min(max(audioTrack?.channelCount ?? 2, 1), 2)
        var audioOutput: AssetReaderTrackOutput?
        if let audioTrack {
            let output = AssetReaderTrackOutput(
                track: audioTrack, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar, sampleRate: 48000,
                                                                      channelCount: audioChannels))
            try reader.add(output)
            audioOutput = output
        }

        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        if let fragment { writer.movieFragmentInterval = MediaTime(seconds: fragment, preferredTimescale: 1000) }
        writer.metadata = AssetMetadata(creationDate: asset.metadata.creationDate, make: asset.metadata.make,
                                        model: asset.metadata.model, location: asset.metadata.location,
                                        title: asset.metadata.title)
        let videoInput = AssetWriterInput(
            mediaType: .video,
            outputSettings: VideoSettings(codec: codec, width: width, height: height, bitRate: bitRate, quality: crf,
                                          keyFrameInterval: keyInterval, preset: arguments.value("preset"),
                                          expectedFrameRate: frameRate))
        videoInput.transform = videoTrack.preferredTransform
        try writer.add(videoInput)
        var audioInput: AssetWriterInput?
        if audioOutput != nil {
            let input = AssetWriterInput(
                mediaType: .audio,
                outputSettings: AudioSettings(codec: fileType == .webm ? .opus : .aac, sampleRate: 48000,
                                              channelCount: audioChannels, bitRate: audioBitRate))
            try writer.add(input)
            audioInput = input
        }

        try reader.startReading()
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let progress = ProgressReporter(console: console, json: arguments.flag("json"),
                                        total: max(asset.duration.seconds, 0.001), label: "transcode")
        do {
            try Self.copySamples(video: (videoOutput, videoInput), audio: audioOutput.flatMap { output in
                audioInput.map { (output, $0) }
            }, progress: progress)
        } catch {
            writer.cancelWriting()
            throw error
        }
        try await writer.finishWriting()
        progress.finish()
        if !arguments.flag("json") {
            let written = try Asset(url: outputURL)
            console.printError("wrote \(outputPath): \(Format.seconds(written.duration)), \(Format.bytes(written.fileSize))")
        }
        return 0
    }

    /// Moves every sample from the reader outputs to the writer inputs, in time order, so
    /// the muxer interleaves without buffering.
    static func copySamples(video: (AssetReaderTrackOutput, AssetWriterInput),
                            audio: (AssetReaderTrackOutput, AssetWriterInput)?,
                            progress: ProgressReporter) throws(ReelError) {
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
                if sample.presentationTime >= .zero { try video.1.append(sample) }
                progress.update(sample.presentationTime.seconds)
                nextVideo = try video.0.copyNextSampleBuffer()
            } else if let sample = nextAudio, let audio {
                try audio.1.append(sample)
                nextAudio = try audio.0.copyNextSampleBuffer()
            }
        }
    }
}

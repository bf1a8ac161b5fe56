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
            .value("crf", "N", help: "Quality, 0-51 (0-63 for vp9; lower is better): 23 for h264, 28 for hevc."),
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
        let crf = try arguments.double("crf", in: codec == .vp9 ? 0...63 : 0...51)
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
        try OutputGuard.refuse(output: outputURL, replacing: [("the input", inputPath)])

        var options = MediaCopyJob.Options()
        options.codec = codec
        options.size = size
        options.quality = crf
        options.bitRate = bitRate
        options.keyFrameInterval = keyInterval
        options.preset = try MediaCopyJob.preset(arguments)
        options.fragmentInterval = fragment
        options.audioBitRate = audioBitRate
        options.includeAudio = !arguments.flag("no-audio")
        let job = try MediaCopyJob(input: inputPath, output: outputURL, fileType: fileType, options: options)
        let progress = ProgressReporter(console: console, json: arguments.flag("json"), total: job.duration,
                                        label: "transcode")
        try await job.run(progress: progress)
        progress.finish()
        if !arguments.flag("json") {
            let written = try Asset(url: outputURL)
            console.printError("wrote \(outputPath): \(Format.seconds(written.duration)), \(Format.bytes(written.fileSize))")
        }
        return 0
    }
}

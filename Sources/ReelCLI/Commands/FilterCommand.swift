import Foundation
import ReelAsset
import ReelCore
import ReelFilters

/// `reel filter IN --filter SPEC -o OUT`: a filter chain over a video or a picture.
struct FilterCommand: Command {
    let spec = CommandSpec(
        name: "filter",
        abstract: "Apply a chain of filters to a video or a still picture.",
        usage: "IN --filter NAME[:param=value...][,NAME...] -o OUT [--crf N] [--preset NAME]",
        positionals: 1...1,
        options: [
            .value("filter", short: "f", "CHAIN", help: "The filters, comma-separated ('reel filters' lists them)."),
            .value("output", short: "o", "OUT", help: "A video (.mp4, .mov…) or, for a picture, .png or .jpg."),
            .value("crf", "N", help: "Video quality, 0-51 (default 23)."),
            .value("preset", "NAME", help: "Encoder speed (default medium)."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ],
        discussion: """
        Example:
          reel filter clip.mp4 --filter PhotoEffectNoir,Vignette:intensity=0.8 -o noir.mp4
          reel filter photo.jpg --filter PhotoEffectInstant -o instant.jpg
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let chainText = arguments.value("filter") else {
            throw UsageError("'filter' needs --filter CHAIN", command: spec.name)
        }
        guard let outputPath = arguments.value("output") else {
            throw UsageError("'filter' needs -o OUT", command: spec.name)
        }
        let chain: FilterChain
        do {
            chain = try FilterChain(spec: chainText)
        } catch {
            throw UsageError("--filter: \(error.message)", command: spec.name)
        }
        guard !chain.filters.isEmpty else {
            throw UsageError("--filter names no filter ('reel filters' lists them)", command: spec.name)
        }
        let outputURL = URL(fileURLWithPath: outputPath)
        let inputPath = arguments.positionals[0]
        try OutputGuard.refuse(output: outputURL, replacing: [("the input", inputPath)]
                                   + FilterChain.cubeFiles(in: chainText).map { ("a ColorCube file", $0) })
        if ImageFile.Format(pathExtension: outputURL.pathExtension) != nil {
            let asset = try Asset(path: inputPath)
            let generator = ImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            let picture = try generator.image(at: .zero).image
            try ImageFile.write(try chain.apply(picture), to: outputURL)
            console.printError("wrote \(outputPath): \(picture.width)x\(picture.height)")
            return 0
        }
        guard let fileType = FileType(pathExtension: outputURL.pathExtension) else {
            throw UsageError("-o must end in .mp4, .mov, .m4v, .webm, .mkv, .png or .jpg, not '\(outputPath)'",
                             command: spec.name)
        }
        let job = try MediaCopyJob(input: inputPath, output: outputURL, fileType: fileType,
                                   quality: try arguments.double("crf", in: 0...51), preset: try MediaCopyJob.preset(arguments))
        let progress = ProgressReporter(console: console, json: arguments.flag("json"), total: job.duration, label: "filter")
        try await job.run(progress: progress) { (sample) throws(ReelError) -> SampleBuffer in
            guard let picture = sample.pixelBuffer else { return sample }
            return SampleBuffer(pixelBuffer: try chain.apply(picture), presentationTime: sample.presentationTime,
                                duration: sample.duration)
        }
        progress.finish()
        if !arguments.flag("json") {
            let written = try Asset(url: outputURL)
            console.printError("wrote \(outputPath): \(Format.seconds(written.duration)), \(Format.bytes(written.fileSize))")
        }
        return 0
    }
}

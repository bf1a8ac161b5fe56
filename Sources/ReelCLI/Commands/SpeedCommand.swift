import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel speed IN --rate R -o OUT`: a clip played faster or slower.
struct SpeedCommand: Command {
    let spec = CommandSpec(
        name: "speed",
        abstract: "Play a clip faster or slower (x5 fast, x4 slow), keeping the pitch.",
        usage: "IN --rate R -o OUT [--preset NAME] [--varispeed]",
        positionals: 1...1,
        options: [
            .value("rate", short: "r", "R", help: "5 is five times as fast, 0.25 four times as slow (1/16...16)."),
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v)."),
            .value("preset", "NAME", help: "passthrough (the default for slow-downs: frames copied), 640x480, …, highest."),
            .flag("varispeed", help: "Let the pitch follow the speed, like tape."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ],
        discussion: """
        Example:
          reel speed clip.mp4 --rate 5 -o fast.mp4
          reel speed clip.mp4 --rate 0.25 -o slow.mp4
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let rate = try arguments.double("rate", in: 1.0 / 16...16) else {
            throw UsageError("'speed' needs --rate R", command: spec.name)
        }
        let (url, type) = try CompositionExport.outputURL(arguments, command: spec.name)
        let preset = try CompositionExport.preset(arguments, command: spec.name,
                                                  default: rate < 1 ? .passthrough : .highestQuality)
        let input = arguments.positionals[0]
        try OutputGuard.refuse(output: url, replacing: [("the input", input)])
        let asset = try CompositionExport.videoAsset(input)
        let pitch: AudioTimePitchAlgorithm = arguments.flag("varispeed") ? .varispeed : .timeDomain
        if preset == .passthrough {
            guard rate < 1 else {
                throw UsageError("--preset passthrough keeps every frame, so it only slows down (a rate below 1)",
                                 command: spec.name)
            }
            // Every frame kept: copy the pictures with stretched timestamps, re-encode only the sound.
            let progress = ProgressReporter(console: console, json: arguments.flag("json"), total: 1, label: "speed")
            let box = ProgressBox(progress)
            try StretchedCopy.write(asset, rate: rate, to: url, fileType: type, pitch: pitch) { box.update($0) }
            progress.finish()
            return 0
        }
        let change = try SpeedChange(asset: asset, rate: rate)
        let session = ExportSession(composition: change.composition, preset: preset == .passthrough ? .highestQuality : preset)
        session.outputURL = url
        session.outputFileType = type
        session.videoComposition = change.videoComposition
        session.audioTimePitchAlgorithm = pitch
        try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "speed")
        return 0
    }
}

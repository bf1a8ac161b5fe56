import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel timeline spec.json -o timeline.png`: the tracks, clips, transitions and overlays drawn over time.
struct TimelineCommand: Command {
    let spec = CommandSpec(
        name: "timeline",
        abstract: "Draw a composition spec's tracks, clips, transitions and overlays over time.",
        usage: "SPEC.json -o TIMELINE.png [--width PIXELS]",
        positionals: 1...1,
        options: [
            .value("output", short: "o", "OUT", help: "The picture to write (.png or .jpg)."),
            .value("width", "PIXELS", help: "Width of the picture (default 1600)."),
        ])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let output = arguments.value("output") else { throw UsageError("'timeline' needs -o OUT.png", command: spec.name) }
        let url = URL(fileURLWithPath: output)
        guard ImageFile.Format(pathExtension: url.pathExtension) != nil else {
            throw UsageError("-o must end in .png, .jpg or .jpeg, not '\(output)'", command: spec.name)
        }
        let specURL = URL(fileURLWithPath: arguments.positionals[0])
        let description = try CompositionSpec(contentsOf: specURL)
        let built: BuiltComposition
        do {
            built = try description.build(relativeTo: specURL.deletingLastPathComponent())
        } catch {
            throw ReelError(error.code, error.message, subject: "\(specURL.path): \(error.subject ?? "spec")")
        }
        let cues: [SubtitleDocument.Cue]
        do {
            cues = try description.subtitleDocument(relativeTo: specURL.deletingLastPathComponent(),
                                                    duration: built.composition.duration)?.cues ?? []
        } catch {
            throw ReelError(error.code, error.message, subject: "\(specURL.path): \(error.subject ?? "spec")")
        }
        let picture = try TimelinePicture.render(built.composition, video: built.videoComposition,
                                                 width: try arguments.int("width", in: 400...8000) ?? 1600, lanes: built.layerTracks,
                                                 subtitles: cues, audioMix: built.audioMix)
        try ImageFile.write(picture, to: url)
        console.printError("wrote \(output): \(picture.width)x\(picture.height)")
        return 0
    }
}

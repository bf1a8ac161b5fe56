import Foundation
import ReelAsset
import ReelCore

/// `reel thumbnail FILE --at SECONDS -o OUT`: one picture of the video.
struct ThumbnailCommand: Command {
    let spec = CommandSpec(
        name: "thumbnail",
        abstract: "Save the frame at a time as a PNG or JPEG picture.",
        usage: "FILE --at SECONDS -o OUT.png|OUT.jpg [--max-size WxH] [--tolerance S]",
        positionals: 1...1,
        options: [
            .value("at", short: "t", "SECONDS", help: "The time of the frame (default 0)."),
            .value("output", short: "o", "OUT", help: "The picture to write: .png, .jpg or .jpeg."),
            .value("max-size", "WxH", help: "Scale down to fit this box, keeping the aspect."),
            .value("tolerance", "S", help: "Accept a frame up to S seconds early, for speed (default 0: exact)."),
            .flag("no-rotate", help: "Keep the stored orientation instead of turning the picture upright."),
        ],
        discussion: """
        The picture is the frame on screen at the time, turned upright by the track's rotation.

        Example:
          reel thumbnail clip.mp4 --at 3.5 -o poster.jpg --max-size 640x640
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let output = arguments.value("output") else {
            throw UsageError("'thumbnail' needs -o OUT.png or OUT.jpg", command: spec.name)
        }
        let url = URL(fileURLWithPath: output)
        guard ImageFile.Format(pathExtension: url.pathExtension) != nil else {
            throw UsageError("-o must end in .png, .jpg or .jpeg, not '\(output)'", command: spec.name)
        }
        let at = try arguments.double("at", in: 0...1e7) ?? 0
        let tolerance = try arguments.double("tolerance", in: 0...3600) ?? 0
        let asset = try Asset(path: arguments.positionals[0])
        let generator = ImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = !arguments.flag("no-rotate")
        if let box = try arguments.size("max-size") {
            generator.maximumSize = Size(width: box.width, height: box.height)
        }
        generator.requestedTimeToleranceBefore = MediaTime(seconds: tolerance, preferredTimescale: 1000)
        let (picture, actual) = try generator.image(at: MediaTime(seconds: at, preferredTimescale: 1000))
        try ImageFile.write(picture, to: url)
        console.printError("wrote \(output): \(picture.width)x\(picture.height), frame at \(String(format: "%.3f", actual.seconds)) s")
        return 0
    }
}

import Foundation
import ReelAsset
import ReelCore

/// `reel contact-sheet FILE -o sheet.png`: a grid of frames with their timecodes.
struct ContactSheetCommand: Command {
    let spec = CommandSpec(
        name: "contact-sheet",
        abstract: "Draw a grid of frames at even intervals, each with its timecode.",
        usage: "FILE -o SHEET.png [--columns N] [--rows N] [--width PIXELS]",
        positionals: 1...1,
        options: [
            .value("output", short: "o", "SHEET", help: "The picture to write: .png or .jpg."),
            .value("columns", "N", help: "Frames across (default 4)."),
            .value("rows", "N", help: "Frames down (default 3)."),
            .value("width", "PIXELS", help: "Width of each frame (default 320)."),
        ],
        discussion: """
        Example:
          reel contact-sheet clip.mp4 -o sheet.png --columns 5 --rows 4
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let output = arguments.value("output") else {
            throw UsageError("'contact-sheet' needs -o SHEET.png", command: spec.name)
        }
        let url = URL(fileURLWithPath: output)
        guard ImageFile.Format(pathExtension: url.pathExtension) != nil else {
            throw UsageError("-o must end in .png, .jpg or .jpeg, not '\(output)'", command: spec.name)
        }
        let sheet = ContactSheet(columns: try arguments.int("columns", in: 1...20) ?? 4,
                                 rows: try arguments.int("rows", in: 1...20) ?? 3,
                                 thumbnailWidth: try arguments.int("width", in: 32...1920) ?? 320)
        let asset = try Asset(path: arguments.positionals[0])
        if let track = asset.tracks(withMediaType: .video).first {
            // Each option can be inside its range while together they make too big a picture.
            let size = sheet.estimatedSize(of: track), limit = PixelBuffer.maximumDimension
            if size.width > limit {
                throw UsageError("--columns \(sheet.columns) of --width \(sheet.thumbnailWidth) make a sheet \(size.width) pixels wide, more than \(limit): use fewer columns or a smaller --width",
                                 command: spec.name)
            }
            if size.height > limit {
                throw UsageError("--rows \(sheet.rows) of frames \(sheet.thumbnailWidth) pixels wide make a sheet \(size.height) pixels high, more than \(limit): use fewer rows or a smaller --width",
                                 command: spec.name)
            }
        }
        let picture = try sheet.render(asset)
        try ImageFile.write(picture, to: url)
        console.printError("wrote \(output): \(picture.width)x\(picture.height)")
        return 0
    }
}

import Foundation
import ReelAsset
import ReelCore

/// `reel recover FILE [-o OUT]`: an interrupted recording made whole.
struct RecoverCommand: Command {
    let spec = CommandSpec(
        name: "recover",
        abstract: "Turn an interrupted recording (NAME.partial.mp4) into a normal file, index first.",
        usage: "FILE [-o OUT]",
        positionals: 1...1,
        options: [
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v); default NAME.mp4 beside FILE."),
        ],
        discussion: """
        Nothing is re-encoded: every complete frame and sound packet is copied, and a last
        fragment that the interruption cut short is left out. FILE is only read; delete it
        yourself once the result plays. Without -o, an existing NAME.mp4 is never replaced.

        Example:
          reel recover holiday.partial.mp4          # writes holiday.mp4
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let source = URL(fileURLWithPath: arguments.positionals[0])
        let output: URL
        if let path = arguments.value("output") {
            output = URL(fileURLWithPath: path)
        } else {
            output = Self.defaultOutput(for: source)
            if FileManager.default.fileExists(atPath: output.path) {
                throw ReelError(.invalidArgument, "already exists; choose another name with -o", subject: output.path)
            }
        }
        guard let type = FileType(pathExtension: output.pathExtension), type.isISOBaseMediaFamily else {
            throw UsageError("-o must end in .mp4, .mov or .m4v, not '\(output.path)'", command: spec.name)
        }
        let report = try RecordingRecovery.recover(source, to: output, fileType: type)
        var line = "recovered \(output.path): \(Format.seconds(report.duration)), \(report.videoFrames) frames"
        if report.droppedSamples > 0 { line += " (\(report.droppedSamples) samples of an unfinished last fragment left out)" }
        console.printError(line)
        return 0
    }

    /// `NAME.partial.mp4` → `NAME.mp4`; `NAME.partial-2.mp4` → `NAME-2.mp4`; anything else → `NAME.recovered.mp4`.
    static func defaultOutput(for source: URL) -> URL {
        let folder = source.deletingLastPathComponent()
        let ext = source.pathExtension.isEmpty ? "mp4" : source.pathExtension
        let stem = source.deletingPathExtension().lastPathComponent
        if let range = stem.range(of: ".partial", options: .backwards) {
            let name = stem.replacingCharacters(in: range, with: "")
            if !name.isEmpty { return folder.appendingPathComponent("\(name).\(ext)") }
        }
        return folder.appendingPathComponent("\(stem).recovered.\(ext)")
    }
}

extension FileType {
    fileprivate var isISOBaseMediaFamily: Bool { self == .mp4 || self == .mov || self == .m4v }
}

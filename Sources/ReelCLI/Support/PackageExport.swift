import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel export IN|SPEC.json --hls DIR [--dash DIR] [--ladder 1080,720,480] [--segment SECONDS]`:
/// an adaptive package (``AdaptivePackage``). A spec is rendered first, at its own preset,
/// into a hidden file beside the package, which is removed afterwards.
enum PackageExport {
    static let options: [OptionSpec] = [
        .value("hls", "DIR", help: "Write an HLS package (master.m3u8, fMP4 segments) into the new or empty folder DIR."),
        .value("dash", "DIR", help: "Write a DASH package (manifest.mpd); with --hls, the same DIR shares one segment set."),
        .value("ladder", "HEIGHTS", help: "Picture heights of the renditions, such as 1080,720,480 (default 720,480,360)."),
        .value("segment", "SECONDS", help: "Segment length in seconds, 1-30 (default 2)."),
    ]

    static func isAsked(_ arguments: ParsedArguments) -> Bool {
        arguments.value("hls") != nil || arguments.value("dash") != nil
    }

    /// The heights of `--ladder`: even numbers of pixels, 2…4320, each once.
    static func ladder(_ text: String?, command: String) throws(UsageError) -> [Int] {
        guard let text else { return [720, 480, 360] }
        var heights: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let height = Int(item), (2...4320).contains(height), height % 2 == 0 else {
                throw UsageError(
                    "--ladder takes even picture heights from 2 to 4320 separated by commas (such as 1080,720,480), "
                        + "not '\(item)'", command: command)
            }
            guard !heights.contains(height) else {
                throw UsageError("--ladder names \(height) twice", command: command)
            }
            heights.append(height)
        }
        return heights
    }

    static func run(_ arguments: ParsedArguments, command: String, console: Console) async throws -> Int32 {
        guard arguments.value("output") == nil, arguments.value("preset") == nil else {
            throw UsageError("--hls and --dash write a package: give no -o or --preset", command: command)
        }
        let hls = arguments.value("hls"), dash = arguments.value("dash")
        if let hls, let dash, URL(fileURLWithPath: hls).standardizedFileURL != URL(fileURLWithPath: dash).standardizedFileURL {
            throw UsageError("--hls and --dash share one segment set: give them the same DIR", command: command)
        }
        let heights = try ladder(arguments.value("ladder"), command: command)
        var interval = MediaTime(value: 2, timescale: 1)
        if let text = arguments.value("segment") {
            guard let seconds = Double(text), seconds.isFinite, (1...30).contains(seconds) else {
                throw UsageError("--segment takes seconds from 1 to 30, not '\(text)'", command: command)
            }
            interval = MediaTime(seconds: seconds, preferredTimescale: 1000)
        }
        let destination = URL(fileURLWithPath: hls ?? dash ?? "").standardizedFileURL
        let input = arguments.positionals[0]
        try OutputGuard.refuse(output: destination, replacing: [("the input", input)])
        try AdaptivePackage.checkDestination(destination)
        var options = AdaptivePackage.Options(ladder: heights, hls: hls != nil, dash: dash != nil)
        options.segmentInterval = interval

        var source = URL(fileURLWithPath: input)
        var rendered: URL?
        defer {
            if let rendered {
                try? FileManager.default.removeItem(at: rendered)
                InProgressFiles.remove(rendered)
            }
        }
        if source.pathExtension.lowercased() == "json" {
            let description = try CompositionSpec(contentsOf: source)
            try SpecRenderLimits.check(description, at: source, for: "a package")
            let built: BuiltComposition
            do {
                built = try description.build(relativeTo: source.deletingLastPathComponent())
            } catch {
                throw ReelError(error.code, error.message, subject: "\(source.path): \(error.subject ?? "spec")")
            }
            let file = destination.deletingLastPathComponent()
                .appendingPathComponent(".\(destination.lastPathComponent).reel-\(UUID().uuidString.prefix(8)).mp4")
            rendered = file
            InProgressFiles.add(file)
            let session = ExportSession(
                composition: built.composition, preset: built.preset == .passthrough ? .highestQuality : built.preset)
            session.outputURL = file
            session.outputFileType = .mp4
            session.videoComposition = built.videoComposition
            session.audioMix = built.audioMix
            console.printError("rendering \(source.lastPathComponent)")
            try await CompositionExport.run(session, console: console, json: false, label: "compose")
            source = file
        }
        let package = try await AdaptivePackage.write(source: source, to: destination, options: options) { name in
            console.printError("encoding \(name)")
        }
        let kinds = [hls != nil ? "HLS" : nil, dash != nil ? "DASH" : nil].compactMap { $0 }.joined(separator: " and ")
        let ladder = package.renditions.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
        console.print(
            "wrote \(kinds) package \(destination.path): \(ladder)\(package.hasAudio ? " and sound" : ""), "
                + "\(package.renditions.first?.segmentStarts.count ?? 0) segments of \(Format.seconds(interval)) each")
        return 0
    }
}

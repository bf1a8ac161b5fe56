import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// What `merge`, `export` and `demo` share: a preset option and a progress-reporting export.
enum CompositionExport {
    static func preset(_ arguments: ParsedArguments, command: String, default fallback: ExportPreset) throws(UsageError) -> ExportPreset {
        guard let name = arguments.value("preset") else { return fallback }
        guard let preset = ExportPreset.allCases.first(where: { $0.rawValue == name }) else {
            throw UsageError("--preset is one of \(ExportPreset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'",
                             command: command)
        }
        return preset
    }

    static func outputURL(_ arguments: ParsedArguments, command: String) throws(UsageError) -> (URL, FileType) {
        guard let path = arguments.value("output") else { throw UsageError("'\(command)' needs -o OUT", command: command) }
        let url = URL(fileURLWithPath: path)
        guard let type = FileType(pathExtension: url.pathExtension), [.mp4, .mov, .m4v, .m4a].contains(type) else {
            throw UsageError("-o must end in .mp4, .mov, .m4v or .m4a (the sound alone), not '\(path)'", command: command)
        }
        return (url, type)
    }

    /// The asset at `path`, refused by its path (not as `clips[0]`, which a one-file command
    /// does not have) when it has no picture.
    static func videoAsset(_ path: String) throws(ReelError) -> Asset {
        let asset = try Asset(path: path)
        guard !asset.tracks(withMediaType: .video).isEmpty else {
            throw ReelError(.invalidData, "has no video track: nothing to render (an audio-only file?)", subject: path)
        }
        return asset
    }

    /// `--no-smart` and `--explain`, which `merge` and `compose` share.
    static let smartOptions: [OptionSpec] = [
        .flag("no-smart", help: "Render every frame (default: copy the frames the edit leaves untouched, when the sources allow)."),
        .flag("explain", help: "Print the smart-render plan: which frames are copied, which rendered and why."),
    ]

    /// Applies `--no-smart` and prints the plan for `--explain`.
    static func applySmartOptions(_ arguments: ParsedArguments, to session: ExportSession, console: Console) throws(ReelError) {
        session.smartRender = !arguments.flag("no-smart")
        guard arguments.flag("explain") else { return }
        if !session.smartRender {
            console.print("smart render: off (--no-smart): every frame is rendered")
            return
        }
        for line in try SmartRenderPlan.make(for: session).lines { console.print(line) }
    }

    static func run(_ session: ExportSession, console: Console, json: Bool, label: String) async throws(ReelError) {
        let progress = ProgressReporter(console: console, json: json, total: max(session.composition.duration.seconds, 0.001),
                                        label: label)
        let box = ProgressBox(progress)
        let total = session.composition.duration.seconds
        try await session.export { fraction in box.update(fraction * total) }
        progress.finish()
        for warning in session.warnings { console.printError("reel \(label): \(warning)") }
    }
}

/// Hands progress from the export thread to the reporter.
final class ProgressBox: @unchecked Sendable {
    private let reporter: ProgressReporter
    private let lock = NSLock()
    init(_ reporter: ProgressReporter) { self.reporter = reporter }
    func update(_ seconds: Double) { lock.withLock { reporter.update(seconds) } }
}

/// `reel merge A B C… -o OUT`: clips one after another, with transitions.
struct MergeCommand: Command {
    let spec = CommandSpec(
        name: "merge",
        abstract: "Join clips one after another, with transitions, into one file.",
        usage: "CLIP... -o OUT [--transition dissolve:2|push:1|none] [--preset NAME] [--size WxH] [--jobs N | --slurm]",
        positionals: 1...Int.max, positionalsUnbounded: true,
        options: [
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v)."),
            .value("transition", short: "t", "KIND:S",
                   help: "dissolve:S, push[-DIR]:S, slide[-DIR]:S, wipe[-DIR]:S, fade:S, zoom:S or none (DIR: left, right, up, down)."),
            .value("preset", "NAME", help: "passthrough (copy, no re-encoding), 640x480, 960x540, 1280x720 (default), 1920x1080, …"),
            .value("size", "WxH", help: "The render size (default: the first clip's); clips are fitted and centred."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ] + CompositionExport.smartOptions + ChunkOptions.options,
        discussion: """
        Sound follows its picture: where clips overlap for a transition, their audio crossfades.
        Clips of mixed orientation are each fitted inside the frame and centred.

        Example:
          reel merge a.mp4 b.mov c.mp4 --transition dissolve:1 -o merged.mp4
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let (url, type) = try CompositionExport.outputURL(arguments, command: spec.name)
        let preset = try CompositionExport.preset(arguments, command: spec.name, default: .preset1280x720)
        let transition: Transition
        if let text = arguments.value("transition") {
            guard let parsed = Transition(spec: text) else {
                throw UsageError("--transition is dissolve:S, push[-DIR]:S, slide[-DIR]:S, wipe[-DIR]:S, fade:S, zoom:S or none, not '\(text)'",
                                 command: spec.name)
            }
            transition = parsed
        } else {
            transition = .none
        }
        let size = try arguments.size("size").map { Size(width: $0.width, height: $0.height) }
        if let size, !(16...8192).contains(Int(size.width)) || !(16...8192).contains(Int(size.height))
            || Int(size.width) % 2 != 0 || Int(size.height) % 2 != 0 {
            throw UsageError("--size wants even sides from 16 to 8192, not \(Int(size.width))x\(Int(size.height))", command: spec.name)
        }
        if size != nil, arguments.value("preset") == "passthrough" {
            throw UsageError("--size cannot go with --preset passthrough, which copies the pictures as they are", command: spec.name)
        }
        var assets: [Asset] = []
        for path in arguments.positionals {
            try OutputGuard.refuse(output: url, replacing: [("a clip", path)])
            assets.append(try Asset(path: path))
        }
        let source = ChunkJob.Source(kind: "merge", files: arguments.positionals.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
                                     transition: arguments.value("transition"),
                                     size: size.map { "\(Int($0.width))x\(Int($0.height))" })
        if try await ChunkedRun.runIfAsked(arguments, command: spec.name, source: source,
                                           session: { try ChunkJob.session(source, preset: preset.rawValue) }, output: url, console: console) {
            return 0
        }
        // Each clip lasts as long as its picture (a longer sound is cut there).
        let sequence = try ClipSequence(clips: assets.map { ClipSequence.Clip(pictureOf: $0) }, transitions: [transition],
                                        renderSize: size)
        let session = sequence.exportSession(preset: preset, to: url, fileType: type)
        try CompositionExport.applySmartOptions(arguments, to: session, console: console)
        try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "merge")
        return 0
    }
}

/// `reel export IN --preset NAME -o OUT`: one file through an export preset.
struct ExportCommand: Command {
    let spec = CommandSpec(
        name: "export",
        abstract: "Export a file with an AVFoundation-style preset (640x480, 1280x720, highest…), or as an HLS/DASH package.",
        usage: "IN --preset NAME -o OUT [--jobs N | --slurm] | IN|SPEC.json --hls DIR [--dash DIR] [--ladder 1080,720,480]",
        positionals: 1...1,
        options: [
            .value("preset", "NAME", help: "640x480, 960x540, 1280x720, 1920x1080, 3840x2160, low, medium, highest, hevc-…"),
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v)."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ] + CompositionExport.smartOptions + ChunkOptions.options + PackageExport.options,
        discussion: """
        Sized presets fit the picture inside their box, keep its aspect, never scale up, and use even sizes.

        --hls/--dash write an adaptive package instead of a file: one folder per picture height
        (heights above the source's are left out) and the sound once, fMP4 segments starting on
        keyframes at the same times in every rendition, master.m3u8 and/or manifest.mpd. The
        package is written under a hidden name and renamed when complete. IN may be a composition
        spec (SPEC.json), rendered first.

        Example:
          reel export talk.mp4 --hls talk-hls --ladder 1080,720,480
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if PackageExport.isAsked(arguments) {
            return try await PackageExport.run(arguments, command: spec.name, console: console)
        }
        let (url, type) = try CompositionExport.outputURL(arguments, command: spec.name)
        let preset = try CompositionExport.preset(arguments, command: spec.name, default: .highestQuality)
        let input = arguments.positionals[0]
        try OutputGuard.refuse(output: url, replacing: [("the input", input)])
        let source = ChunkJob.Source(kind: "export", files: [URL(fileURLWithPath: input).standardizedFileURL.path])
        if try await ChunkedRun.runIfAsked(arguments, command: spec.name, source: source,
                                           session: { try ChunkJob.session(source, preset: preset.rawValue) }, output: url, console: console) {
            return 0
        }
        let sequence = try ClipSequence(assets: [try CompositionExport.videoAsset(input)])
        let session = sequence.exportSession(preset: preset, to: url, fileType: type)
        try CompositionExport.applySmartOptions(arguments, to: session, console: console)
        try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "export")
        return 0
    }
}

/// `reel demo`: the seed app's composition.
struct DemoCommand: Command {
    let spec = CommandSpec(
        name: "demo",
        abstract: "The seed composition: five clips, dissolve and push transitions, a sticker, 640x480 export.",
        usage: "[--clips DIR] [-o OUT.mp4]",
        positionals: 0...0,
        options: [
            .value("clips", "DIR", help: "Where the clips are (default ../shared/media/seed-clips, else clips Reel makes)."),
            .value("output", short: "o", "OUT", help: "The file to write (default reel-demo.mp4)."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ])

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let output = URL(fileURLWithPath: arguments.value("output") ?? "reel-demo.mp4")
        var isFolder: ObjCBool = false
        let outputFolder = output.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: outputFolder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReelError(.fileNotFound, "the folder \(outputFolder) does not exist", subject: output.path)
        }
        var clips: [URL]
        let folder = arguments.value("clips") ?? "../shared/media/seed-clips"
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.lowercased().hasSuffix(".mp4") }.sorted()
        if !found.isEmpty {
            clips = found.prefix(5).map { URL(fileURLWithPath: folder).appendingPathComponent($0) }
        } else {
            if arguments.value("clips") != nil {
                throw ReelError(.fileNotFound, "holds no .mp4 clips", subject: folder)
            }
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("reel-demo-clips")
            try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            console.printError("(\(folder) is absent: making five clips in \(work.path))")
            clips = try SyntheticClips.make(count: 5, seconds: 5, in: work)
        }
        let assets = try clips.map { (url) throws(ReelError) in try Asset(url: url) }
        let two = MediaTime(value: 2, timescale: 1)
        let sequence = try ClipSequence(assets: assets, transitions: [.dissolve(duration: two), .push(duration: two, direction: .left)])
        var video = sequence.videoComposition
        // The sticker: 40x40 yellow, opacity 0, 1, 1, 0 at 0, 1/4, 3/4, 1 of 5 s from 3 s.
        let root = OverlayLayer(frame: Rect(origin: .zero, size: video.renderSize))
        let sticker = OverlayLayer(content: .color(red: 1, green: 1, blue: 0), frame: Rect(x: 0, y: 0, width: 40, height: 40),
                                   opacity: 0)
        sticker.add(KeyframeAnimation(keyPath: .opacity, values: [0, 1, 1, 0], keyTimes: [0, 0.25, 0.75, 1], beginTime: 3,
                                      duration: 5, isRemovedOnCompletion: false))
        root.addSublayer(sticker)
        video.animationTool = root
        let session = sequence.exportSession(preset: .preset640x480, to: output, fileType: .mp4)
        session.videoComposition = video
        // The timeline needs only the composition: drawn beside the export, written after it.
        let composition = sequence.composition, drawn = video
        async let timeline = Result { () throws(ReelError) in try TimelinePicture.render(composition, video: drawn) }
        try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "demo")
        let sheetURL = output.deletingPathExtension().appendingPathExtension("sheet.png")
        let written = try Asset(url: output)
        try ImageFile.write(try ContactSheet(columns: 6, rows: 3, thumbnailWidth: 200).render(written), to: sheetURL)
        let timelineURL = output.deletingPathExtension().appendingPathExtension("timeline.png")
        try ImageFile.write(try await timeline.get(), to: timelineURL)
        console.print("demo: \(output.path) (\(Format.seconds(written.duration)), \(session.outputSize.width)x\(session.outputSize.height))")
        console.print("contact sheet: \(sheetURL.path)")
        console.print("timeline: \(timelineURL.path)")
        return 0
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel compose spec.json -o out.mp4`: a composition from its JSON description.
struct ComposeCommand: Command {
    let spec = CommandSpec(
        name: "compose",
        abstract: "Render a composition described in JSON (docs/composition-spec.md).",
        usage: "SPEC.json -o OUT [--preset NAME] [--jobs N | --slurm [--chunks N]] | --bench",
        positionals: 0...1,
        options: [
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v; .gif, .webp; frame-%04d.png for a PNG sequence)."),
            .value("preset", "NAME", help: "Overrides the spec's preset."),
            .flag("check", help: "Only check the spec; write nothing."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
            .flag("bench", help: "Time the compositor's draws at 1920x1080 on one core and on all (run a release build)."),
        ] + CompositionExport.smartOptions + ChunkOptions.options,
        discussion: """
        Every check happens before rendering; an error names the spec path, such as clips[2].range.end.

        Example:
          reel compose wedding.json -o wedding.mp4
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if arguments.flag("bench") {
            guard arguments.positionals.isEmpty else { throw UsageError("--bench takes no spec", command: spec.name) }
            for result in try CompositorBench.run() {
                let name = result.name.padding(toLength: 20, withPad: " ", startingAt: 0)
                console.print("compositor \(name) " + String(format: "one core %7.3f ms  all cores %7.3f ms  speed-up %.2f",
                                                             result.oneCore, result.allCores,
                                                             result.oneCore / max(result.allCores, 1e-9)))
            }
            return 0
        }
        guard let path = arguments.positionals.first else {
            throw UsageError("give the spec: reel compose SPEC.json -o OUT", command: spec.name)
        }
        let specURL = URL(fileURLWithPath: path)
        // A boomerang clip becomes two (forwards, then a reversed copy), before the copies are
        // made; errors name the clips as the spec has them.
        let original = try CompositionSpec(contentsOf: specURL)
        let description = original.expandingBoomerangs()
        var built: BuiltComposition
        do {
            built = try original.build(relativeTo: specURL.deletingLastPathComponent())
        } catch {
            throw ReelError(error.code, error.message, subject: "\(specURL.path): \(error.subject ?? "spec")")
        }
        if arguments.flag("check") {
            console.print("\(specURL.path): \(built.clipRanges.count) clips, \(Format.seconds(built.composition.duration))")
            return 0
        }
        // An animated GIF or WebP, or a PNG sequence: the movie is rendered to a temporary
        // file first, and its pictures written from there.
        let animated = arguments.value("output").flatMap { AnimatedExport.format(of: URL(fileURLWithPath: $0)) }
        let (url, type): (URL, FileType)
        var movie: URL?
        if let animated, let path = arguments.value("output") {
            url = URL(fileURLWithPath: path)
            type = .mp4
            movie = FileManager.default.temporaryDirectory.appendingPathComponent("reel-animated-\(UUID().uuidString.prefix(8)).mp4")
            _ = animated
        } else {
            (url, type) = try CompositionExport.outputURL(arguments, command: spec.name)
        }
        // No input may be the output: the spec itself, clips, the music, image overlays.
        let folder = specURL.deletingLastPathComponent()
        let inputs = original.inputs(specURL: specURL)
        try OutputGuard.refuse(output: url, replacing: inputs)
        if animated == .pngSequence, let path = arguments.value("output") {
            try OutputGuard.refuse(sequence: try SequencePattern(URL(fileURLWithPath: path)), replacing: inputs)
        }
        let preset = try CompositionExport.preset(arguments, command: spec.name, default: built.preset)
        if preset == .passthrough, let refusal = description.passthroughRefusal(subject: specURL.path) { throw refusal }
        let source = ChunkJob.Source(kind: "compose", spec: specURL.standardizedFileURL.path)
        if try await ChunkedRun.runIfAsked(arguments, command: spec.name, source: source,
                                           session: { try ChunkJob.session(source, preset: preset.rawValue) }, output: url, console: console) {
            return 0
        }
        // Clips to steady are steadied now, once every check has passed, and the composition
        // built again from the steadied copies (removed when the export is done).
        var stabilization: SpecStabilization?
        if description.clips.contains(where: { $0.stabilize != nil }) {
            let steadied = try await SpecStabilization(description, relativeTo: folder, subject: specURL.path, console: console,
                                                       json: arguments.flag("json"))
            stabilization = steadied
            do {
                built = try steadied.spec.build(relativeTo: folder)
            } catch {
                let error = original.renamingExpandedClips(error)
                throw ReelError(error.code, error.message, subject: "\(specURL.path): \(error.subject ?? "spec")")
            }
        }
        defer { withExtendedLifetime(stabilization) {} }
        // Clips to play backwards are written backwards now, and the composition built again.
        var reversal: SpecReversal?
        if description.clips.contains(where: { $0.reverse == true }) {
            let reversed = try SpecReversal(stabilization?.spec ?? description, relativeTo: folder, subject: specURL.path)
            reversal = reversed
            do {
                built = try reversed.spec.build(relativeTo: folder)
            } catch {
                let error = original.renamingExpandedClips(error)
                throw ReelError(error.code, error.message, subject: "\(specURL.path): \(error.subject ?? "spec")")
            }
        }
        defer { withExtendedLifetime(reversal) {} }
        // Ducking: the clips' sound measured, the music lowered under it (before loudness,
        // which measures the final mix).
        if let duck = description.audio?.music?.duck {
            let regions = try built.duckMusic(by: duck.amount ?? 12, threshold: duck.threshold ?? -35, attack: duck.attack ?? 0.1,
                                              release: duck.release ?? 0.5)
            console.print("ducking: the music is lowered \(Format.seconds(regions.reduce(.zero) { $0 + $1.duration })) in \(regions.count) stretches")
        }
        // Loudness: the mix measured (first pass), then one gain on every track (second).
        if let target = description.audio?.loudness {
            if let result = try built.normalizeLoudness(to: target) {
                console.print(String(format: "loudness: measured %.1f LUFS, gain %+.1f dB%@", result.measured, result.gain,
                                     result.peakLimited ? " (held back by the peak: the output is quieter than \(target) LUFS)" : ""))
            }
        }
        // Soft subtitles: the movie is rendered under a hidden name, then copied with a mov_text track.
        let softSubtitles: SpecSubtitles?
        do {
            softSubtitles = try SpecSubtitles(description, built: built, folder: folder, output: url, animated: animated != nil)
        } catch {
            throw ReelError(error.code, error.message, subject: "\(specURL.path): \(error.subject ?? "spec")")
        }
        if let softSubtitles {
            try OutputGuard.refuse(output: softSubtitles.webVTT, replacing: inputs)
            try SoftSubtitles.checkDestination(softSubtitles.webVTT)
            InProgressFiles.add(softSubtitles.movie)
        }
        defer { if let softSubtitles { InProgressFiles.remove(softSubtitles.movie) } }
        let session = ExportSession(composition: built.composition, preset: preset)
        session.outputURL = movie ?? softSubtitles?.movie ?? url
        session.outputFileType = type
        session.videoComposition = built.videoComposition
        session.audioMix = built.audioMix
        try CompositionExport.applySmartOptions(arguments, to: session, console: console)
        if let movie, let animated {
            InProgressFiles.add(movie)
            defer {
                try? FileManager.default.removeItem(at: movie)
                InProgressFiles.remove(movie)
            }
            try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "compose")
            let options = description.animation
            let count = try AnimatedExport.write(movie, to: url, format: animated,
                                                 palette: AnimatedExport.Palette(rawValue: options?.palette ?? "file") ?? .file,
                                                 dither: options?.dither ?? "sierra2_4a",
                                                 sceneStarts: built.clipRanges.map(\.start), loop: options?.loop ?? 0)
            console.print("wrote \(url.path): \(count) pictures")
            return 0
        }
        try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "compose")
        try softSubtitles?.finish(console: console)
        return 0
    }
}

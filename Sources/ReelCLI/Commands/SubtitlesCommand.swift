import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// `reel subtitles IN --srt S -o OUT [--burn]`: a subtitle file added to a movie, as a soft
/// track (streams copied) or burned into the pictures (re-encoded).
struct SubtitlesCommand: Command {
    let spec = CommandSpec(
        name: "subtitles",
        abstract: "Add SubRip or ASS subtitles to a movie: a soft track and WebVTT, or burned in.",
        usage: "IN --srt FILE -o OUT [--burn] [--language CODE] [--preset NAME]",
        positionals: 1...1,
        options: [
            .value("srt", "FILE", help: "The subtitles: .srt, or .ass/.ssa (times on IN's timeline)."),
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v)."),
            .flag("burn", help: "Draw the text into the pictures with libass (re-encodes); default: a mov_text track and OUT.vtt."),
            .value("language", "CODE", help: "The soft track's ISO 639-2 language (eng, fra…; default und)."),
            .value("preset", "NAME", help: "With --burn: the export preset (default highest)."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
        ],
        discussion: """
        Without --burn the picture and sound are copied as they are, and the cues go into a
        mov_text track and into OUT.vtt beside the movie. With --burn every picture is rendered
        again and the cues drawn on it. A malformed cue is refused by its file and line.

        Example:
          reel subtitles talk.mp4 --srt talk.srt -o talk-subtitled.mp4
          reel subtitles talk.mp4 --srt talk.ass -o talk-burned.mp4 --burn
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let subtitlePath = arguments.value("srt") else {
            throw UsageError("'subtitles' needs --srt FILE", command: spec.name)
        }
        let (url, type) = try CompositionExport.outputURL(arguments, command: spec.name)
        let input = arguments.positionals[0]
        try OutputGuard.refuse(output: url, replacing: [("the input", input), ("--srt", subtitlePath)])
        let webVTT = SoftSubtitles.webVTTURL(beside: url)
        if !arguments.flag("burn") {
            try OutputGuard.refuse(output: webVTT, replacing: [("the input", input), ("--srt", subtitlePath)])
            try SoftSubtitles.checkDestination(webVTT)
        }
        if let language = arguments.value("language"), !(language.count == 3 && language.allSatisfy({ $0.isASCII && $0.isLowercase })) {
            throw UsageError("--language wants a three-letter ISO 639-2 code (eng, fra, deu), not '\(ReelError.quoted(language))'",
                             command: spec.name)
        }
        // A one-clip spec, so that the checks and the render are compose's own.
        var subtitles: [String: Any] = ["file": URL(fileURLWithPath: subtitlePath).standardizedFileURL.path, "burn": arguments.flag("burn")]
        if let language = arguments.value("language") { subtitles["language"] = language }
        let object: [String: Any] = ["clips": [["file": URL(fileURLWithPath: input).standardizedFileURL.path]], "subtitles": subtitles]
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: object)
        } catch {
            throw ReelError(.invalidArgument, "cannot describe the file: \(error.localizedDescription)", subject: input)
        }
        let description = try CompositionSpec(data: data, name: input)
        _ = try CompositionExport.videoAsset(input)
        let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let built: BuiltComposition
        do {
            built = try description.build(relativeTo: folder)
        } catch {
            throw error.subject?.hasPrefix("subtitles.") == true || error.subject?.hasPrefix("clips[0]") == true
                ? ReelError(error.code, error.message, subject: error.subject?.hasPrefix("clips[0]") == true ? input : subtitlePath)
                : error
        }
        if !arguments.flag("burn") {
            // The streams copied as they are: the file's own timeline is the subtitles'.
            guard let document = try description.subtitleDocument(relativeTo: folder, duration: built.composition.duration) else { return 0 }
            try SoftSubtitles.addTrack(document, to: URL(fileURLWithPath: input), writing: url,
                                       language: arguments.value("language") ?? "und")
            try SoftSubtitles.writeWebVTT(document, to: webVTT)
            console.print("wrote \(url.path) (\(document.cues.count) cues as a mov_text track) and \(webVTT.path)")
            return 0
        }
        let preset = try CompositionExport.preset(arguments, command: spec.name, default: .highestQuality)
        let session = ExportSession(composition: built.composition, preset: preset == .passthrough ? .highestQuality : preset)
        session.outputURL = url
        session.outputFileType = type
        session.videoComposition = built.videoComposition
        session.audioMix = built.audioMix
        try await CompositionExport.run(session, console: console, json: arguments.flag("json"), label: "subtitles")
        return 0
    }
}

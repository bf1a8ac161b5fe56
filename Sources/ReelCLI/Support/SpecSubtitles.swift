import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// A spec's `subtitles` written as a soft track: the movie is rendered under a hidden name,
/// then copied with a `mov_text` track into the output, and a WebVTT file is written beside it.
struct SpecSubtitles {
    let document: SubtitleDocument
    let language: String
    /// Where the movie is rendered first (removed afterwards).
    let movie: URL
    let output: URL
    let webVTT: URL

    /// The soft track of `description`'s subtitles, or nil when there are none or they are burned in.
    /// - Parameters:
    ///   - description: The spec.
    ///   - built: Its composition (for the length the cues are checked against).
    ///   - folder: The spec's folder.
    ///   - output: The movie asked for.
    ///   - animated: Whether the output is a GIF, WebP or PNG sequence (which has no track).
    /// - Throws: ``ReelError`` for a subtitle file's problem (its line named) or an output
    ///   that cannot carry a track.
    init?(_ description: CompositionSpec, built: BuiltComposition, folder: URL, output: URL, animated: Bool) throws(ReelError) {
        guard let subtitles = description.subtitles, subtitles.burn != true,
              let document = try description.subtitleDocument(relativeTo: folder, duration: built.composition.duration) else { return nil }
        if animated {
            throw ReelError(.unsupported, "a GIF, WebP or PNG sequence has no subtitle track: burn them in (\"burn\": true)",
                            subject: "subtitles.burn")
        }
        self.document = document
        language = subtitles.language ?? "und"
        self.output = output
        webVTT = SoftSubtitles.webVTTURL(beside: output)
        movie = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.deletingPathExtension().lastPathComponent).reel-subtitles-\(UUID().uuidString.prefix(8)).\(output.pathExtension)")
    }

    /// Adds the track to the rendered movie (into the output) and writes the WebVTT file.
    /// - Parameter console: Where the note goes.
    /// - Throws: ``ReelError`` when either cannot be written.
    func finish(console: Console) throws(ReelError) {
        defer { try? FileManager.default.removeItem(at: movie) }
        try SoftSubtitles.addTrack(document, to: movie, writing: output, language: language)
        try SoftSubtitles.writeWebVTT(document, to: webVTT)
        console.print("subtitles: \(document.cues.count) cues as a mov_text track in \(output.path) and in \(webVTT.path)")
    }
}

public import Foundation
import ReelAV
import ReelAsset
public import ReelCore

/// Subtitles written beside the pictures rather than into them: a `mov_text` track in an
/// MP4 or MOV (the streams copied, not re-encoded) and a WebVTT file for the web. Both are
/// written under a hidden temporary name and renamed when complete.
public enum SoftSubtitles {
    /// Writes `output`: `movie`'s picture and sound copied, and a `mov_text` track of the cues.
    /// - Parameters:
    ///   - document: The cues, on `movie`'s timeline.
    ///   - movie: An MP4 or MOV.
    ///   - output: The file to write (`.mp4`, `.m4v` or `.mov`); replaced when complete.
    ///   - language: The track's ISO 639-2 language (`und` when unknown).
    /// - Throws: ``ReelError`` with FFmpeg's message about the movie or the output.
    public static func addTrack(_ document: SubtitleDocument, to movie: URL, writing output: URL,
                                language: String = "und") throws(ReelError) {
        let format = output.pathExtension.lowercased() == "mov" ? "mov" : "mp4"
        let temporary = hiddenName(for: output)
        InProgressFiles.add(temporary)
        defer { InProgressFiles.remove(temporary) }
        let header = SubtitleWriter.ass([], style: SubtitleWriter.Style(), width: 384, height: 288)
        let cues = document.cues.map { SubtitleTrackMuxer.Cue(start: $0.start, end: $0.end, assText: SubtitleWriter.assText($0.text)) }
        do {
            try SubtitleTrackMuxer.write(movie: movie.path, to: temporary.path, formatName: format, header: header, cues: cues,
                                         language: language)
            try place(temporary, at: output)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error.renamingSubject(temporary.path, to: output.path)
        }
    }

    /// Writes the cues as a WebVTT file.
    /// - Parameters:
    ///   - document: The cues.
    ///   - url: The `.vtt` file; replaced when complete.
    /// - Throws: ``ReelError`` when the file cannot be written.
    public static func writeWebVTT(_ document: SubtitleDocument, to url: URL) throws(ReelError) {
        let temporary = hiddenName(for: url)
        InProgressFiles.add(temporary)
        defer { InProgressFiles.remove(temporary) }
        do {
            try Data(SubtitleWriter.webVTT(document.cues).utf8).write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ReelError(.io, "cannot write: \(error.localizedDescription)", subject: url.path)
        }
        try place(temporary, at: url)
    }

    /// Refuses a WebVTT destination that could not be put in place (a folder of that name, or a
    /// folder that cannot be written), before the movie beside it is made: the two appear together
    /// or not at all.
    /// - Throws: ``ReelError`` naming `url`.
    public static func checkDestination(_ url: URL) throws(ReelError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw ReelError(.invalidArgument, "is a folder; the WebVTT file beside the movie goes here", subject: url.path)
        }
        let folder = url.deletingLastPathComponent().path
        guard access(folder.isEmpty ? "." : folder, W_OK | X_OK) == 0 else {
            throw ReelError(.permissionDenied, "cannot be written: \(String(cString: strerror(errno)))", subject: url.path)
        }
    }

    /// The WebVTT file beside an output: its name with `.vtt` for its extension.
    /// - Parameter output: The movie.
    /// - Returns: `NAME.vtt` in the same folder.
    public static func webVTTURL(beside output: URL) -> URL {
        output.deletingPathExtension().appendingPathExtension("vtt")
    }

    static func hiddenName(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent).partial-\(UUID().uuidString.prefix(8)).\(url.pathExtension)")
    }

    static func place(_ temporary: URL, at url: URL) throws(ReelError) {
        if rename(temporary.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ReelError(.io, "cannot put the file in place: \(reason)", subject: url.path)
        }
    }
}

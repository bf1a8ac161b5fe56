import Foundation
import ReelComposition
import ReelCore

/// The spec keys only `reel compose` carries out (it steadies and reverses clips into
/// temporary copies, and ducks and normalises the built mix): a render that builds a spec
/// another way refuses them in one line rather than writing a file without them.
enum SpecRenderLimits {
    /// Throws for the first key `what` cannot carry out.
    /// - Parameters:
    ///   - spec: The spec read from `url`.
    ///   - url: The spec file, for the message.
    ///   - what: The render, as the message names it ("a chunked export").
    /// - Throws: ``ReelError`` `.unsupported` naming the spec path.
    static func check(_ spec: CompositionSpec, at url: URL, for what: String) throws(ReelError) {
        if let index = spec.clips.firstIndex(where: { $0.stabilize != nil }) {
            throw ReelError(.unsupported, "\(what) cannot steady clips yet: steady the file with reel stabilize first",
                            subject: "\(url.path): clips[\(index)].stabilize")
        }
        if let index = spec.clips.firstIndex(where: { $0.reverse == true }) {
            throw ReelError(.unsupported, "\(what) cannot reverse clips yet: reel compose can",
                            subject: "\(url.path): clips[\(index)].reverse")
        }
        if let index = spec.clips.firstIndex(where: { $0.boomerang == true }) {
            throw ReelError(.unsupported, "\(what) cannot play clips backwards yet: reel compose can",
                            subject: "\(url.path): clips[\(index)].boomerang")
        }
        if spec.audio?.music?.duck != nil {
            throw ReelError(.unsupported, "\(what) cannot duck the music yet: reel compose can",
                            subject: "\(url.path): audio.music.duck")
        }
        if spec.subtitles != nil {
            throw ReelError(.unsupported, "\(what) cannot burn or add subtitles yet: reel compose can",
                            subject: "\(url.path): subtitles")
        }
        if spec.audio?.loudness != nil {
            throw ReelError(.unsupported, "\(what) cannot normalise the loudness yet: reel compose can",
                            subject: "\(url.path): audio.loudness")
        }
    }
}

import Foundation
import ReelComposition

extension CompositionSpec {
    /// Every file a render of this spec reads, each labelled by its spec path for
    /// ``OutputGuard``: the spec itself, the clips, the music, the subtitles, image overlays
    /// and layers. Relative names are taken from the spec's folder.
    /// - Parameter specURL: Where the spec is.
    func inputs(specURL: URL) -> [(label: String, path: String)] {
        let folder = specURL.deletingLastPathComponent()
        func resolved(_ file: String) -> String { file.hasPrefix("/") ? file : folder.appendingPathComponent(file).path }
        var inputs = [("the spec", specURL.path)]
        inputs += clips.enumerated().map { ("clips[\($0.offset)].file", resolved($0.element.file)) }
        if let music = audio?.music { inputs.append(("audio.music.file", resolved(music.file))) }
        if let subtitles { inputs.append(("subtitles.file", resolved(subtitles.file))) }
        for (index, overlay) in (overlays ?? []).enumerated() {
            if let file = overlay.file { inputs.append(("overlays[\(index)].file", resolved(file))) }
        }
        for (index, layer) in (layers ?? []).enumerated() { inputs.append(("layers[\(index)].file", resolved(layer.file))) }
        return inputs
    }
}

import Foundation
import ReelAsset
public import ReelCore

extension CompositionSpec {
    /// The spec with every `boomerang` clip written out as two: its range forwards (without
    /// its transition), then the same range backwards (`reverse`, with the clip's transition
    /// into the next). A freeze stays on the first half; the clip's sound keeps its volume on
    /// both halves, its fade in on the first and its fade out on the second. ``build(relativeTo:)``
    /// builds from this form, and `reel compose` reverses the second half as it reverses any clip.
    /// - Returns: The spec itself when no clip is a boomerang.
    public func expandingBoomerangs() -> CompositionSpec {
        guard clips.contains(where: { $0.boomerang == true }) else { return self }
        var expanded = self
        expanded.clips = clips.flatMap { clip -> [Clip] in
            guard clip.boomerang == true else { return [clip] }
            var forward = clip, backward = clip
            forward.boomerang = nil
            forward.transition = nil
            forward.audio?.fadeOut = nil
            backward.boomerang = nil
            backward.freeze = nil
            backward.audio?.fadeIn = nil
            backward.reverse = !(clip.reverse ?? false)
            return [forward, backward]
        }
        return expanded
    }

    /// For each clip of ``expandingBoomerangs()``, the index of the clip of this spec it
    /// comes from.
    /// - Returns: One index per expanded clip.
    public func boomerangOrigins() -> [Int] {
        clips.enumerated().flatMap { index, clip in clip.boomerang == true ? [index, index] : [index] }
    }

    /// `error` from building the expanded spec, its `clips[k]` named as this spec's clip.
    /// - Parameter error: An error of the expanded spec's build.
    /// - Returns: The error with every `clips[k]` in its subject and message renumbered.
    public func renamingExpandedClips(_ error: ReelError) -> ReelError {
        let origins = boomerangOrigins()
        func renamed(_ text: String) -> String {
            var result = "", rest = Substring(text)
            while let open = rest.range(of: "clips[") {
                result += rest[..<open.upperBound]
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]), index >= 0, index < origins.count
                else { continue }
                result += String(origins[index])
                rest = rest[close...]
            }
            return result + rest
        }
        var copy = error
        copy.message = renamed(error.message)
        if let subject = error.subject { copy.subject = renamed(subject) }
        return copy
    }

    /// A boomerang plays a range forwards and back: a still picture has none, and is refused
    /// by its own key (not as the reversed half's `reverse`).
    func refuseStillBoomerangs(resolve: (String) -> URL) throws(ReelError) {
        for (index, clip) in clips.enumerated() where clip.boomerang == true {
            let name = "clips[\(index)]"
            let asset = try Self.openAsset(clip.file, fps: clip.fps, at: name, resolve: resolve)
            if let video = asset.tracks(withMediaType: .video).first, Self.stillCodecs.contains(video.codec), video.frameCount <= 1,
               asset.tracks(withMediaType: .audio).isEmpty {
                throw ReelError(.invalidArgument, "a still picture has no boomerang; it shows for its duration (use kenBurns to move it)",
                                subject: "\(name).boomerang")
            }
        }
    }
}

import Foundation
public import ReelCore

extension CompositionSpec {
    /// What the passthrough preset cannot honour in this spec, as an error naming the key,
    /// or nil. Passthrough copies the clips' pictures as they are and lays them end to end,
    /// so it refuses anything that changes pictures or their timing: `renderSize`,
    /// `frameRate`, `overlays`, a clip's `speed`, `stabilize`, `transition`, `duration` (a still), `fit`,
    /// `kenBurns`, `freeze`
    /// and `reverse`. Everything else
    /// it honours: ranges start and end anywhere (the copy starts at the keyframe before and
    /// edit lists hide the rest), and the sound (clip volume, music) is mixed and encoded
    /// as with any preset.
    /// - Parameter subject: what the error's subject starts with (the spec file's path).
    /// - Returns: Why a passthrough export cannot make this spec (naming the key), or nil when it can.
    public func passthroughRefusal(subject: String) -> ReelError? {
        func refusal(_ key: String, _ why: String) -> ReelError {
            ReelError(.unsupported, "\(why); the passthrough preset copies the pictures as they are, so use a sized preset",
                      subject: "\(subject): \(key)")
        }
        if renderSize != nil { return refusal("renderSize", "sets a frame size") }
        if frameRate != nil { return refusal("frameRate", "sets a frame rate") }
        if let overlays, !overlays.isEmpty { return refusal("overlays", "draws over the pictures") }
        if let layers, !layers.isEmpty { return refusal("layers", "draws clips over the pictures") }
        if subtitles?.burn == true { return refusal("subtitles.burn", "burns subtitles into the pictures") }
        for (index, clip) in clips.enumerated() {
            if let speed = clip.speed, speed != 1 { return refusal("clips[\(index)].speed", "changes the clip's speed") }
            if clip.stabilize != nil { return refusal("clips[\(index)].stabilize", "steadies the clip's pictures") }
            if clip.duration != nil { return refusal("clips[\(index)].duration", "shows a still picture") }
            if let fit = clip.fit, fit != "contain" { return refusal("clips[\(index)].fit", "fits the picture to a frame") }
            if clip.kenBurns != nil { return refusal("clips[\(index)].kenBurns", "moves over the picture") }
            if clip.freeze != nil { return refusal("clips[\(index)].freeze", "holds a picture") }
            if clip.reverse == true { return refusal("clips[\(index)].reverse", "plays the clip backwards") }
            let counter = clip.file.range(of: "%(0[1-9])?d", options: .regularExpression) != nil
            if clip.fps != nil || counter { return refusal("clips[\(index)].file", "reads an image sequence, whose pictures are drawn") }
            if clip.boomerang == true { return refusal("clips[\(index)].boomerang", "plays the clip forwards and backwards") }
            if let transition = clip.transition, transition.type != "none", index < clips.count - 1 {
                return refusal("clips[\(index)].transition", "mixes two clips' pictures")
            }
        }
        return nil
    }
}

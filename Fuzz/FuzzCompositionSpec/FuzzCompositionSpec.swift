// libFuzzer target: composition-spec JSON through CompositionSpec's parser and, when it
// parses, through build(), with every file it names pointed at one small real clip (or
// picture), so that ranges, speeds, transitions, overlays and animations all get checked.
import Foundation
import ReelComposition
import ReelCore

/// REEL_FUZZ_MEDIA: a folder holding clip.mp4 and picture.png (scripts/fuzz.sh makes it).
let media = URL(fileURLWithPath: ProcessInfo.processInfo.environment["REEL_FUZZ_MEDIA"] ?? "/tmp/reel-fuzz-media")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompositionSpec(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    do throws(ReelError) {
        var spec = try CompositionSpec(data: data, name: "fuzz.json")
        for index in spec.clips.indices { spec.clips[index].file = "clip.mp4" }
        for index in (spec.overlays ?? []).indices where spec.overlays?[index].file != nil {
            spec.overlays?[index].file = "picture.png"
        }
        if spec.audio?.music != nil { spec.audio?.music?.file = "clip.mp4" }
        let built = try spec.build(relativeTo: media)
        // The timeline picture turns every begin and duration into pixels (1e19 once trapped there).
        _ = try TimelinePicture.render(built.composition, video: built.videoComposition, width: 320)
    } catch {
        // A refusal is the expected outcome for most inputs; a crash is what is sought.
    }
    return 0
}

// The seed app's CompositionViewController, ported call by call to Reel.
// Each step keeps the seed's names; where Reel differs (values instead of mutable
// objects, throwing calls), the comment says so.
//
//   swift run SeedComposition [CLIP_DIR] [OUT.mp4]

import Foundation
import ReelAsset
import ReelComposition
import ReelCore

enum TransitionType { case dissolve, push }

let arguments = CommandLine.arguments
let folder = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : "../shared/media/seed-clips")
let output = URL(fileURLWithPath: arguments.count > 2 ? arguments[2] : "composition.mp4")

do {
    // prepareResource(): the bundled clips.
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mp4") }.sorted()
    let videos = try names.map { try Asset(url: folder.appendingPathComponent($0)) }

    // buildCompositionVideoTracks(): two tracks, clips alternating, overlapping by the transition.
    let composition = MutableComposition()
    guard let trackA = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid),
          let trackB = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)
    else { exit(1) }
    let videoTracks = [trackA, trackB]
    var cursorTime = MediaTime.zero
    let transitionDuration = MediaTime(value: 2, timescale: 1)
    for (index, value) in videos.enumerated() {
        let currentTrack = videoTracks[index % 2]
        guard let assetTrack = value.tracks(withMediaType: .video).first else { continue }
        try currentTrack.insertTimeRange(MediaTimeRange(start: .zero, duration: value.duration), of: assetTrack, at: cursorTime)
        cursorTime = cursorTime + value.duration
        cursorTime = cursorTime - transitionDuration
    }

    // buildCompositionAudioTracks(): the seed appends audio back to back, which drifts 2 s
    // ahead of the picture at every transition. Ported as written; `ClipSequence` does it right.
    if let trackAudio = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid) {
        var audioCursor = MediaTime.zero
        for value in videos {
            guard let assetTrack = value.tracks(withMediaType: .audio).first else { continue }
            let range = MediaTimeRange(start: .zero, duration: min(value.duration, assetTrack.timeRange.end))
            try trackAudio.insertTimeRange(range, of: assetTrack, at: audioCursor)
            audioCursor = audioCursor + value.duration
        }
    }

    // buildVideoComposition(): AVMutableVideoComposition(propertiesOf:) — a value in Reel.
    var videoComposition = VideoComposition(propertiesOf: composition)

    // filterTransitionInstructions(of:) and setupTransition(for:fromLayer:toLayer:type:).
    var instructions = videoComposition.instructions
    for (index, instruct) in instructions.enumerated() where instruct.layerInstructions.count > 1 && index > 0 {
        let beforeTrackId = instructions[index - 1].layerInstructions[0].trackID
        let sameTrack = instruct.layerInstructions[0].trackID == beforeTrackId
        var fromLayer = instruct.layerInstructions[sameTrack ? 0 : 1]
        var toLayer = instruct.layerInstructions[sameTrack ? 1 : 0]
        let type: TransitionType = sameTrack ? .dissolve : .push
        let timeRange = instruct.timeRange
        let videoWidth = videoComposition.renderSize.width
        if type == .push {
            fromLayer.setTransformRamp(fromStart: .identity, toEnd: CGAffineTransform(translationX: -videoWidth, y: 0),
                                       timeRange: timeRange)
            toLayer.setTransformRamp(fromStart: CGAffineTransform(translationX: videoWidth, y: 0), toEnd: .identity,
                                     timeRange: timeRange)
        } else {
            fromLayer.setOpacityRamp(fromStartOpacity: 1.0, toEndOpacity: 0.0, timeRange: timeRange)
        }
        instructions[index].layerInstructions = [fromLayer, toLayer]  // values: assign back
    }
    videoComposition.instructions = instructions

    // buildOverLayer(): the 40x40 yellow sticker, opacity keyframed 0, 1, 1, 0 over 5 s from 3 s.
    let layer = OverlayLayer(content: .color(red: 1, green: 1, blue: 0), frame: Rect(x: 0, y: 0, width: 40, height: 40),
                             opacity: 0)
    layer.add(KeyframeAnimation(keyPath: .opacity, values: [0.0, 1.0, 1.0, 0.0], keyTimes: [0.0, 0.25, 0.75, 1],
                                beginTime: 3, duration: 5, isRemovedOnCompletion: false))
    // The seed's animateLayer (isGeometryFlipped = true) is Reel's root: top-left origin always.
    let animateLayer = OverlayLayer(frame: Rect(x: 0, y: 0, width: 1280, height: 720))
    animateLayer.addSublayer(layer)
    videoComposition.animationTool = animateLayer

    // export(): AVAssetExportSession with the 640x480 preset, as mp4.
    let session = ExportSession(composition: composition, preset: .preset640x480)
    session.outputURL = output
    session.outputFileType = .mp4
    session.videoComposition = videoComposition
    try session.exportSynchronously()
    print("exported \(output.path) (\(session.outputSize.width)x\(session.outputSize.height))")
} catch {
    FileHandle.standardError.write(Data("SeedComposition: \(error)\n".utf8))
    exit(2)
}

// Seed 002's review of its merged recording (AVPlayer + AVPlayerViewController), ported to
// Reel: the clips merged as its mergeVideos() does, then played without exporting, looped
// with a QueuePlayer and a PlayerLooper, pictures pulled in step with the clock as a view
// would draw them (Reel has no view controller: `reel play` is the window).
//
//   swift run SeedReview [CLIP_DIR] [SECONDS] [LOOPS]

import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelPlayback

let arguments = CommandLine.arguments
let folder = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : "../shared/media/seed-clips")
let seconds = arguments.count > 2 ? min(max(Double(arguments[2]) ?? 5, 0), 3600) : 5
let loops = arguments.count > 3 ? min(max(Int(arguments[3]) ?? 2, 1), 1000) : 2

do {
    // mergeVideos(): each clip's video and sound back to back on one track each.
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mp4") }.sorted()
    let videoAssets = try names.prefix(3).map { try Asset(url: folder.appendingPathComponent($0)) }
    let composition = MutableComposition()
    guard let firstTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid),
          let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)
    else { exit(1) }
    var insertTime = MediaTime.zero
    for asset in videoAssets {
        guard let video = asset.tracks(withMediaType: .video).first else { continue }
        try firstTrack.insertTimeRange(MediaTimeRange(start: .zero, duration: video.timeRange.end), of: video, at: insertTime)
        if let audio = asset.tracks(withMediaType: .audio).first {
            try audioTrack.insertTimeRange(MediaTimeRange(start: .zero, duration: min(audio.timeRange.end, video.timeRange.end)),
                                           of: audio, at: insertTime)
        }
        insertTime = insertTime + video.timeRange.end
    }
    composition.naturalSize = firstTrack.naturalSize

    // reviewRecord(outputURL:): AVPlayer(url:) and play(); here the composition itself,
    // looped `loops` times (AVQueuePlayer + AVPlayerLooper).
    let template = PlayerItem(composition: composition)
    let player = QueuePlayer(items: [])
    let looper = PlayerLooper(player: player, templateItem: template)
    var outputs: [ObjectIdentifier: PlayerItemVideoOutput] = [:]
    for item in looper.loopingPlayerItems {
        let output = PlayerItemVideoOutput(pixelBufferAttributes: .init(pixelFormat: .yuv420p, width: 320, height: 180))
        item.add(output)
        outputs[ObjectIdentifier(item)] = output
    }
    player.play()
    print("reviewing \(videoAssets.count) clips, \(String(format: "%.3f", template.duration.seconds)) s, "
          + (player.outputsSound ? "with sound" : "silently (no sound server)"))
    let start = Date()
    var frames = 0
    var lastPrint = -1
    while Date().timeIntervalSince(start) < seconds, looper.loopCount < loops {
        if let item = player.currentItem, let output = outputs[ObjectIdentifier(item)] {
            let time = output.itemTime(forHostTime: player.clock.hostTime)
            if output.hasNewPixelBuffer(forItemTime: time), output.copyPixelBuffer(forItemTime: time) != nil { frames += 1 }
            if let error = item.error { throw error }
        }
        let whole = Int(Date().timeIntervalSince(start))
        if whole != lastPrint {
            lastPrint = whole
            print(String(format: "  %6.3f s, pass %d, %d pictures drawn", player.currentTime().seconds, looper.loopCount + 1, frames))
        }
        usleep(5000)
    }
    looper.disableLooping()
    player.pause()
    print("reviewed: \(frames) pictures, \(looper.loopCount) passes ended")
} catch {
    FileHandle.standardError.write(Data("SeedReview: \(error)\n".utf8))
    exit(2)
}

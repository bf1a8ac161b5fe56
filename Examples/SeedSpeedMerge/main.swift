// Seed 003 (custom camera parameters, speed, merge): its speed change of a recording and
// its merge of clips of mixed orientation into one 720x1280 video, ported call by call to
// Reel. The seed's names are kept; a comment marks each line that had to change and why.
//
//   swift run SeedSpeedMerge speed IN.mov OUT.mov fast|slow
//   swift run SeedSpeedMerge merge OUT.mov IN1 IN2 …
//
// Prints the output's path; exits nonzero if any step fails.

import Dispatch
import Foundation
import ReelAsset
import ReelComposition
import ReelCore

let kMoviePath = "kMoviePath"
let kMovieSpeed = "kMovieSpeed"
// swift-format-ignore: AlwaysUseLowerCamelCase
// The seed's names, kept so the port reads line by line like it.
let kMovieSpeed_Fast = "fast"
// swift-format-ignore: AlwaysUseLowerCamelCase
let kMovieSpeed_Slow = "slow"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SeedSpeedMerge: \(message)\n".utf8))
    exit(1)
}

/// `CMTimeMake(value * scale, timescale)`: the seed's float product, truncated as C does,
/// with a bound (Reel converts no unchecked double to an integer).
func scaledValue(_ value: Int64, by scale: Double) -> Int64 {
    let product = (Double(value) * scale).rounded(.towardZero)
    return Int64(exactly: product) ?? (product > 0 ? Int64.max : 0)
}

final class Recorder: @unchecked Sendable {
    /// Speed change: `setSpeedWithVideo:completed:`.
    func setSpeed(withVideo video: [String: String], output exportPath: String, completed: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async {
            print("video set thread: \(Thread.current)")
            // AVURLAsset(URL:options:) → Asset(url:), which reads the file now and throws.
            guard let path = video[kMoviePath], let videoAsset = try? Asset(url: URL(fileURLWithPath: path)) else {
                fail("cannot read \(video[kMoviePath] ?? "the video")")
            }
            let mixComposition = MutableComposition()
            // `?` where the seed's Objective-C messages nil silently.
            let compositionVideoTrack = mixComposition.addMutableTrack(withMediaType: .video,
                                                                       preferredTrackID: kCMPersistentTrackID_Invalid)
            let compositionAudioTrack = mixComposition.addMutableTrack(withMediaType: .audio,
                                                                       preferredTrackID: kCMPersistentTrackID_Invalid)
            // The video's orientation.
            var videoTransform = videoAsset.tracks(withMediaType: .video).last?.preferredTransform ?? .identity
            if videoTransform.a == 0 && videoTransform.b == 1.0 && videoTransform.c == -1.0 && videoTransform.d == 0 {
                print("portrait")
                videoTransform = ReelCore.AffineTransform(rotationAngle: Double.pi / 2)
            } else if videoTransform.a == 0 && videoTransform.b == -1.0 && videoTransform.c == 1.0 && videoTransform.d == 0 {
                print("upside-down portrait")
                videoTransform = ReelCore.AffineTransform(rotationAngle: -Double.pi / 2)
            } else if videoTransform.a == 1.0 && videoTransform.b == 0 && videoTransform.c == 0 && videoTransform.d == 1.0 {
                print("landscape, home button right")
                videoTransform = ReelCore.AffineTransform(rotationAngle: 0)
            } else if videoTransform.a == -1.0 && videoTransform.b == 0 && videoTransform.c == 0 && videoTransform.d == -1.0 {
                print("landscape, home button left")
                videoTransform = ReelCore.AffineTransform(rotationAngle: Double.pi)
            }
            // The track takes the video's orientation.
            compositionVideoTrack?.preferredTransform = videoTransform
            compositionVideoTrack?.naturalTimeScale = 600
            let whole = MediaTimeRange(start: .zero, duration: MediaTime(value: videoAsset.duration.value,
                                                                         timescale: videoAsset.duration.timescale))
            // insertTimeRange:ofTrack:atTime:error: with error:nil → `try?` (a missing track is a nil
            // message in the seed).
            if let track = videoAsset.tracks(withMediaType: .video).first {
                try? compositionVideoTrack?.insertTimeRange(whole, of: track, at: .zero)
            }
            if let track = videoAsset.tracks(withMediaType: .audio).first {
                try? compositionAudioTrack?.insertTimeRange(whole, of: track, at: .zero)
            }
            // The speed.
            var scale = 1.0
            if video[kMovieSpeed] == kMovieSpeed_Fast {
                scale = 0.2  // fast, x5
            } else if video[kMovieSpeed] == kMovieSpeed_Slow {
                scale = 4.0  // slow, x4
            }
            let target = MediaTime(value: scaledValue(videoAsset.duration.value, by: scale), timescale: videoAsset.duration.timescale)
            compositionVideoTrack?.scaleTimeRange(whole, toDuration: target)
            compositionAudioTrack?.scaleTimeRange(whole, toDuration: target)
            // The export. The seed's preset name is cut short in its text ("AVAssetExportPreset…");
            // the highest quality is the one its merge uses.
            let assetExport = ExportSession(composition: mixComposition, preset: .highestQuality)
            let exportUrl = URL(fileURLWithPath: exportPath)
            assetExport.outputFileType = .mov
            assetExport.outputURL = exportUrl
            assetExport.shouldOptimizeForNetworkUse = true
            assetExport.exportAsynchronously {
                DispatchQueue.main.async {
                    guard assetExport.status == .completed else {
                        fail("the export failed: \(assetExport.error.map { "\($0)" } ?? "\(assetExport.status)")")
                    }
                    for warning in assetExport.warnings { FileHandle.standardError.write(Data("SeedSpeedMerge: \(warning)\n".utf8)) }
                    // ALAssetsLibrary writeVideoAtPathToSavedPhotosAlbum: no photo album; the file stays.
                    print("exported: \(exportPath)")
                    completed()
                }
            }
        }
    }

    /// Merge: `mergeVideosWithPaths:completed:`.
    func mergeVideos(withPaths paths: [String], output outPath: String, completed: @escaping @Sendable (String) -> Void) {
        if paths.isEmpty { return }
        DispatchQueue.main.async {
            let mixComposition = MutableComposition()
            let audioTrack = mixComposition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)
            let videoTrack = mixComposition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)
            videoTrack?.preferredTransform = ReelCore.AffineTransform.identity.rotated(by: Double.pi / 2)
            var totalDuration = MediaTime.zero
            var instructions: [VideoCompositionLayerInstruction] = []
            for i in 0..<paths.count {
                // AVURLAsset assetWithURL: → Asset(url:), which throws for a file it cannot read.
                guard let asset = try? Asset(url: URL(fileURLWithPath: paths[i])) else { fail("cannot read \(paths[i])") }
                let assetAudioTrack = asset.tracks(withMediaType: .audio).first
                guard let assetVideoTrack = asset.tracks(withMediaType: .video).first, let videoTrack else {
                    fail("\(paths[i]) has no video")
                }
                // duration.value / duration.timescale, whole seconds (a timescale of 0 would trap in Swift).
                print("\(asset.duration.timescale > 0 ? asset.duration.value / Int64(asset.duration.timescale) : 0)")
                // A clip without sound: the seed passes a nil track and logs the error; so does the port.
                var erroraudio: ReelError?
                if let assetAudioTrack {
                    do throws(ReelError) { try audioTrack?.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration),
                                                         of: assetAudioTrack, at: totalDuration) } catch { erroraudio = error }
                } else {
                    erroraudio = ReelError(.invalidArgument, "no audio track", subject: paths[i])
                }
                print("erroraudio:\(erroraudio.map { "\($0)" } ?? "nil")--\(erroraudio == nil)")
                var errorVideo: ReelError?
                do throws(ReelError) { try videoTrack.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration),
                                                    of: assetVideoTrack, at: totalDuration) } catch { errorVideo = error }
                print("errorVideo:\(errorVideo.map { "\($0)" } ?? "nil")--\(errorVideo == nil)")
                var instruction = VideoCompositionLayerInstruction(assetTrack: videoTrack)
                var isAssetPortrait = false
                // Turn each clip as it was shot.
                let videoTransform = assetVideoTrack.preferredTransform
                if videoTransform.a == 0 && videoTransform.b == 1.0 && videoTransform.c == -1.0 && videoTransform.d == 0 {
                    print("portrait")
                    isAssetPortrait = true
                } else if videoTransform.a == 0 && videoTransform.b == -1.0 && videoTransform.c == 1.0 && videoTransform.d == 0 {
                    print("upside-down portrait")
                    isAssetPortrait = true
                } else if videoTransform.a == 1.0 && videoTransform.b == 0 && videoTransform.c == 0 && videoTransform.d == 1.0 {
                    print("landscape, home button right")
                } else if videoTransform.a == -1.0 && videoTransform.b == 0 && videoTransform.c == 0 && videoTransform.d == -1.0 {
                    print("landscape, home button left")
                }
                var assetScaleToFitRatio = 720.0 / assetVideoTrack.naturalSize.width
                if isAssetPortrait {
                    assetScaleToFitRatio = 720.0 / assetVideoTrack.naturalSize.height
                    let assetSacleFactor = ReelCore.AffineTransform(scaleX: assetScaleToFitRatio, y: assetScaleToFitRatio)
                    instruction.setTransform(assetVideoTrack.preferredTransform.concatenating(assetSacleFactor), at: totalDuration)
                } else {
                    // Portrait render 720x1280; a landscape clip 720x405, centred: (1280 - 405) / 2 = 437.5.
                    let assetSacleFactor = ReelCore.AffineTransform(scaleX: assetScaleToFitRatio, y: assetScaleToFitRatio)
                    instruction.setTransform(assetVideoTrack.preferredTransform.concatenating(assetSacleFactor)
                        .concatenating(ReelCore.AffineTransform(translationX: 0, y: 437.5)), at: totalDuration)
                }
                // The newest on top: the array's order is the drawing order.
                instructions.insert(instruction, at: 0)
                totalDuration = totalDuration + asset.duration
                // Clear the clip's size when it ends, or a smaller next clip shows it beneath.
                // The seed changes `instruction` after inserting it (an object); a layer
                // instruction is a value in Reel, so the one in the array is changed.
                instructions[0].setCropRectangle(.zero, at: totalDuration)
            }
            // videoCompositionInstruction then timeRange: the initialiser takes the range.
            var mixInstruction = VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: totalDuration))
            mixInstruction.layerInstructions = instructions
            var mixVideoComposition = VideoComposition()
            mixVideoComposition.instructions = [mixInstruction]
            mixVideoComposition.frameDuration = MediaTime(value: 1, timescale: 25)
            mixVideoComposition.renderSize = Size(width: 720.0, height: 1280.0)
            let mergeFileURL = URL(fileURLWithPath: outPath)
            let exporter = ExportSession(composition: mixComposition, preset: .highestQuality)
            exporter.outputURL = mergeFileURL
            exporter.outputFileType = .mov
            exporter.videoComposition = mixVideoComposition
            exporter.shouldOptimizeForNetworkUse = true
            exporter.exportAsynchronously {
                DispatchQueue.main.async {
                    guard exporter.status == .completed else {
                        fail("the export failed: \(exporter.error.map { "\($0)" } ?? "\(exporter.status)")")
                    }
                    for warning in exporter.warnings { FileHandle.standardError.write(Data("SeedSpeedMerge: \(warning)\n".utf8)) }
                    completed(outPath)
                }
            }
        }
    }
}

let arguments = CommandLine.arguments
let recorder = Recorder()
if arguments.count >= 5, arguments[1] == "speed", [kMovieSpeed_Fast, kMovieSpeed_Slow].contains(arguments[4]) {
    recorder.setSpeed(withVideo: [kMoviePath: arguments[2], kMovieSpeed: arguments[4]], output: arguments[3]) { exit(0) }
} else if arguments.count >= 4, arguments[1] == "merge" {
    recorder.mergeVideos(withPaths: Array(arguments[3...]), output: arguments[2]) { path in
        print("merged: \(path)")
        exit(0)
    }
} else {
    fail("usage: SeedSpeedMerge speed IN OUT fast|slow | merge OUT IN…")
}
// The app's main run loop.
dispatchMain()

// Seed 002 (short-video recording: hold to record a segment, release to pause, merge the
// segments and export), ported call by call to Reel. The seed's names are kept; a comment
// marks each line that had to change and why. There are no buttons on Linux: each press
// of the record button is a hold of HOLD seconds, PRESSES times.
//
//   swift run SeedRecording OUTDIR [PRESSES] [HOLD] [--keep-segments]
//
// Prints the merged file's path; exits nonzero if any step fails.

import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelComposition
import ReelCore

/// What the command line says (the seed's app has a screen instead).
struct Options {
    let arguments = CommandLine.arguments.filter { !$0.hasPrefix("--") }
    // NSSearchPathForDirectoriesInDomains(.documentDirectory, …): the folder given instead.
    var documentsDirectory: String { arguments.count > 1 ? arguments[1] : FileManager.default.currentDirectoryPath }
    var presses: Int { arguments.count > 2 ? max(1, min(Int(arguments[2]) ?? 3, 15)) : 3 }
    var hold: Double { arguments.count > 3 ? max(0.2, min(Double(arguments[3]) ?? 1, 15)) : 1 }
    var keepSegments: Bool { CommandLine.arguments.contains("--keep-segments") }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SeedRecording: \(message)\n".utf8))
    exit(1)
}

final class ViewController: @unchecked Sendable {
    let captureSession = CaptureSession()
    let videoDevice = CaptureDevice.default(for: .video)
    let audioDevice = CaptureDevice.default(for: .audio)
    let fileOutput = MovieFileOutput()
    var videoAssets = [Asset]()
    var assetURLs = [String]()
    var appendix: Int32 = 1
    let totalSeconds: Float64 = 15.00
    var framesPerSecond: Int32 = 30
    var remainingTime: TimeInterval = 15.0
    var stopRecording: Bool = false
    // The delegate's callbacks come on Reel's queue; the port waits for them here.
    let segmentFinished = DispatchSemaphore(value: 0)
    let exportFinished = DispatchSemaphore(value: 0)
    var mergedURL: URL?
    let documentsDirectory = Options().documentsDirectory
    let keepSegments = Options().keepSegments

    func viewDidLoad() {
        // `try!` → `do/catch`: a device that cannot be opened is reported, not a crash.
        guard let videoDevice, let audioDevice else { fail("no camera or microphone") }
        do {
            let videoInput = try CaptureDeviceInput(device: videoDevice)
            self.captureSession.addInput(videoInput)
            let audioInput = try CaptureDeviceInput(device: audioDevice)
            self.captureSession.addInput(audioInput)
        } catch {
            fail("\(error)")
        }
        let maxDuration = MediaTime(seconds: totalSeconds, preferredTimescale: framesPerSecond)
        self.fileOutput.maxRecordedDuration = maxDuration
        self.captureSession.addOutput(self.fileOutput)
        // AVCaptureVideoPreviewLayer(session:): there is no view; PreviewGeometry is its geometry.
        self.captureSession.startRunning()
    }

    func onTouchDownRecordButton() {
        if !stopRecording {
            let outputFilePath = "\(documentsDirectory)/output-\(appendix).mov"
            appendix += 1
            let outputURL = URL(fileURLWithPath: outputFilePath)
            let fileManager = FileManager.default
            if fileManager.fileExists(atPath: outputFilePath) {
                do {
                    try fileManager.removeItem(atPath: outputFilePath)
                } catch _ {
                }
            }
            print("recording: \(outputFilePath)")
            // startRecording(to:recordingDelegate:): the delegate's two methods are closures,
            // and the file type is named (Reel picks mp4 unless told; the seed's files are .mov).
            do {
                try fileOutput.startRecording(to: outputURL, fileType: .mov, handlers: MovieFileOutput.RecordingHandlers(
                    didStart: { url in self.fileOutput(didStartRecordingTo: url) },
                    didFinish: { url, error in self.fileOutput(didFinishRecordingTo: url, error: error) }))
            } catch {
                fail("\(error)")
            }
        }
    }

    func onTouchUpRecordButton() {
        if !stopRecording {
            fileOutput.stopRecording()
        }
    }

    func fileOutput(didStartRecordingTo fileURL: URL) {
        // startProgressBarTimer() and startTimer(): the progress bar has no screen here.
    }

    func fileOutput(didFinishRecordingTo outputFileURL: URL, error: ReelError?) {
        if let error { fail("recording \(outputFileURL.path): \(error)") }
        // AVURLAsset(url:options:) throws in Reel when the file cannot be read.
        guard let asset = try? Asset(url: outputFileURL) else { fail("cannot read \(outputFileURL.path)") }
        var duration: TimeInterval = 0.0
        duration = asset.duration.seconds
        print("segment: \(outputFileURL.lastPathComponent) \(duration) s")
        videoAssets.append(asset)
        assetURLs.append(outputFileURL.path)
        remainingTime = remainingTime - duration
        segmentFinished.signal()
    }

    func onClickStopButton() {
        mergeVideos()
    }

    func mergeVideos() {
        let duration = totalSeconds

        let composition = MutableComposition()
        // Merge the video and audio tracks.
        let firstTrack = composition.addMutableTrack(
            withMediaType: .video, preferredTrackID: CMPersistentTrackID())
        let audioTrack = composition.addMutableTrack(
            withMediaType: .audio, preferredTrackID: CMPersistentTrackID())

        var insertTime: MediaTime = MediaTime.zero
        for asset in videoAssets {
            print("merging: \(asset.url.lastPathComponent)")
            do {
                // `asset.tracks(withMediaType:)[0]` → `.first!`-free: a segment without the
                // track is reported (the seed's catch ignores it; so does the port, after saying so).
                guard let video = asset.tracks(withMediaType: .video).first else { throw ReelError(.invalidData, "no video") }
                try firstTrack?.insertTimeRange(
                    MediaTimeRange(start: MediaTime.zero, duration: asset.duration),
                    of: video,
                    at: insertTime)
            } catch _ {
                FileHandle.standardError.write(Data("SeedRecording: \(asset.url.path) has no usable video\n".utf8))
            }
            do {
                guard let audio = asset.tracks(withMediaType: .audio).first else { throw ReelError(.invalidData, "no audio") }
                try audioTrack?.insertTimeRange(
                    MediaTimeRange(start: MediaTime.zero, duration: asset.duration),
                    of: audio,
                    at: insertTime)
            } catch _ {
                FileHandle.standardError.write(Data("SeedRecording: \(asset.url.path) has no usable audio\n".utf8))
            }

            insertTime = insertTime + asset.duration
        }
        // Turn the picture, so that it is not shown 90° off.
        firstTrack?.preferredTransform = ReelCore.AffineTransform(rotationAngle: Double.pi / 2)

        // arc4random() → Int.random: the seed's random name.
        let destinationPath = documentsDirectory + "/mergeVideo-\(Int.random(in: 0..<1000)).mov"
        print("merged: \(destinationPath)")
        let videoPath = URL(fileURLWithPath: destinationPath as String)
        // AVAssetExportSession(asset:presetName:)! → a non-optional initialiser.
        let exporter = ExportSession(composition: composition, preset: .highestQuality)
        exporter.outputURL = videoPath
        exporter.outputFileType = .mov
        exporter.shouldOptimizeForNetworkUse = true
        exporter.timeRange = MediaTimeRange(
            start: MediaTime.zero,
            duration: MediaTime(seconds: Float64(duration), preferredTimescale: framesPerSecond))
        exporter.exportAsynchronously(completionHandler: {
            // Save the merged video to the album.
            self.exportDidFinish(session: exporter)
        })
    }

    func exportDidFinish(session: ExportSession) {
        guard session.status == .completed, let outputURL = session.outputURL else {
            fail("the export failed: \(session.error.map { "\($0)" } ?? "\(session.status)")")
        }
        for warning in session.warnings { FileHandle.standardError.write(Data("SeedRecording: \(warning)\n".utf8)) }
        print("merge done: \(outputURL.path)")
        // PHPhotoLibrary.shared().performChanges(…): there is no photo library; the file stays.
        mergedURL = outputURL
        reset()
        exportFinished.signal()
    }

    func reset() {
        // Delete the segments (unless asked to keep them for a check that compares with them).
        if !keepSegments {
            for assetURL in assetURLs where FileManager.default.fileExists(atPath: assetURL) {
                do {
                    try FileManager.default.removeItem(atPath: assetURL)
                } catch _ {
                }
                print("deleted segment: \(assetURL)")
            }
        }
        assetURLs = []
        videoAssets = []
        appendix = 1
        stopRecording = false
        remainingTime = totalSeconds
    }
}

let options = Options()
let controller = ViewController()
controller.viewDidLoad()
// The user's fingers: press, hold, release, a short pause, PRESSES times.
usleep(300_000)
for _ in 0..<options.presses {
    controller.onTouchDownRecordButton()
    usleep(UInt32(options.hold * 1_000_000))
    controller.onTouchUpRecordButton()
    controller.segmentFinished.wait()
    usleep(200_000)
}
controller.onClickStopButton()
controller.exportFinished.wait()
controller.captureSession.stopRunning()

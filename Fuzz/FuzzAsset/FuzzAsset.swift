// libFuzzer target: bytes as a media file. Asset loads it (FFmpeg's probing and
// demuxing, Reel's checks), and each track's first samples are decoded through
// AssetReader. Built and run by `make fuzz` (scripts/fuzz.sh).
import Foundation
import ReelAsset
import ReelCore

let scratch = URL(fileURLWithPath: NSTemporaryDirectory())
    .appendingPathComponent("reel-fuzz-asset-\(ProcessInfo.processInfo.processIdentifier).mp4")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAsset(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    guard FileManager.default.createFile(atPath: scratch.path, contents: Data(bytes: bytes, count: count)) else { return 0 }
    do throws(ReelError) {
        let asset = try Asset(url: scratch)
        let reader = try AssetReader(asset: asset)
        var outputs: [AssetReaderTrackOutput] = []
        if let video = asset.tracks(withMediaType: .video).first {
            outputs.append(AssetReaderTrackOutput(track: video, videoSettings: VideoOutputSettings(pixelFormat: .rgba)))
        }
        if let audio = asset.tracks(withMediaType: .audio).first {
            outputs.append(AssetReaderTrackOutput(
                track: audio, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar, sampleRate: 48000, channelCount: 2)))
        }
        for output in outputs { try reader.add(output) }
        try reader.startReading()
        for output in outputs {
            for _ in 0..<4 {
                guard try output.copyNextSampleBuffer() != nil else { break }
            }
        }
    } catch {
        // A refusal is the expected outcome for most inputs; a crash is what is sought.
    }
    return 0
}

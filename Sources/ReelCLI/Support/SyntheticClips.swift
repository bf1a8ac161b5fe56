import Foundation
import ReelAsset
import ReelCore
import ReelFilters

/// Clips Reel makes itself, so that the demo runs on a fresh clone: colour bars in a
/// different look each, a white square that moves across, a tone, and a flash.
enum SyntheticClips {
    static func make(count: Int, seconds: Int, in directory: URL) throws(ReelError) -> [URL] {
        let looks = ["PhotoEffectChrome", "PhotoEffectInstant", "PhotoEffectProcess", "PhotoEffectTransfer", "PhotoEffectFade"]
        var urls: [URL] = []
        for index in 0..<count {
            let url = directory.appendingPathComponent(String(format: "clip-%02d.mp4", index + 1))
            let writer = try AssetWriter(outputURL: url, fileType: .mp4)
            let video = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
                width: 1280, height: 720, preset: "ultrafast", expectedFrameRate: 25))
            let audio = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings())
            try writer.add(video)
            try writer.add(audio)
            try writer.startWriting()
            writer.startSession(atSourceTime: .zero)
            let base = try PixelScaler.converted(try FilterSheet.referenceFrame(width: 1280, height: 720), to: .yuv420p)
            let look = try FilterChain([try Filter(name: looks[index % looks.count])]).apply(base)
            let frames = seconds * 25
            for frame in 0..<frames {
                let picture = try PixelBuffer(width: 1280, height: 720, pixelFormat: .yuv420p)
                try picture.copyPixels(from: look)
                let x = Double(frame) / Double(frames) * 1160
                let square = frame % 25 == 0 ? (235, 128, 128) : (200, 100, 150)
                picture.withMutablePlane(0) { base, stride in
                    for y in 300..<420 { (base + y * stride + Int(x)).initializeMemory(as: UInt8.self, repeating: UInt8(square.0), count: 120) }
                }
                try video.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(frame), timescale: 25),
                                              duration: MediaTime(value: 1, timescale: 25)))
            }
            let samples = seconds * 48000
            let tone = (0..<samples).map { Float(0.3 * sin(2 * Double.pi * Double(220 * (index + 1)) * Double($0) / 48000)) }
            try audio.append(SampleBuffer(audioBuffer: try AudioBuffer.float(channels: [tone, tone], sampleRate: 48000),
                                          presentationTime: .zero))
            try writer.finishSynchronously()
            urls.append(url)
        }
        return urls
    }
}

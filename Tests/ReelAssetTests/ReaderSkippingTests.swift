import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// A reader told which pictures will be looked at (``AssetReaderTrackOutput/picturesWanted``,
/// as an export's fast-forward tells it) hands out exactly the pictures on screen at those
/// times, with the same pixels as a reader that decodes and hands out every picture, though
/// it leaves the others unconverted and the non-reference ones undecoded.
@Suite struct ReaderSkippingTests {
    /// 100 frames of H.264 with x264's B-pyramid (non-reference B-frames between referenced ones).
    private func clip() throws -> URL {
        let directory = try Paths.temporaryDirectory("reel-skipping")
        let url = directory.appendingPathComponent("pyramid.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25:duration=4",
                                  "-c:v", "libx264", "-preset", "medium", "-bf", "3", "-pix_fmt", "yuv420p", url.path])
        return url
    }

    private func read(_ url: URL, wanted: (@Sendable (MediaTimeRange) -> Bool)?) throws -> [(MediaTime, [UInt8])] {
        let asset = try Asset(url: url)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p))
        output.picturesWanted = wanted
        try reader.add(output)
        try reader.startReading()
        var frames: [(MediaTime, [UInt8])] = []
        while let sample = try output.copyNextSampleBuffer() {
            let picture = try #require(sample.pixelBuffer)
            var bytes: [UInt8] = []
            for plane in 0..<picture.planes.count {
                let layout = picture.planes[plane]
                picture.withUnsafeBytes(ofPlane: plane) { raw in
                    for row in 0..<layout.height {
                        bytes += raw[(row * layout.bytesPerRow)..<(row * layout.bytesPerRow + layout.bytesPerRowOfPixels)]
                    }
                }
            }
            frames.append((sample.presentationTime, bytes))
        }
        return frames
    }

    @Test func aFastForwardGetsTheSamePicturesAndOnlyThose() throws {
        let url = try clip()
        let all = try read(url, wanted: nil)
        #expect(all.count == 100)
        // Five times as fast at 25 fps: the picture on screen at 0.01 + k × 0.2 s.
        let looks = (0..<20).map { MediaTime(value: Int64(1 + 20 * $0), timescale: 100) }
        let some = try read(url, wanted: { interval in looks.contains { interval.start <= $0 && $0 < interval.end } })
        let expected = looks.compactMap { look in all.last { $0.0 <= look } }
        #expect(some.count == 20)
        #expect(some.map(\.0) == expected.map(\.0))
        #expect(some.map(\.1) == expected.map(\.1), "the pictures handed out differ from a full decode's")
    }
}

import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// Clips whose display matrix says to turn the picture, made by stream copy with the
/// ffmpeg CLI and checked with ffprobe first.
@Suite(.serialized) struct AssetRotationTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-rotation")
    }

    /// ffmpeg's `rotate=N` metadata, the rotation ffprobe then reports, and Reel's clockwise rotation.
    @Test(arguments: [(270, -90.0, 90, Orientation.right), (90, 90.0, 270, .left), (180, -180.0, 180, .down),
                      (0, 0.0, 0, .up)])
    func readsTheDisplayMatrix(rotate: Int, ffprobeRotation: Double, clockwise: Int, orientation: Orientation) throws {
        let clip = try TestClips.rotated(rotate, in: directory)
        let probe = try FFprobe.probe(clip)
        let stream = try #require(probe.streams(ofType: "video").first)
        #expect(stream.rotation == ffprobeRotation, "ffprobe says \(stream.rotation) for rotate=\(rotate)")
        let track = try #require(try Asset(url: clip).tracks(withMediaType: .video).first)
        #expect(track.rotation == clockwise)
        #expect(track.orientation == orientation)
        let expectedDisplay = clockwise % 180 == 0 ? Size(width: 320, height: 240) : Size(width: 240, height: 320)
        #expect(track.displaySize == expectedDisplay)
        // The transform moves the turned picture back to the origin, as AVFoundation's does.
        let box = Rect(origin: .zero, size: track.naturalSize).applying(track.preferredTransform)
        #expect(box.minX == 0 && box.minY == 0)
    }
}

import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

@Suite struct ImageGeneratorTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-images")
    }

    /// 50 indexed frames at 25 fps, written by Reel.
    private func indexedClip(transform: Orientation = .up) throws -> URL {
        let url = directory.appendingPathComponent("indexed-\(transform).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video,
                                     outputSettings: VideoSettings(width: 320, height: 240, quality: 10, preset: "veryfast"))
        input.transform = transform.transform(for: Size(width: 320, height: 240))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for index in 0..<50 {
            try input.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index),
                                          presentationTime: MediaTime(value: Int64(index), timescale: 25), duration: .invalid))
        }
        try writer.finishSynchronously()
        return url
    }

    @Test(arguments: [(0.0, 0), (1.0, 25), (1.039, 25), (1.04, 26), (1.96, 49)])
    func exactTimeGivesTheFrameOnScreen(seconds: Double, index: Int) throws {
        let generator = ImageGenerator(asset: try Asset(url: try indexedClip()))
        let (picture, actual) = try generator.image(at: MediaTime(seconds: seconds, preferredTimescale: 1000))
        #expect(TestPatterns.readIndex(picture) == index)
        #expect(actual == MediaTime(value: Int64(index), timescale: 25))
        #expect(picture.pixelFormat == .rgba && picture.width == 320)
    }

    @Test func toleranceAllowsAnEarlierFrame() throws {
        let generator = ImageGenerator(asset: try Asset(url: try indexedClip()))
        generator.requestedTimeToleranceBefore = MediaTime(value: 1, timescale: 1)
        let (picture, actual) = try generator.image(at: MediaTime(value: 3, timescale: 2))
        #expect(actual >= MediaTime(value: 1, timescale: 2) && actual <= MediaTime(value: 3, timescale: 2))
        #expect(TestPatterns.readIndex(picture) == Int(actual.seconds * 25 + 0.5))
    }

    @Test func turnsUprightAndFitsTheMaximumSize() throws {
        let generator = ImageGenerator(asset: try Asset(url: try indexedClip(transform: .right)))
        let (stored, _) = try generator.image(at: .zero)
        #expect(stored.width == 320 && stored.height == 240)
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = Size(width: 120, height: 120)
        let (upright, _) = try generator.image(at: .zero)
        #expect(upright.width == 90 && upright.height == 120)
        // The top-left block of the stored picture (bit 0, black for index 0) is now at the top right.
        let corner = try #require(upright.element(plane: 0, x: upright.width - 3, y: 3))
        #expect(corner[0] < 60)
    }

    @Test func timesBeyondTheEndFail() throws {
        let generator = ImageGenerator(asset: try Asset(url: try indexedClip()))
        #expect(throws: ReelError.self) { try generator.image(at: MediaTime(value: 5, timescale: 1)) }
        #expect(throws: ReelError.self) { try generator.image(at: MediaTime(value: -1, timescale: 1)) }
    }

    @Test func writesPNGAndJPEGThatFFprobeReads() throws {
        let generator = ImageGenerator(asset: try Asset(url: try indexedClip()))
        let (picture, _) = try generator.image(at: .zero)
        for (name, codec) in [("still.png", "png"), ("still.jpg", "mjpeg")] {
            let url = directory.appendingPathComponent(name)
            try ImageFile.write(picture, to: url)
            let probe = try FFprobe.probe(url)
            #expect(probe.streams.first?.codecName == codec)
            #expect(probe.streams.first?.width == 320 && probe.streams.first?.height == 240)
        }
        #expect(throws: ReelError.self) { try ImageFile.write(picture, to: directory.appendingPathComponent("x.gif")) }
    }

    @Test func jpegKeepsFullRangeColour() throws {
        let red = try PixelBuffer(width: 64, height: 64, pixelFormat: .rgba)
        red.fillRect(x: 0, y: 0, width: 64, height: 64, rgba: (255, 0, 0, 255))
        let url = directory.appendingPathComponent("red.jpg")
        try ImageFile.write(red, to: url, format: .jpeg(quality: 2))
        let back = try ImageGenerator(asset: try Asset(url: url)).image(at: .zero).image
        let pixel = try #require(back.element(plane: 0, x: 32, y: 32))
        #expect(pixel[0] >= 248 && pixel[1] <= 8 && pixel[2] <= 8, "\(pixel)")
    }

    @Test func contactSheetHasAGridOfLabelledFrames() throws {
        let sheet = try ContactSheet(columns: 3, rows: 2, thumbnailWidth: 160).render(try Asset(url: try indexedClip()))
        #expect(sheet.width == 8 + 3 * 168)
        #expect(sheet.height == 44 + 2 * (120 + 24 + 8) + 8)
        // The label strip under the first frame holds light text pixels on the dark background.
        var bright = 0
        for y in (44 + 120)..<(44 + 120 + 24) {
            for x in 8..<(8 + 160) where (sheet.element(plane: 0, x: x, y: y)?[0] ?? 0) > 150 { bright += 1 }
        }
        #expect(bright > 30)
    }
}

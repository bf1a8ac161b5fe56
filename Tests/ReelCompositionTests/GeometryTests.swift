import Foundation
import ReelAsset
@testable import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// AVFoundation's documented composition geometry (issue 15), each checked where a user
/// would see it: the rendered pixels, or the exported file through ffprobe and ffmpeg.
///
/// - `AVMutableCompositionTrack.preferredTransform`: "If not set, the value is CGAffineTransformIdentity."
/// - `init(assetTrack:)`: a layer instruction "with no transform or opacity ramps".
/// - `setTransform(_:at:)`: "Before the first specified time for which a transform is set, the
///   affine transform is held constant at the value of CGAffineTransformIdentity; after the
///   last time for which a transform is set, the affine transform is held constant at that
///   last value." Opacity holds 1 before its first time; the crop the source's full size.
@Suite struct GeometryTests {
    let directory: URL
    let second = MediaTime(value: 1, timescale: 1)

    init() throws {
        directory = try Paths.temporaryDirectory("reel-geometry")
    }

    /// A 128x72 clip, 25 fps, `seconds` long: its left half at `left`, its right half at `right`.
    private func splitClip(_ name: String, left: UInt8, right: UInt8, seconds: Int = 1) throws -> Asset {
        let url = directory.appendingPathComponent("\(name).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: 128, height: 72, quality: 0, preset: "ultrafast", expectedFrameRate: 25))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let picture = try PixelBuffer(width: 128, height: 72, pixelFormat: .yuv420p)
        picture.fill(planeValues: [left, 128, 128])
        picture.withMutablePlane(0) { base, stride in
            for y in 0..<72 { (base + y * stride + 64).initializeMemory(as: UInt8.self, repeating: right, count: 64) }
        }
        for index in 0..<(seconds * 25) {
            try input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(index), timescale: 25),
                                          duration: MediaTime(value: 1, timescale: 25)))
        }
        try writer.finishSynchronously()
        return try Asset(url: url)
    }

    private func luma(_ frame: PixelBuffer, _ x: Int, _ y: Int) -> Int { Int(frame.element(plane: 0, x: x, y: y)?[0] ?? 0) }

    /// ffmpeg's full-range grey for a video-range luma.
    private func full(_ luma: Int) -> Int { Int((Double(luma - 16) * 255 / 219).rounded()) }

    /// Whether the grey picture at (x, y) shows video-range `luma`, within 3.
    private func shows(_ picture: (width: Int, height: Int, pixels: [UInt8]), _ x: Int, _ y: Int, _ luma: Int) -> Bool {
        abs(Int(picture.pixels[y * picture.width + x]) - full(luma)) <= 3
    }

    /// One decoded grey frame of `url` at `seconds`, as ffmpeg shows it: turned by the
    /// file's display matrix unless `autorotate` is false.
    private func greyFrame(_ url: URL, at seconds: Double, autorotate: Bool = true) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let out = directory.appendingPathComponent("frame-\(UUID().uuidString.prefix(6)).pgm")
        try ProcessRunner.ffmpeg((autorotate ? [] : ["-noautorotate"]) + ["-ss", String(seconds), "-i", url.path,
                                  "-frames:v", "1", "-pix_fmt", "gray", "-f", "image2", out.path])
        let data = [UInt8](try Data(contentsOf: out))
        // P5\nW H\n255\n
        var fields: [String] = [], index = 0, current = ""
        while fields.count < 4, index < data.count {
            let byte = data[index]
            index += 1
            if byte == 0x20 || byte == 0x0A {
                if !current.isEmpty {
                    fields.append(current)
                    current = ""
                }
            } else {
                current.append(Character(UnicodeScalar(byte)))
            }
        }
        guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw TestFailure("cannot read \(out.path)")
        }
        return (width, height, Array(data[index...]))
    }

    // MARK: - preferredTransform

    @Test func insertingMediaNeverChangesAPreferredTransform() throws {
        let clip = try TestClips.rotated(270, in: directory)  // an iPhone portrait clip: its own transform turns it
        let asset = try Asset(url: clip)
        let source = try #require(asset.tracks(withMediaType: .video).first)
        #expect(!source.preferredTransform.isIdentity)
        let composition = MutableComposition()
        let plain = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try plain.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration), of: source, at: .zero)
        #expect(plain.preferredTransform == .identity, "inserting replaced the unset transform: \(plain.preferredTransform)")

        let set = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let chosen = ReelCore.AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        set.preferredTransform = chosen
        try set.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration), of: source, at: .zero)
        try set.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration), of: source, at: asset.duration)
        #expect(set.preferredTransform == chosen, "inserting replaced the set transform: \(set.preferredTransform)")
    }

    // MARK: - Layer instructions

    @Test func aLayerFromATrackStartsAtTheIdentityAndHoldsDocumentedValues() throws {
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        track.preferredTransform = ReelCore.AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 72, ty: 0)
        var layer = VideoCompositionLayerInstruction(assetTrack: track)
        #expect(layer.transform(at: .zero) == .identity)
        #expect(layer.opacity(at: .zero) == 1)
        #expect(layer.cropRectangle(at: .zero) == nil)

        let moved = ReelCore.AffineTransform(translationX: 10, y: 20)
        let half = MediaTime(value: 1, timescale: 2)
        layer.setTransform(moved, at: second)
        layer.setOpacity(0.25, at: second)
        layer.setCropRectangle(Rect(x: 4, y: 4, width: 8, height: 8), at: second)
        // Before the first set time: identity, 1, the whole picture.
        #expect(layer.transform(at: half) == .identity)
        #expect(layer.opacity(at: half) == 1)
        #expect(layer.cropRectangle(at: half) == nil)
        // After the last: the last value, for good.
        let late = MediaTime(value: 100, timescale: 1)
        #expect(layer.transform(at: late) == moved)
        #expect(layer.opacity(at: late) == 0.25)
        #expect(layer.cropRectangle(at: late) == Rect(x: 4, y: 4, width: 8, height: 8))

        // Ramps: the start value before them (once begun), the end value after.
        var ramped = VideoCompositionLayerInstruction(assetTrack: track)
        ramped.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: MediaTimeRange(start: second, duration: second))
        ramped.setTransformRamp(fromStart: .identity, toEnd: moved, timeRange: MediaTimeRange(start: second, duration: second))
        #expect(ramped.opacity(at: half) == 1)
        #expect(abs(ramped.opacity(at: MediaTime(value: 3, timescale: 2)) - 0.5) < 1e-9)
        #expect(ramped.opacity(at: late) == 0)
        #expect(ramped.transform(at: half) == .identity)
        #expect(ramped.transform(at: late) == moved)
    }

    @Test func aLayerMadeFromATurnedTrackDrawsUnturnedUntilItsTransformIsSet() throws {
        let clip = try splitClip("turned", left: 40, right: 220)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration),
                                  of: try #require(clip.tracks(withMediaType: .video).first), at: .zero)
        // Set after the media is in, as the seeds do (an insert once replaced a transform set before it).
        track.preferredTransform = ReelCore.AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 72, ty: 0)
        let layer = VideoCompositionLayerInstruction(assetTrack: track)
        let video = VideoComposition(renderSize: Size(width: 128, height: 72), frameDuration: MediaTime(value: 1, timescale: 25),
                                     instructions: [VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: clip.duration),
                                                                                layerInstructions: [layer])])
        let renderer = try VideoRenderer(composition: composition, videoComposition: video, outputWidth: 128, outputHeight: 72)
        defer { renderer.close() }
        // Unturned: dark on the left, light on the right, filling the frame, at every moment
        // (turned by the track's transform, the dark half would be on top and the right side empty).
        for time in [MediaTime.zero, MediaTime(value: 1, timescale: 5), MediaTime(value: 24, timescale: 25)] {
            let frame = try renderer.frame(at: time)
            for (x, y, expected) in [(4, 4, 40), (20, 36, 40), (60, 68, 40), (68, 4, 220), (108, 36, 220), (124, 68, 220)] {
                #expect(abs(luma(frame, x, y) - expected) <= 3, "at \(time.seconds) s, (\(x), \(y)): \(luma(frame, x, y))")
            }
        }
    }

    @Test func aLayerDrawsNothingWhereItsTrackHasNoMedia() throws {
        let clip = try splitClip("gap", left: 200, right: 200)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        let source = try #require(clip.tracks(withMediaType: .video).first)
        // Media, a one-second hole, media.
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration), of: source, at: .zero)
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration), of: source, at: clip.duration + second)
        let total = clip.duration + second + clip.duration
        var layer = VideoCompositionLayerInstruction(assetTrack: track)
        layer.setOpacity(1, at: .zero)
        var instruction = VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: total),
                                                      layerInstructions: [layer])
        instruction.backgroundColor = (0, 0, 0)
        let video = VideoComposition(renderSize: Size(width: 128, height: 72), frameDuration: MediaTime(value: 1, timescale: 25),
                                     instructions: [instruction])
        let renderer = try VideoRenderer(composition: composition, videoComposition: video, outputWidth: 128, outputHeight: 72)
        defer { renderer.close() }
        #expect(luma(try renderer.frame(at: MediaTime(value: 1, timescale: 2)), 64, 36) > 190)
        #expect(luma(try renderer.frame(at: clip.duration + MediaTime(value: 1, timescale: 2)), 64, 36) <= 17)
        #expect(luma(try renderer.frame(at: clip.duration + second + MediaTime(value: 1, timescale: 2)), 64, 36) > 190)
    }

    /// Seed 003's merge: one track, a layer instruction per clip for that same track, each
    /// setting its clip's transform at the clip's start and an empty crop at its end, the
    /// newest clip's layer first. Each clip shows alone, where its own layer puts it.
    @Test func severalLayerInstructionsForOneTrackEachShowTheirOwnClip() throws {
        let first = try splitClip("merge-a", left: 40, right: 40), second = try splitClip("merge-b", left: 220, right: 220)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        var layers: [VideoCompositionLayerInstruction] = []
        var total = MediaTime.zero
        // The first clip in the lower half of a 128x144 frame, the second in the upper half.
        let places = [ReelCore.AffineTransform(translationX: 0, y: 72), ReelCore.AffineTransform.identity]
        for (index, asset) in [first, second].enumerated() {
            try track.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration),
                                      of: try #require(asset.tracks(withMediaType: .video).first), at: total)
            var layer = VideoCompositionLayerInstruction(assetTrack: track)
            layer.setTransform(places[index], at: total)
            layers.insert(layer, at: 0)
            total = total + asset.duration
            layers[0].setCropRectangle(.zero, at: total)
        }
        var video = VideoComposition()
        video.instructions = [VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: total),
                                                          layerInstructions: layers)]
        video.frameDuration = MediaTime(value: 1, timescale: 25)
        video.renderSize = Size(width: 128, height: 144)
        try video.validate(for: composition)
        let renderer = try VideoRenderer(composition: composition, videoComposition: video, outputWidth: 128, outputHeight: 144)
        defer { renderer.close() }
        let during1 = try renderer.frame(at: MediaTime(value: 1, timescale: 2))
        #expect(abs(luma(during1, 64, 108) - 40) <= 3, "first clip in the lower half: \(luma(during1, 64, 108))")
        #expect(luma(during1, 64, 36) <= 17, "a ghost of the first clip in the upper half: \(luma(during1, 64, 36))")
        let during2 = try renderer.frame(at: MediaTime(value: 3, timescale: 2))
        #expect(abs(luma(during2, 64, 36) - 220) <= 3, "second clip in the upper half: \(luma(during2, 64, 36))")
        #expect(luma(during2, 64, 108) <= 17, "a ghost in the lower half: \(luma(during2, 64, 108))")
    }

    @Test func anEmptyCropShowsNothing() throws {
        let clip = try splitClip("crop", left: 200, right: 200)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration),
                                  of: try #require(clip.tracks(withMediaType: .video).first), at: .zero)
        var layer = VideoCompositionLayerInstruction(assetTrack: track)
        layer.setCropRectangle(.zero, at: MediaTime(value: 1, timescale: 2))
        let video = VideoComposition(renderSize: Size(width: 128, height: 72), frameDuration: MediaTime(value: 1, timescale: 25),
                                     instructions: [VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: clip.duration),
                                                                                layerInstructions: [layer])])
        let renderer = try VideoRenderer(composition: composition, videoComposition: video, outputWidth: 128, outputHeight: 72)
        defer { renderer.close() }
        #expect(luma(try renderer.frame(at: MediaTime(value: 1, timescale: 5)), 64, 36) > 190)
        let frame = try renderer.frame(at: MediaTime(value: 4, timescale: 5))
        var brightest = 0
        for y in stride(from: 0, to: 72, by: 4) { for x in stride(from: 0, to: 128, by: 4) { brightest = max(brightest, luma(frame, x, y)) } }
        #expect(brightest <= 17, "an empty crop drew something: luma \(brightest)")
    }

    // MARK: - Export with and without a video composition

    /// Seed 002: segments merged on one track, `preferredTransform = CGAffineTransform(rotationAngle: .pi/2)`,
    /// exported with no video composition. The pictures are written as stored and the
    /// transform becomes the output's display matrix.
    @Test func exportWithoutAVideoCompositionWritesTheTransformAsTheDisplayMatrix() throws {
        let clip = try splitClip("seed002", left: 40, right: 220)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: CMPersistentTrackID()))
        let source = try #require(clip.tracks(withMediaType: .video).first)
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration), of: source, at: .zero)
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration), of: source, at: clip.duration)
        track.preferredTransform = ReelCore.AffineTransform(rotationAngle: .pi / 2)
        let out = directory.appendingPathComponent("seed002.mov")
        let session = ExportSession(composition: composition, preset: .highestQuality)
        session.outputURL = out
        session.outputFileType = .mov
        try session.exportSynchronously()
        #expect(session.warnings.isEmpty, "\(session.warnings)")

        let probe = try FFprobe.probe(out)
        let stream = try #require(probe.streams(ofType: "video").first)
        #expect(stream.width == 128 && stream.height == 72, "\(String(describing: stream.width))x\(String(describing: stream.height))")
        // A clockwise quarter turn on screen is ffprobe's −90 (counter-clockwise degrees).
        #expect(stream.rotation == -90, "rotation \(stream.rotation)")
        #expect(stream.frameCount == 50)  // (countFrames' CSV reads the side data's extra field on a turned stream)
        // As stored: dark left, light right; nothing black.
        let stored = try greyFrame(out, at: 0.5, autorotate: false)
        #expect(stored.width == 128 && stored.height == 72)
        #expect(shows(stored, 20, 36, 40) && shows(stored, 108, 36, 220))
        // As a player shows it: turned clockwise, the left half on top.
        let shown = try greyFrame(out, at: 0.5)
        #expect(shown.width == 72 && shown.height == 128)
        #expect(shows(shown, 36, 20, 40) && shows(shown, 36, 108, 220))
    }

    @Test func exportWithAVideoCompositionIsUprightWithNoDisplayMatrix() throws {
        let clip = try splitClip("upright", left: 40, right: 220)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration),
                                  of: try #require(clip.tracks(withMediaType: .video).first), at: .zero)
        // A clockwise quarter turn that keeps the picture at the origin.
        track.preferredTransform = ReelCore.AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 72, ty: 0)
        let out = directory.appendingPathComponent("upright-export.mp4")
        let session = ExportSession(composition: composition, preset: .highestQuality)
        session.outputURL = out
        session.videoComposition = VideoComposition(propertiesOf: composition)
        try session.exportSynchronously()
        let stream = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
        #expect(stream.rotation == 0)
        #expect(stream.width == 72 && stream.height == 128)
        let shown = try greyFrame(out, at: 0.5)
        #expect(shows(shown, 36, 20, 40) && shows(shown, 36, 108, 220))

        // The layer instructions rule, not the track's transform: a layer that sets none draws
        // the picture as stored, and the file has no display matrix to turn it.
        let stored = directory.appendingPathComponent("layers-rule.mp4")
        let plain = ExportSession(composition: composition, preset: .highestQuality)
        plain.outputURL = stored
        plain.videoComposition = VideoComposition(
            renderSize: Size(width: 128, height: 72), frameDuration: MediaTime(value: 1, timescale: 25),
            instructions: [VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: clip.duration),
                                                       layerInstructions: [VideoCompositionLayerInstruction(assetTrack: track)])])
        try plain.exportSynchronously()
        let plainStream = try #require(try FFprobe.probe(stored).streams(ofType: "video").first)
        #expect(plainStream.rotation == 0 && plainStream.width == 128 && plainStream.height == 72)
        let asStored = try greyFrame(stored, at: 0.5)
        #expect(shows(asStored, 20, 36, 40) && shows(asStored, 108, 36, 220) && shows(asStored, 108, 4, 220),
                "the layer drew through the track's transform: row 36 \(stride(from: 0, to: 128, by: 8).map { asStored.pixels[36 * asStored.width + $0] })")
    }

    /// AVFoundation writes a composition whose picture lies outside the render rectangle
    /// without complaint; Reel writes it too and says why it is black.
    @Test func aPictureWhollyOutsideTheFrameIsNamedInAWarning() throws {
        let clip = try splitClip("lost", left: 200, right: 200)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration),
                                  of: try #require(clip.tracks(withMediaType: .video).first), at: .zero)
        track.preferredTransform = ReelCore.AffineTransform(rotationAngle: .pi / 2)  // turned about the origin: x < 0
        let out = directory.appendingPathComponent("lost-export.mp4")
        let session = ExportSession(composition: composition, preset: .highestQuality)
        session.outputURL = out
        session.videoComposition = VideoComposition(propertiesOf: composition)
        try session.exportSynchronously()
        #expect(FileManager.default.fileExists(atPath: out.path))
        let warning = try #require(session.warnings.first)
        #expect(warning.contains("track \(track.trackID)") && warning.contains("outside"), "\(warning)")
        #expect(warning.contains("1.0 -1.0"), "the transform is named: \(warning)")
    }

    @Test func exportAsynchronouslyCallsItsHandlerOnce() async throws {
        let clip = try splitClip("async", left: 90, right: 90)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: clip.duration),
                                  of: try #require(clip.tracks(withMediaType: .video).first), at: .zero)
        let session = ExportSession(composition: composition, preset: .mediumQuality)
        session.outputURL = directory.appendingPathComponent("async-export.mp4")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.exportAsynchronously { continuation.resume() }
        }
        #expect(session.status == .completed)
        #expect(try FFprobe.countFrames(try #require(session.outputURL)) == 25)

        let failing = ExportSession(composition: composition, preset: .mediumQuality)  // no output URL
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            failing.exportAsynchronously { continuation.resume() }
        }
        #expect(failing.status == .failed)
        #expect(failing.error?.message.contains("outputURL") == true)
    }
}

import Foundation
import ReelAsset
@testable import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Composed frames checked pixel by pixel, on solid-colour clips written losslessly.
@Suite struct RenderTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-render")
    }

    /// A clip of one grey level (or a left/right split), `seconds` long at 25 fps, 128x72.
    private func solidClip(_ name: String, luma: UInt8, right: UInt8? = nil, seconds: Int = 2,
                           width: Int = 128, height: Int = 72, transform: Orientation = .up) throws -> Asset {
        let url = directory.appendingPathComponent("\(name).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: width, height: height, quality: 0, preset: "ultrafast", expectedFrameRate: 25))
        input.transform = transform.transform(for: Size(width: width, height: height))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: .yuv420p)
        picture.fill(planeValues: [luma, 128, 128])
        if let right {
            picture.withMutablePlane(0) { base, stride in
                for y in 0..<height { (base + y * stride + width / 2).initializeMemory(as: UInt8.self, repeating: right, count: width / 2) }
            }
        }
        for index in 0..<(seconds * 25) {
            try input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(index), timescale: 25),
                                          duration: MediaTime(value: 1, timescale: 25)))
        }
        try writer.finishSynchronously()
        return try Asset(url: url)
    }

    private func luma(_ frame: PixelBuffer, _ x: Int, _ y: Int) -> Int { Int(frame.element(plane: 0, x: x, y: y)?[0] ?? 0) }

    @Test func dissolveMidpointIsTheMeanOfBothClips() throws {
        let a = try solidClip("dark", luma: 40), b = try solidClip("light", luma: 220)
        let one = MediaTime(value: 1, timescale: 1)
        let sequence = try ClipSequence(assets: [a, b], transitions: [.dissolve(duration: one)])
        #expect(sequence.composition.duration == MediaTime(value: 3, timescale: 1))
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: sequence.videoComposition,
                                         outputWidth: 128, outputHeight: 72)
        #expect(abs(luma(try renderer.frame(at: MediaTime(value: 1, timescale: 2)), 64, 36) - 40) <= 1)
        let middle = try renderer.frame(at: MediaTime(value: 3, timescale: 2))
        #expect(abs(luma(middle, 64, 36) - 130) <= 2, "\(luma(middle, 64, 36))")
        #expect(abs(luma(try renderer.frame(at: MediaTime(value: 5, timescale: 2)), 64, 36) - 220) <= 1)
    }

    @Test(arguments: [0.25, 0.5, 0.75])
    func pushShowsTheExpectedColumns(fraction: Double) throws {
        let a = try solidClip("push-a", luma: 40), b = try solidClip("push-b", luma: 220)
        let one = MediaTime(value: 1, timescale: 1)
        let sequence = try ClipSequence(assets: [a, b], transitions: [.push(duration: one, direction: .left)])
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: sequence.videoComposition,
                                         outputWidth: 128, outputHeight: 72)
        let frame = try renderer.frame(at: MediaTime(seconds: 1 + fraction, preferredTimescale: 1000))
        let boundary = Int((128 * (1 - fraction)).rounded())
        // Left of the boundary: the outgoing clip moving out; right: the incoming one.
        #expect(abs(luma(frame, boundary - 3, 36) - 40) <= 2)
        #expect(abs(luma(frame, boundary + 2, 36) - 220) <= 2)
        #expect(abs(luma(frame, 0, 10) - 40) <= 2 && abs(luma(frame, 127, 60) - 220) <= 2)
    }

    @Test func wipeFadeSlideAndZoomAtTheirMidpoints() throws {
        let a = try solidClip("t-a", luma: 40), b = try solidClip("t-b", luma: 220)
        let one = MediaTime(value: 1, timescale: 1)
        func midFrame(_ transition: Transition) throws -> PixelBuffer {
            let sequence = try ClipSequence(assets: [a, b], transitions: [transition])
            let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: sequence.videoComposition,
                                             outputWidth: 128, outputHeight: 72)
            return try renderer.frame(at: MediaTime(value: 3, timescale: 2))
        }
        let wipe = try midFrame(.wipe(duration: one, direction: .left))
        #expect(abs(luma(wipe, 30, 36) - 40) <= 2 && abs(luma(wipe, 100, 36) - 220) <= 2)
        let fade = try midFrame(.fadeThroughBlack(duration: one))
        #expect(luma(fade, 64, 36) <= 18)
        let slide = try midFrame(.slide(duration: one, direction: .left))
        #expect(abs(luma(slide, 30, 36) - 40) <= 2 && abs(luma(slide, 100, 36) - 220) <= 2)
        let zoom = try midFrame(.zoom(duration: one))
        #expect(abs(luma(zoom, 64, 36) - 220) <= 2 && abs(luma(zoom, 2, 2) - 40) <= 2)
        #expect(Transition(spec: "wipe-up:0.5") == .wipe(duration: MediaTime(value: 300, timescale: 600), direction: .up))
        #expect(Transition(spec: "sparkle:1") == nil)
    }

    @Test func stickerOpacityAtTheSeedTimes() throws {
        let clip = try solidClip("sticker", luma: 16, seconds: 9)
        let sequence = try ClipSequence(assets: [clip])
        var video = sequence.videoComposition
        let root = OverlayLayer(frame: Rect(x: 0, y: 0, width: 128, height: 72))
        let sticker = OverlayLayer(content: .color(red: 1, green: 1, blue: 0), frame: Rect(x: 0, y: 0, width: 20, height: 20),
                                   opacity: 0)
        sticker.add(KeyframeAnimation(keyPath: .opacity, values: [0, 1, 1, 0], keyTimes: [0, 0.25, 0.75, 1], beginTime: 3,
                                      duration: 5, isRemovedOnCompletion: false))
        root.addSublayer(sticker)
        video.animationTool = root
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 128,
                                         outputHeight: 72)
        let yellow = Int(Compositor.yuv(red: 1, green: 1, blue: 0, matrix: .bt601).0)
        for (seconds, opacity) in [(3.0, 0.0), (4.25, 1.0), (6.75, 1.0), (8.0, 0.0), (3.625, 0.5)] {
            let frame = try renderer.frame(at: MediaTime(seconds: seconds, preferredTimescale: 1000))
            let expected = 16 + Double(yellow - 16) * opacity
            #expect(abs(Double(luma(frame, 10, 10)) - expected) <= Double(yellow - 16) * 0.03 + 1, "at \(seconds) s")
            #expect(luma(frame, 40, 40) == 16)
        }
    }

    @Test func overlayRotationAndScaleAreDrawn() throws {
        let clip = try solidClip("rotate", luma: 16)
        let sequence = try ClipSequence(assets: [clip])
        var video = sequence.videoComposition
        let root = OverlayLayer(frame: Rect(x: 0, y: 0, width: 128, height: 72))
        let bar = OverlayLayer(content: .color(red: 1, green: 1, blue: 1), frame: Rect(x: 44, y: 31, width: 40, height: 10))
        bar.add(KeyframeAnimation(keyPath: .rotation, values: [0, Double.pi / 2], beginTime: 0, duration: 1,
                                  isRemovedOnCompletion: false))
        root.addSublayer(bar)
        video.animationTool = root
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 128,
                                         outputHeight: 72)
        let flat = try renderer.frame(at: .zero)
        #expect(luma(flat, 48, 36) > 200 && luma(flat, 64, 20) == 16)
        let turned = try renderer.frame(at: MediaTime(value: 3, timescale: 2))  // held at 90°
        #expect(luma(turned, 64, 20) > 200 && luma(turned, 48, 36) == 16)
    }

    @Test func aLaterClipOfAnotherSizeOnTheSameTrackIsFittedByItsOwnSize() throws {
        let a = try solidClip("size-a", luma: 60), b = try solidClip("size-b", luma: 60)
        let tall = try solidClip("size-c", luma: 200, width: 72, height: 128)  // third clip: back on track A
        let sequence = try ClipSequence(assets: [a, b, tall])
        #expect(sequence.videoComposition.renderSize == Size(width: 128, height: 72))
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: sequence.videoComposition,
                                         outputWidth: 128, outputHeight: 72)
        let frame = try renderer.frame(at: MediaTime(value: 5, timescale: 1))
        #expect(luma(frame, 4, 36) == 16 && luma(frame, 123, 36) == 16)          // bars at the sides
        #expect(abs(luma(frame, 64, 2) - 200) <= 2 && abs(luma(frame, 64, 69) - 200) <= 2)  // full height
        #expect(Transition(spec: "") == nil && Transition(spec: ":") == nil && Transition(spec: "push-:1") == nil)
    }

    @Test func portraitClipIsFittedAndCentredWithBars() throws {
        // A 128x72 clip turned to portrait (72x128 on screen) in a 128x72 frame: scaled to 40.5x72, centred.
        let clip = try solidClip("portrait", luma: 200, transform: .right)
        let sequence = try ClipSequence(assets: [clip], renderSize: Size(width: 128, height: 72))
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: sequence.videoComposition,
                                         outputWidth: 128, outputHeight: 72)
        let frame = try renderer.frame(at: MediaTime(value: 1, timescale: 2))
        let shownWidth = 72.0 * 72 / 128
        let left = Int(((128 - shownWidth) / 2).rounded())
        #expect(luma(frame, 5, 36) == 16 && luma(frame, 122, 36) == 16)   // black bars
        #expect(abs(luma(frame, 64, 36) - 200) <= 2 && abs(luma(frame, 64, 2) - 200) <= 2)
        #expect(luma(frame, left - 3, 36) == 16 && abs(luma(frame, left + 3, 36) - 200) <= 2)
    }

    /// The animation tool's layers are drawn over a custom compositor's frames, as AVFoundation
    /// post-processes them (a custom compositor's instructions carry `enablePostProcessing` for
    /// it), and not where an instruction turns post-processing off: a yellow square over the
    /// split compositor's frame, read back from the exported file decoded with its tag. Before,
    /// the square was not drawn: (0, 0, 0) read back where it is.
    @Test func theAnimationToolIsDrawnOverACustomCompositorsFrames() async throws {
        let clip = try solidClip("custom-tool", luma: 126)
        for postProcessing in [true, false] {
            let sequence = try ClipSequence(assets: [clip])
            var video = sequence.videoComposition
            video.customVideoCompositor = SplitCompositor()
            for index in video.instructions.indices { video.instructions[index].enablePostProcessing = postProcessing }
            let root = OverlayLayer(frame: Rect(x: 0, y: 0, width: 128, height: 72))
            root.addSublayer(OverlayLayer(content: .color(red: 1, green: 1, blue: 0), frame: Rect(x: 80, y: 20, width: 32, height: 32)))
            video.animationTool = root
            let out = directory.appendingPathComponent("custom-tool-\(postProcessing).mp4")
            let session = ExportSession(composition: sequence.composition, preset: .highestQuality)
            session.outputURL = out
            session.videoComposition = video
            try await session.export()
            #expect(session.status == .completed)
            let stream = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
            let matrix = stream.colorSpace.map { $0 == "unknown" ? "auto" : $0 } ?? "auto"
            let raw = directory.appendingPathComponent("custom-tool-\(postProcessing).rgb")
            try ProcessRunner.ffmpeg([
                "-i", out.path, "-vf", "select=eq(n\\,10),scale=in_color_matrix=\(matrix):in_range=tv:out_range=pc,format=rgb24",
                "-frames:v", "1", "-f", "rawvideo", raw.path,
            ])
            let rgb = [UInt8](try Data(contentsOf: raw))
            func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
                let i = 3 * (y * 128 + x)
                return i + 2 < rgb.count ? (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2])) : (-1, -1, -1)
            }
            func near(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Bool {
                max(abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2)) <= 3
            }
            // The compositor's own frame: the clip's grey on the left, black on the right.
            #expect(near(pixel(30, 36), (128, 128, 128)), "the compositor's left half: \(pixel(30, 36))")
            #expect(near(pixel(120, 60), (0, 0, 0)), "the compositor's right half: \(pixel(120, 60))")
            let square = pixel(96, 36)
            if postProcessing {
                #expect(near(square, (255, 255, 0)), "the animation tool's square: \(square), specified (255, 255, 0)")
            } else {
                #expect(near(square, (0, 0, 0)), "post-processing off, yet \(square) where the square would be")
            }
        }
    }

    @Test func exportDurationMatchesFFprobe() async throws {
        let a = try solidClip("exp-a", luma: 60), b = try solidClip("exp-b", luma: 160)
        let sequence = try ClipSequence(assets: [a, b], transitions: [.dissolve(duration: MediaTime(value: 1, timescale: 2))])
        let session = ExportSession(composition: sequence.composition, preset: .preset640x480)
        session.outputURL = directory.appendingPathComponent("export.mp4")
        session.videoComposition = sequence.videoComposition
        try await session.export()
        #expect(session.status == .completed && session.progress == 1)
        let probe = try FFprobe.probe(try #require(session.outputURL))
        #expect(abs((probe.duration ?? 0) - 3.5) <= 0.04)
        #expect(probe.streams(ofType: "video").first?.width == 128)  // never scaled up
    }
}

@Suite struct ExportSessionTests {
    @Test func presetsFitTheirBoxAndNeverScaleUp() {
        #expect(ExportPreset.preset640x480.outputSize(for: Size(width: 1280, height: 720)) == (640, 360))
        #expect(ExportPreset.preset640x480.outputSize(for: Size(width: 720, height: 1280)) == (360, 640))
        #expect(ExportPreset.preset1920x1080.outputSize(for: Size(width: 1280, height: 720)) == (1280, 720))
        #expect(ExportPreset.preset960x540.outputSize(for: Size(width: 1276, height: 720)) == (958, 540))
        #expect(ExportPreset.highestQuality.outputSize(for: Size(width: 1276, height: 720)) == (1276, 720))
    }

    @Test func compatiblePresetsAndEstimates() throws {
        let directory = try Paths.temporaryDirectory("reel-presets")
        let url = directory.appendingPathComponent("c.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=2", "-c:v", "libx264",
                                  "-preset", "ultrafast", "-pix_fmt", "yuv420p", url.path])
        let asset = try Asset(url: url)
        let plain = try ClipSequence(assets: [asset, asset])
        let presets = ExportSession.exportPresets(compatibleWith: plain.composition)
        #expect(presets.contains(.passthrough) && presets.contains(.preset640x480) && !presets.contains(.preset1920x1080))
        let blended = try ClipSequence(assets: [asset, asset], transitions: [.dissolve(duration: MediaTime(value: 1, timescale: 2))])
        #expect(!ExportSession.exportPresets(compatibleWith: blended.composition).contains(.passthrough))
        let session = ExportSession(composition: plain.composition, preset: .preset640x480)
        session.videoComposition = plain.videoComposition
        #expect(session.estimatedOutputFileLength > 50_000 && session.estimatedOutputFileLength < 2_000_000)
    }

    @Test func fileLengthLimitStopsTheExport() async throws {
        let directory = try Paths.temporaryDirectory("reel-limit")
        let url = directory.appendingPathComponent("noise.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "mandelbrot=size=320x240:rate=25", "-t", "6", "-c:v", "libx264",
                                  "-preset", "ultrafast", "-pix_fmt", "yuv420p", url.path])
        let sequence = try ClipSequence(assets: [try Asset(url: url)])
        let session = ExportSession(composition: sequence.composition, preset: .highestQuality)
        session.outputURL = directory.appendingPathComponent("limited.mp4")
        session.videoComposition = sequence.videoComposition
        session.fileLengthLimit = 60_000
        try await session.export()
        let probe = try FFprobe.probe(try #require(session.outputURL))
        #expect((probe.duration ?? 6) < 5.5)
    }

    /// Cancelling the task that awaits `export()` cancels the export: no file, `.cancelled`.
    @Test func cancellingTheExportingTaskCancelsTheExport() async throws {
        let directory = try Paths.temporaryDirectory("reel-export-cancel")
        let url = directory.appendingPathComponent("source.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264",
                                  "-preset", "ultrafast", "-pix_fmt", "yuv420p", url.path])
        let sequence = try ClipSequence(assets: [try Asset(url: url)])
        let session = ExportSession(composition: sequence.composition, preset: .highestQuality)
        let output = directory.appendingPathComponent("cancelled.mp4")
        session.outputURL = output
        session.videoComposition = sequence.videoComposition
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await session.export()
        }
        let result = await task.result
        guard case .failure(let error as ReelError) = result else {
            Issue.record("the export was not cancelled: \(result)")
            return
        }
        #expect(error.code == .cancelled, "\(error)")
        #expect(session.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "\(left)")
    }
}

/// A compositor of the test's own: the left half from one track, the right from the other.
final class SplitCompositor: VideoCompositing, @unchecked Sendable {
    var requests = 0
    func startRequest(_ request: VideoCompositionRequest) throws(ReelError) {
        requests += 1
        request.output.fill(planeValues: [16, 128, 128])
        let ids = request.sourceTrackIDs
        for (side, id) in ids.enumerated() {
            guard let source = request.sourceFrame(byTrackID: id) else { continue }
            let half = request.output.width / 2
            source.withPlane(0) { input, inStride in
                request.output.withMutablePlane(0) { output, outStride in
                    for y in 0..<min(source.height, request.output.height) {
                        (output + y * outStride + side * half).copyMemory(from: input + y * inStride + side * half, byteCount: half)
                    }
                }
            }
        }
    }
}

@Suite struct CustomCompositorTests {
    @Test func userCodeMakesTheFrames() throws {
        let directory = try Paths.temporaryDirectory("reel-custom")
        var assets: [Asset] = []
        for (name, level) in [("l", 50), ("r", 200)] {
            let url = directory.appendingPathComponent("\(name).mp4")
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=c=0x\(String(format: "%02x%02x%02x", level, level, level)):size=128x72:rate=25:duration=2",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", url.path])
            assets.append(try Asset(url: url))
        }
        let sequence = try ClipSequence(assets: assets, transitions: [.dissolve(duration: MediaTime(value: 1, timescale: 1))])
        var video = sequence.videoComposition
        let compositor = SplitCompositor()
        video.customVideoCompositor = compositor
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 128,
                                         outputHeight: 72)
        let frame = try renderer.frame(at: MediaTime(value: 3, timescale: 2))  // both clips show
        let left = Int(frame.element(plane: 0, x: 10, y: 36)?[0] ?? 0), right = Int(frame.element(plane: 0, x: 120, y: 36)?[0] ?? 0)
        #expect(left < 80 && right > 160, "left \(left), right \(right)")
        #expect(compositor.requests == 1)
    }

    /// Burned subtitles go over a custom compositor's frame as over the built-in one's: with a
    /// cue from 0.5 s to 1.5 s, the frame at 1 s has white text in its bottom third (the
    /// compositor leaves it at 16 and 50 or so), the frame at 1.8 s none.
    @Test func subtitlesAreBurnedOverACustomCompositorsFrame() throws {
        let directory = try Paths.temporaryDirectory("reel-custom-subtitles")
        let url = directory.appendingPathComponent("clip.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=c=0x323232:size=320x180:rate=25:duration=2",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", url.path])
        let sequence = try ClipSequence(assets: [try Asset(url: url)])
        var video = sequence.videoComposition
        video.customVideoCompositor = SplitCompositor()
        video.subtitleBurnIn = SubtitleBurnIn(document: SubtitleDocument(
            cues: [SubtitleDocument.Cue(start: 500, end: 1500, text: "BURNED OVER")], url: directory.appendingPathComponent("c.srt")),
            style: SubtitleWriter.Style(fontSize: 28))
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 320,
                                         outputHeight: 180)
        func bright(_ frame: PixelBuffer) -> Int {
            var count = 0
            for y in 120..<180 {
                for x in 0..<320 where Int(frame.element(plane: 0, x: x, y: y)?[0] ?? 0) > 200 { count += 1 }
            }
            return count
        }
        let during = bright(try renderer.frame(at: MediaTime(value: 1, timescale: 1)))
        let after = bright(try renderer.frame(at: MediaTime(value: 9, timescale: 5)))
        #expect(during > 80, "\(during) bright pixels under the cue")
        #expect(after == 0, "\(after) bright pixels after it")
    }
}

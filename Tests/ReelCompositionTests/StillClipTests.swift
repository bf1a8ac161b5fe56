import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Still pictures as clips: their length and silence, `fit`, Ken Burns rectangles and EXIF
/// orientation, judged on frames `reel compose` wrote, decoded by ffmpeg.
@Suite struct StillClipTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-still")
        // Quadrants split at the middle: yellow, green / red, dark blue (640x360).
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i",
                                  "color=black:s=640x360,format=rgb24,geq=r='if(lt(X,W/2),255,0)':g='if(lt(Y,H/2),255,0)':b=64",
                                  "-frames:v", "1", directory.appendingPathComponent("quad.png").path])
        // A white stripe down the left tenth of a dark grey 640x360 picture.
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=0x282828:s=640x360,format=rgb24,geq=r='if(lt(X,64),255,40)':g='if(lt(X,64),255,40)':b='if(lt(X,64),255,40)'",
                                  "-frames:v", "1", directory.appendingPathComponent("stripe.jpg").path])
    }

    /// Renders `json` and returns frames `indices` as full-range grey pictures, also kept as PNGs.
    private func frames(_ json: String, name: String, size: (Int, Int), _ indices: [Int]) throws -> [[UInt8]] {
        let spec = directory.appendingPathComponent("\(name).json")
        try json.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("\(name).mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        return try indices.map { index in
            let picture = directory.appendingPathComponent("\(name)-\(index).png")
            try ProcessRunner.ffmpeg(["-i", out.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", picture.path])
            let raw = directory.appendingPathComponent("\(name)-\(index).gray")
            try ProcessRunner.ffmpeg(["-i", picture.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
            let bytes = [UInt8](try Data(contentsOf: raw))
            guard bytes.count == size.0 * size.1 else { throw TestFailure("\(name) frame \(index): \(bytes.count) bytes") }
            return bytes
        }
    }

    /// Where along a line of samples the level crosses the middle of `a` and `b`, to a
    /// fraction of a pixel (the edge between two quadrants).
    private func edge(_ line: [Double]) -> Double? {
        guard let first = line.first, let last = line.last else { return nil }
        let middle = (first + last) / 2
        for index in 1..<line.count where (line[index - 1] - middle) * (line[index] - middle) <= 0 && line[index] != line[index - 1] {
            // Sample i covers pixel i's centre (i + 0.5); the edge is where the level passes the middle.
            return Double(index - 1) + 0.5 + (middle - line[index - 1]) / (line[index] - line[index - 1])
        }
        return nil
    }

    private func row(_ frame: [UInt8], _ y: Int, width: Int) -> [Double] { (0..<width).map { Double(frame[y * width + $0]) } }
    private func column(_ frame: [UInt8], _ x: Int, width: Int, height: Int) -> [Double] {
        (0..<height).map { Double(frame[$0 * width + x]) }
    }

    /// A 2 s still at 25 fps moving from (0.1, 0.2, 0.5, 0.5) to (0.4, 0.3, 0.5, 0.5) of the
    /// quadrant picture, covering a 320x180 frame: the quadrants' meeting point is where the
    /// rectangle of each frame puts it, within a pixel, at the first frame (the start
    /// rectangle), the last (the end one, 98 % of the way) and, eased, in between.
    @Test(arguments: ["linear", "easeInOut"])
    func kenBurnsShowsTheStartAndEndRectangles(easing: String) throws {
        let json = """
            {"renderSize": {"width": 320, "height": 180}, "frameRate": 25,
             "clips": [{"file": "quad.png", "duration": 2, "fit": "cover",
               "kenBurns": {"start": {"x": 0.1, "y": 0.2, "width": 0.5, "height": 0.5},
                            "end": {"x": 0.4, "y": 0.3, "width": 0.5, "height": 0.5}, "easing": "\(easing)"}}]}
            """
        let indices = [0, 12, 25, 37, 49]
        let pictures = try frames(json, name: "kenburns-\(easing)", size: (320, 180), indices)
        let timing = MediaTimingFunction(name: easing == "linear" ? .linear : .easeInEaseOut)
        for (index, frame) in zip(indices, pictures) {
            let progress = timing.progress(at: Double(index) * 0.04 / 2)
            let x = 0.1 + 0.3 * progress, y = 0.2 + 0.1 * progress
            // The picture's middle (0.5) in the frame: (0.5 - x) / width of the rectangle.
            let expectedColumn = (0.5 - x) / 0.5 * 320, expectedRow = (0.5 - y) / 0.5 * 180
            let column = try #require(edge(row(frame, 20, width: 320)), "frame \(index): no edge along row 20")
            let rowEdge = try #require(edge(self.column(frame, 10, width: 320, height: 180)), "frame \(index): no edge down column 10")
            #expect(abs(column - expectedColumn) <= 1, "frame \(index): the edge is at column \(column), the rectangle puts it at \(expectedColumn)")
            #expect(abs(rowEdge - expectedRow) <= 1, "frame \(index): the edge is at row \(rowEdge), the rectangle puts it at \(expectedRow)")
        }
    }

    /// A 16:9 picture in a 4:3 frame: `contain` shows bars above and below and all of the
    /// picture, `cover` fills the frame and cuts the sides (the stripe at the left is gone),
    /// `fill` stretches it (no bars, the stripe a tenth of the width).
    @Test func fitContainCoverFill() throws {
        for fit in ["contain", "cover", "fill"] {
            let json = """
                {"renderSize": {"width": 320, "height": 240}, "frameRate": 25,
                 "clips": [{"file": "stripe.jpg", "duration": 0.4, "fit": "\(fit)"}]}
                """
            let frame = try frames(json, name: "fit-\(fit)", size: (320, 240), [5])[0]
            let corner = Int(frame[10 * 320 + 10]), stripe = Int(frame[120 * 320 + 10]), inside = Int(frame[120 * 320 + 160])
            let stripeWidth = row(frame, 120, width: 320).prefix(100).filter { $0 > 150 }.count
            switch fit {
            case "contain":
                #expect(corner < 10, "contain: a black bar at the top, not \(corner)")
                #expect(stripe > 240 && abs(stripeWidth - 32) <= 1, "contain: the stripe is \(stripeWidth) px")
            case "cover":
                #expect(corner < 60 && corner > 25, "cover: no bar, the grey picture, not \(corner)")
                #expect(stripeWidth == 0, "cover: the sides are cut, and the stripe with them (\(stripeWidth) px)")
            default:
                #expect(corner > 240, "fill: the stripe reaches the top corner, not \(corner)")
                #expect(abs(stripeWidth - 32) <= 1, "fill: the stripe is \(stripeWidth) px")
            }
            #expect(inside > 25 && inside < 60, "\(fit): the grey picture in the middle, not \(inside)")
        }
    }

    /// A camera's portrait photo: stored landscape (left half white, right half black) with
    /// EXIF orientation 6. Shown upright it is portrait with the white half on top, as
    /// every photo viewer shows it; as a JPEG and as a PNG (`eXIf`).
    @Test(arguments: ["jpg", "png"])
    func exifOrientationIsHonoured(type: String) throws {
        let picture = try PixelBuffer(width: 320, height: 180, pixelFormat: .rgba)
        picture.fillRect(x: 0, y: 0, width: 320, height: 180, rgba: (0, 0, 0, 255))
        picture.fillRect(x: 0, y: 0, width: 160, height: 180, rgba: (255, 255, 255, 255))
        let file = directory.appendingPathComponent("portrait.\(type)")
        try ImageFile.data(picture, format: type == "png" ? .png : .jpeg(quality: 2), metadata: ImageMetadata(orientation: .right))
            .write(to: file)
        #expect(ImageMetadata.orientation(ofPictureAt: file) == .right)
        let json = """
            {"renderSize": {"width": 180, "height": 320}, "frameRate": 25, "clips": [{"file": "portrait.\(type)", "duration": 0.4}]}
            """
        let frame = try frames(json, name: "portrait-\(type)", size: (180, 320), [3])[0]
        let top = Int(frame[60 * 180 + 90]), bottom = Int(frame[260 * 180 + 90]), corner = Int(frame[10 * 180 + 5])
        #expect(top > 240 && bottom < 15 && corner > 240, "upright: white above, black below, no bars (\(top), \(bottom), \(corner))")
    }

    /// A still between two sounding clips lasts its duration on the timeline and in the file,
    /// and is silent there; the clip after it keeps its sound (ffprobe's lengths).
    @Test func stillLastsItsDurationInSilence() throws {
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                  directory.appendingPathComponent("tone.mp4").path])
        let json = #"""
            {"clips": [{"file": "tone.mp4"}, {"file": "quad.png", "duration": 1.52}, {"file": "tone.mp4"}]}
            """#
        let spec = try CompositionSpec(data: Data(json.utf8))
        let built = try spec.build(relativeTo: directory)
        #expect(zip(built.clipRanges.map(\.duration.seconds), [2, 1.52, 2]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(abs(built.clipRanges[2].start.seconds - 3.52) < 1e-9)
        let file = directory.appendingPathComponent("silence.json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("silence.mp4")
        let result = try ProcessRunner.reel(["compose", file.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 5.52) <= 0.001)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 5.52) <= 0.03)
        // The sound's level in the still's middle, against the tone's (ffmpeg's astats).
        func level(from start: Double) throws -> Double {
            let stats = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "info", "-ss", "\(start)", "-t", "0.5", "-i", out.path,
                                                          "-af", "astats=metadata=0", "-f", "null", "-"])
            let line = stats.standardError.split(separator: "\n").last { $0.contains("RMS level dB") } ?? ""
            return Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? -200
        }
        #expect(try level(from: 2.5) < -80, "silent during the still")
        #expect(try level(from: 4.5) > -30, "the tone after the still")
    }

    @Test(arguments: [
        (#"{"file": "quad.png", "fit": "stretch"}"#, "clips[0].fit: is contain, cover or fill, not 'stretch'"),
        (#"{"file": "quad.png", "duration": 0}"#, "clips[0].duration: wants a number above 0 and at most 86400 seconds, not 0"),
        (#"{"file": "quad.png", "duration": 2, "speed": 2}"#, "clips[0].speed: a still picture has no speed"),
        (#"{"file": "quad.png", "range": {"start": 0, "end": 1}}"#, "clips[0].range: a still picture has no range"),
        (#"{"file": "tone.mp4", "duration": 2}"#, "clips[0].duration: is for still pictures"),
        (#"{"file": "quad.png", "kenBurns": {"start": {"x": 0.6, "y": 0, "width": 0.5, "height": 0.5}, "end": {"x": 0, "y": 0, "width": 1, "height": 1}}}"#,
         "clips[0].kenBurns.start: reaches past the picture's right edge (x + width = 1.1, at most 1)"),
        (#"{"file": "quad.png", "kenBurns": {"start": {"x": 0, "y": 0, "width": 0, "height": 0.5}, "end": {"x": 0, "y": 0, "width": 1, "height": 1}}}"#,
         "clips[0].kenBurns.start.width: wants a number above 0 and at most 1"),
        (#"{"file": "quad.png", "kenBurns": {"start": {"x": 0, "y": 0, "width": 1, "height": 1}}}"#, "clips[0].kenBurns.end: is missing"),
        (#"{"file": "quad.png", "kenBurns": {"start": {"x": 0, "y": 0, "width": 1}, "end": {"x": 0, "y": 0, "width": 1, "height": 1}}}"#,
         "clips[0].kenBurns.start.height: is missing"),
        (#"{"file": "quad.png", "kenBurns": {"start": {"x": 0, "y": 0, "width": 1, "height": 1}, "end": {"x": 0, "y": 0, "width": 1, "height": 1}, "easing": "wobble"}}"#,
         "clips[0].kenBurns.easing: is linear"),
        (#"{"file": "quad.png", "kenBurns": {"start": {"x": 0, "y": 0, "width": 1, "height": 1}, "end": {"x": 0, "y": 0, "width": 1, "height": 1}, "zoom": 2}}"#,
         "unknown key 'zoom' in clips[0].kenBurns"),
        (#"{"file": "photo.heic", "duration": 2}"#, "clips[0].file"),
    ])
    func badStillKeysAreRefusedByTheirPath(clip: String, expected: String) throws {
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tone.mp4").path) {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=1", "-c:v", "libx264",
                                      "-preset", "ultrafast", "-pix_fmt", "yuv420p", directory.appendingPathComponent("tone.mp4").path])
        }
        SpecRefusals.expectClip(clip, relativeTo: directory, refusedWith: expected)
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Looks per clip and per layer (the filter chains of `reel filter`), chroma key with spill
/// suppression, and `VideoComposition(asset:applyingFiltersWithHandler:)`, judged on the
/// frames written, decoded by the ffmpeg CLI.
@Suite struct LayerLookTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-looks")
        // Flat grey 64, 320x180 at 25 fps, 2 s, with a tone.
        try LosslessClips.make(
            "color=0x404040:s=320x180:r=25:d=2", tone: 440, seconds: 2,
            to: directory.appendingPathComponent("grey.mp4"))
        // A green test card: pure green, a 120x80 greenish-grey box at (100, 50) (160, 200, 160:
        // green spill on a grey subject), in lossless 4:4:4 so the colours are exact.
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=0x00FF00:s=320x180:r=25:d=2,drawbox=x=100:y=50:w=120:h=80:color=0xA0C8A0:t=fill",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv444p",
            directory.appendingPathComponent("card.mp4").path,
        ])
        // A saturated red, 2 s.
        try LosslessClips.make(
            "color=0xC03030:s=320x180:r=25:d=2", tone: 660, seconds: 2,
            to: directory.appendingPathComponent("red.mp4"))
    }

    private func render(_ json: String, name: String) throws -> URL {
        let spec = directory.appendingPathComponent("\(name).json")
        let out = directory.appendingPathComponent("\(name).mp4")
        try json.write(to: spec, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        return out
    }

    /// Frame `index` of `movie` as `gray` (its luma, range-expanded) or `rgb24` bytes; kept as a PNG too.
    private func frame(_ movie: URL, _ index: Int, format: String) throws -> [UInt8] {
        let stem = movie.deletingPathExtension().lastPathComponent
        try ProcessRunner.ffmpeg([
            "-y", "-i", movie.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
            directory.appendingPathComponent("\(stem)-\(index).png").path,
        ])
        let raw = directory.appendingPathComponent("\(stem)-\(index).\(format)")
        try ProcessRunner.ffmpeg([
            "-y", "-i", movie.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", "-f", "rawvideo",
            "-pix_fmt", format, raw.path,
        ])
        return [UInt8](try Data(contentsOf: raw))
    }

    private func rgb(_ bytes: [UInt8], _ x: Int, _ y: Int, width: Int = 320) -> (Int, Int, Int) {
        let i = 3 * (y * width + x)
        return (Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }

    /// The green card as a layer over grey 64, keyed with spill suppression: where it was green
    /// the grey shows (64 ± 3, luma); the greenish-grey box stays, its green cast gone (green
    /// within 8 of the mean of red and blue, where it was 40 above), its luma kept (±6).
    @Test func chromaKeyShowsTheBackgroundAndSuppressesSpill() throws {
        let out = try render(
            """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "card.mp4", "frame": {"x": 0, "y": 0, "width": 320, "height": 180},
                         "chromaKey": {"color": "#00ff00", "similarity": 0.2, "blend": 0.1, "spill": 1}}]}
            """, name: "key")
        let luma = try frame(out, 10, format: "gray")
        for (x, y) in [(20, 20), (300, 20), (20, 160), (300, 160), (60, 90), (260, 90), (160, 20), (160, 160)] {
            #expect(abs(Int(luma[y * 320 + x]) - 64) <= 3, "keyed at (\(x), \(y)): \(luma[y * 320 + x])")
        }
        let colour = try frame(out, 10, format: "rgb24")
        let (r, g, b) = rgb(colour, 160, 90)
        #expect(abs(g - (r + b) / 2) <= 8, "the box's green cast: \(r), \(g), \(b)")
        // Luma of (160, 200, 160), BT.709: 188.
        #expect(abs(Int(luma[90 * 320 + 160]) - 188) <= 6, "the box's luma: \(luma[90 * 320 + 160])")
        // Without spill suppression the cast stays.
        let kept = try render(
            """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "card.mp4", "frame": {"x": 0, "y": 0, "width": 320, "height": 180},
                         "chromaKey": {"color": "#00ff00", "similarity": 0.2, "blend": 0.1, "spill": 0}}]}
            """, name: "key-nospill")
        let (r0, g0, b0) = rgb(try frame(kept, 10, format: "rgb24"), 160, 90)
        #expect(g0 - (r0 + b0) / 2 >= 30, "without spill suppression: \(r0), \(g0), \(b0)")
    }

    /// A green-screen main clip keyed to the background (black where nothing is under it).
    @Test func chromaKeyOnAClipShowsTheBackground() throws {
        let out = try render(
            """
            {"frameRate": 25, "clips": [{"file": "card.mp4", "chromaKey": {}}]}
            """, name: "key-clip")
        let luma = try frame(out, 5, format: "gray")
        #expect(Int(luma[20 * 320 + 20]) <= 3, "keyed to black: \(luma[20 * 320 + 20])")
        #expect(Int(luma[90 * 320 + 160]) > 150, "the box stays: \(luma[90 * 320 + 160])")
    }

    /// Looks per clip: a mono clip next to an untouched one (the same red source), and a sepia
    /// layer: mono has R = G = B (±4), the untouched red keeps R 100 above G, sepia turns a
    /// grey layer brown (R above B by 20 or more).
    @Test func looksPerClipAndPerLayer() throws {
        let out = try render(
            """
            {"frameRate": 25, "clips": [{"file": "red.mp4", "filters": "PhotoEffectMono"}, {"file": "red.mp4"}],
             "layers": [{"file": "grey.mp4", "start": 2.2, "frame": {"x": 0, "y": 0, "width": 80, "height": 45},
                         "filters": "SepiaTone:intensity=1,ColorControls:brightness=0.3"}]}
            """, name: "looks")
        let mono = rgb(try frame(out, 10, format: "rgb24"), 160, 90)
        #expect(abs(mono.0 - mono.1) <= 4 && abs(mono.1 - mono.2) <= 4, "mono: \(mono)")
        let second = try frame(out, 70, format: "rgb24")
        let untouched = rgb(second, 160, 90)
        #expect(untouched.0 - untouched.1 >= 100, "untouched: \(untouched)")
        let sepia = rgb(second, 40, 22)
        #expect(sepia.0 - sepia.2 >= 20, "sepia layer: \(sepia)")
    }

    /// `VideoComposition(asset:applyingFiltersWithHandler:)`, exported through ExportSession:
    /// the handler sees every picture in time order and what it returns is what is written
    /// (the first second painted blue, the rest as it was).
    @Test func filteringHandlerMakesEachFrame() async throws {
        let asset = try Asset(url: directory.appendingPathComponent("red.mp4"))
        let sequence = try ClipSequence(assets: [asset])
        let times = PosixMutex<[Double]>([])
        let video = VideoComposition(asset: asset) { request throws(ReelError) -> PixelBuffer in
            times.withLock { $0.append(request.compositionTime.seconds) }
            guard request.compositionTime.seconds < 1 else { return request.sourceImage }
            let painted = try PixelBuffer(
                width: request.sourceImage.width, height: request.sourceImage.height, pixelFormat: .rgba)
            painted.fillRect(x: 0, y: 0, width: painted.width, height: painted.height, rgba: (0, 0, 255, 255))
            return painted
        }
        let out = directory.appendingPathComponent("handler.mp4")
        let session = sequence.exportSession(preset: .highestQuality, to: out, fileType: .mp4)
        session.videoComposition = video
        try await session.export()
        let seen = times.withLock { $0 }
        #expect(seen.count == 50, "the handler saw \(seen.count) pictures")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "in time order")
        let early = rgb(try frame(out, 10, format: "rgb24"), 160, 90)
        #expect(early.2 > 200 && early.0 < 40, "painted blue: \(early)")
        let late = rgb(try frame(out, 40, format: "rgb24"), 160, 90)
        #expect(abs(late.0 - 192) <= 6 && abs(late.1 - 48) <= 6, "as it was: \(late)")
    }

    /// A bad look is refused by its path, in one line.
    @Test func badLooksAreRefused() throws {
        let cases: [(String, String)] = [
            (#"{"file": "grey.mp4", "filters": "PhotoEffectSparkle"}"#, "clips[0].filters"),
            (#"{"file": "grey.mp4", "chromaKey": {"similarity": 3}}"#, "clips[0].chromaKey.similarity"),
            (#"{"file": "grey.mp4", "chromaKey": {"color": "green"}}"#, "clips[0].chromaKey.color"),
            (#"{"file": "grey.mp4", "chromaKey": {"tolerance": 0.1}}"#, "tolerance"),
            (#"{"file": "grey.mp4", "filters": "ColorCube:file=missing.cube"}"#, "clips[0].filters"),
        ]
        for (index, (clip, path)) in cases.enumerated() {
            let spec = directory.appendingPathComponent("bad-\(index).json")
            try #"{"clips": [\#(clip)]}"#.write(to: spec, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("bad.mp4").path])
            #expect(result.status != 0 && result.standardError.contains(path), "\(clip): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
    }
}

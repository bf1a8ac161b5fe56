import Foundation
import ReelComposition
import ReelTestSupport
import Testing

/// GIF, WebP and PNG-sequence outputs of `reel compose` (issue 22), judged by ffprobe and
/// by decoded pixels.
@Suite struct AnimatedExportTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-animated")
        // Scene 1: a grey ramp across the frame, 2 s; scene 2: saturated colour bars, 1 s.
        try LosslessClips.make("nullsrc=s=256x64:r=25:d=2,geq=lum='16+X*219/255':cb=128:cr=128,format=yuv420p", tone: 440,
                               seconds: 2, to: directory.appendingPathComponent("ramp.mp4"))
        try LosslessClips.make("testsrc2=s=256x64:r=25:d=1", tone: 660, seconds: 1, to: directory.appendingPathComponent("bars.mp4"))
    }

    private func compose(_ animation: String, to name: String) throws -> URL {
        let spec = directory.appendingPathComponent("\(name.replacingOccurrences(of: "/", with: "-")).json")
        try """
            {"renderSize": {"width": 256, "height": 64}, "frameRate": 25, "clips": [{"file": "ramp.mp4"}, {"file": "bars.mp4"}]\(animation)}
            """.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent(name)
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        return out
    }

    /// The distinct greys along the middle row of frame `index` (decoded by ffmpeg).
    private func greys(_ url: URL, frame index: Int) throws -> Int {
        let raw = directory.appendingPathComponent("\(url.lastPathComponent)-\(index).gray")
        try ProcessRunner.ffmpeg(["-i", url.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        return Set(bytes[(32 * 256)..<(33 * 256)]).count
    }

    /// 3 s at 25 fps: 75 pictures of 40 ms each (GIF delays are hundredths), 3.00 s in all.
    @Test func gifHasEveryFrameAtItsTime() throws {
        let gif = try compose("", to: "out.gif")
        let probe = try FFprobe.probe(gif)
        #expect(probe.streams.first?.codecName == "gif")
        #expect(try FFprobe.countFrames(gif) == 75)
        #expect(abs((probe.duration ?? 0) - 3) < 0.001, "\(probe.duration ?? 0) s")
        let packets = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", gif.path])
        let rows = packets.standardOutput.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(rows.count == 75)
        for (index, row) in rows.enumerated() {
            #expect(row.count == 2 && abs(row[0] - Double(index) * 0.04) < 1e-6 && abs(row[1] - 0.04) < 1e-6, "packet \(index): \(row)")
        }
    }

    /// One palette for the whole file spends colours on the bars; a palette per scene gives
    /// the grey ramp of the first scene all of its own, so more of its greys survive.
    @Test func palettePerSceneKeepsMoreOfEachScenesColours() throws {
        let file = try compose(#", "animation": {"palette": "file", "dither": "none"}"#, to: "file.gif")
        let scene = try compose(#", "animation": {"palette": "scene", "dither": "none"}"#, to: "scene.gif")
        let fileGreys = try greys(file, frame: 10), sceneGreys = try greys(scene, frame: 10)
        print("gif palettes: \(fileGreys) greys with one palette, \(sceneGreys) with a palette per scene")
        #expect(sceneGreys > fileGreys + 20, "\(sceneGreys) greys with a palette per scene, \(fileGreys) with one")
        // Both keep every frame.
        #expect(try FFprobe.countFrames(scene) == 75 && FFprobe.countFrames(file) == 75)
    }

    /// Dithering spreads the ramp's error into patterns: ordered (bayer) dithering gives a
    /// different picture from none, both decodable GIFs of 75 frames.
    @Test func ditheringChoiceChangesThePicture() throws {
        let none = try compose(#", "animation": {"dither": "none"}"#, to: "none.gif")
        let bayer = try compose(#", "animation": {"dither": "bayer"}"#, to: "bayer.gif")
        let a = try Data(contentsOf: none), b = try Data(contentsOf: bayer)
        #expect(a != b)
        #expect(try FFprobe.countFrames(bayer) == 75)
    }

    @Test func webpAndPngSequence() throws {
        let webp = try compose("", to: "out.webp")
        let probe = try FFprobe.probe(webp)
        #expect(probe.formatName.contains("webp"), "\(probe.formatName)")
        let header = [UInt8](try Data(contentsOf: webp).prefix(64))
        #expect(Array(header[8..<12]) == Array("WEBP".utf8) && String(decoding: header, as: UTF8.self).contains("ANIM"))
        let sequence = directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: sequence, withIntermediateDirectories: true)
        _ = try compose("", to: "frames/f-%03d.png")
        let names = try FileManager.default.contentsOfDirectory(atPath: sequence.path).sorted()
        #expect(names.count == 75 && names.first == "f-001.png" && names.last == "f-075.png")
        #expect(try FFprobe.probe(sequence.appendingPathComponent("f-040.png")).streams.first?.width == 256)
    }

    @Test(arguments: [
        (#"{"palette": "clip"}"#, "animation.palette: is file or scene, not 'clip'"),
        (#"{"dither": "floyd"}"#, "animation.dither: is sierra2_4a, sierra2, floyd_steinberg, bayer, heckbert, none, not 'floyd'"),
        (#"{"loop": -1}"#, "animation.loop: wants a whole number from 0 to 65535, not -1"),
        (#"{"fps": 10}"#, "unknown key 'fps' in animation"),
    ])
    func badAnimationKeysAreRefusedByTheirPath(animation: String, expected: String) {
        do {
            _ = try CompositionSpec(data: Data(#"{"clips": [{"file": "ramp.mp4"}], "animation": \#(animation)}"#.utf8), name: "t.json")
            Issue.record("accepted \(animation)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }
}

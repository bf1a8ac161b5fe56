import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// PNG sequences (`frames/f-%04d.png`) as layers and clips: their frames counted and timed
/// at the spec's `fps`, their alpha composited over the picture under them, judged on the
/// frames `reel compose` wrote; bad patterns refused in one line naming the spec path.
@Suite struct ImageSequenceTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-sequence")
        // The main track: flat grey 64 (full range), 320x180 at 25 fps, 2 s, a 440 Hz tone.
        try LosslessClips.make(
            "color=0x404040:s=320x180:r=25:d=2", tone: 440, seconds: 2,
            to: directory.appendingPathComponent("grey.mp4"))
        // Ten RGBA frames, 160x90, numbered from 1: the left quarter clear, the next quarter
        // white at alpha 128, the rest opaque at level 100 + 10 n for frame n (0 to 9), so the
        // frame shown tells the time it was taken at.
        let frames = directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i",
            "color=white:s=160x90:r=10:d=1,format=rgba,geq=r='if(lt(X,80),255,100+10*N)':g='if(lt(X,80),255,100+10*N)':b='if(lt(X,80),255,100+10*N)':a='if(lt(X,40),0,if(lt(X,80),128,255))'",
            "-start_number", "1", frames.appendingPathComponent("f-%04d.png").path,
        ])
    }

    /// Renders `json` and returns frame `index` as full-range grey (its luma plane).
    private func frame(_ json: String, name: String, index: Int) throws -> [UInt8] {
        let spec = directory.appendingPathComponent("\(name).json")
        let out = directory.appendingPathComponent("\(name).mp4")
        if !FileManager.default.fileExists(atPath: out.path) {
            try json.write(to: spec, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
            guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        }
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
                                  directory.appendingPathComponent("\(name)-\(index).png").path])
        let raw = directory.appendingPathComponent("\(name)-\(index).gray")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", "-f", "rawvideo",
                                  "-pix_fmt", "gray", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        guard bytes.count == 320 * 180 else { throw TestFailure("\(name) frame \(index): \(bytes.count) bytes") }
        return bytes
    }

    private func at(_ frame: [UInt8], _ x: Int, _ y: Int) -> Int { Int(frame[y * 320 + x]) }

    /// The asset of a pattern: one PNG video track of 10 frames lasting 1 s at 10 fps (0.4 s
    /// at 25), its pictures decoded with their alpha.
    @Test func theAssetCountsAndTimesTheFrames() throws {
        let pattern = directory.appendingPathComponent("frames/f-%04d.png")
        let asset = try Asset(imageSequence: pattern, frameRate: 10)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        #expect(track.codec == "png")
        #expect(track.frameCount == 10)
        #expect(abs(asset.duration.seconds - 1) < 1e-6, "\(asset.duration.seconds) s")
        #expect(Asset.isImageSequence(pattern))
        let faster = try Asset(imageSequence: pattern, frameRate: 25)
        #expect(abs(faster.duration.seconds - 0.4) < 1e-6, "\(faster.duration.seconds) s")
    }

    /// A sequence as a layer over the whole frame from 0.4 s, at 10 fps: before and after its
    /// second the frame is the grey under it; during it, clear shows the grey (64), half
    /// transparent white blends to 160 ± 3, and the opaque part shows frame n = (t - 0.4) × 10
    /// (level 100 + 10 n ± 3): the layer's timing and rate. The output has 50 frames.
    @Test func aLayerIsCompositedWithItsAlphaAndTimed() throws {
        let json = """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "frames/f-%04d.png", "fps": 10, "start": 0.4, "frame": {"x": 0, "y": 0, "width": 320, "height": 180}}]}
            """
        for index in [5, 45] {
            let picture = try frame(json, name: "layer", index: index)
            for x in [40, 120, 240] { #expect(abs(at(picture, x, 90) - 64) <= 3, "frame \(index) at x \(x): \(at(picture, x, 90))") }
        }
        // Output frame 15 is 0.6 s: layer frame 2; frame 20 (0.8 s) frame 4; 32 (1.28 s) frame 8.
        for (index, shown) in [(15, 2), (20, 4), (32, 8)] {
            let picture = try frame(json, name: "layer", index: index)
            for y in [20, 90, 160] {
                #expect(abs(at(picture, 40, y) - 64) <= 3, "frame \(index): clear at (40, \(y)): \(at(picture, 40, y))")
                #expect(abs(at(picture, 120, y) - 160) <= 3, "frame \(index): half at (120, \(y)): \(at(picture, 120, y))")
                #expect(abs(at(picture, 240, y) - (100 + 10 * shown)) <= 3,
                        "frame \(index): opaque at (240, \(y)) is \(at(picture, 240, y)), wanted layer frame \(shown)")
            }
        }
        #expect(try FFprobe.countFrames(directory.appendingPathComponent("layer.mp4")) == 50)
    }

    /// A sequence as a clip, then the grey clip: at 10 fps its 10 frames last 1 s (25 output
    /// frames), each shown for its tenth of a second, then the grey; 75 frames in all.
    @Test func aClipPlaysAtItsRate() throws {
        let json = """
            {"frameRate": 25, "renderSize": {"width": 320, "height": 180},
             "clips": [{"file": "frames/f-%04d.png", "fps": 10, "fit": "fill"}, {"file": "grey.mp4"}]}
            """
        for (index, shown) in [(0, 0), (6, 2), (24, 9)] {
            let picture = try frame(json, name: "clip", index: index)
            #expect(abs(at(picture, 240, 90) - (100 + 10 * shown)) <= 3,
                    "frame \(index) is \(at(picture, 240, 90)), wanted sequence frame \(shown)")
        }
        let after = try frame(json, name: "clip", index: 30)
        #expect(abs(at(after, 240, 90) - 64) <= 3, "frame 30 is the grey clip: \(at(after, 240, 90))")
        #expect(try FFprobe.countFrames(directory.appendingPathComponent("clip.mp4")) == 75)
    }

    /// Bad patterns: no frame, a gap, not PNG, a `%` that is no counter, a padding of 10,
    /// more than 100,000 frames, an `fps` for a movie or out of range. Each is refused in one
    /// line naming the spec path.
    @Test func badPatternsAreRefused() throws {
        let gaps = directory.appendingPathComponent("gaps")
        try FileManager.default.createDirectory(at: gaps, withIntermediateDirectories: true)
        for number in [1, 2, 4] {
            try FileManager.default.copyItem(at: directory.appendingPathComponent("frames/f-0001.png"),
                                             to: gaps.appendingPathComponent(String(format: "g-%04d.png", number)))
        }
        let many = directory.appendingPathComponent("many")
        try FileManager.default.createDirectory(at: many, withIntermediateDirectories: true)
        // 100,001 empty names (the count is refused before any frame is read), made in one go.
        let made = try ProcessRunner.run("/bin/sh", ["-c", "cd '\(many.path)' && seq 0 100000 | sed 's/^/m/; s/$/.png/' | xargs touch"],
                                         timeout: 600)
        try #require(made.status == 0, "\(made.standardError)")
        let cases: [(String, String, String)] = [
            (#""file": "frames/none-%04d.png""#, "layers[0].file", "no frames match"),
            (#""file": "gaps/g-%04d.png""#, "layers[0].file", "g-0003.png is missing"),
            (#""file": "frames/f-%04d.jpg""#, "layers[0].file", "PNG"),
            (#""file": "frames/f-%s.png""#, "layers[0].file", "not a frame counter"),
            (#""file": "frames/f-%010d.png""#, "layers[0].file", "not a frame counter"),
            (#""file": "frames/f-%04d-%d.png""#, "layers[0].file", "second %"),
            (#""file": "many/m%d.png""#, "layers[0].file", "100001 frames"),
            (#""file": "grey.mp4", "fps": 10"#, "layers[0].fps", "image sequence"),
            (#""file": "frames/f-%04d.png", "fps": 500"#, "layers[0].fps", "1 to 240"),
        ]
        for (index, (file, path, cause)) in cases.enumerated() {
            let spec = directory.appendingPathComponent("bad-\(index).json")
            try #"{"clips": [{"file": "grey.mp4"}], "layers": [{\#(file), "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}]}"#
                .write(to: spec, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("bad.mp4").path])
            #expect(result.status != 0 && result.standardError.contains(path) && result.standardError.contains(cause),
                    "\(file): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
        // As a clip, the spec path is the clip's.
        let spec = directory.appendingPathComponent("bad-clip.json")
        try #"{"clips": [{"file": "gaps/g-%04d.png", "fps": 12}]}"#.write(to: spec, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("bad.mp4").path])
        #expect(result.status != 0 && result.standardError.contains("clips[0].file"), "\(result.standardError)")
    }
}

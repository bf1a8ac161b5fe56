import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// A PNG sequence with transparency as a main clip (not a layer): where its pictures are
/// clear the composition's background (black) shows, as AVFoundation shows a clip with alpha
/// over an empty background; where they are opaque, their colour. A dissolve into it and out
/// of it mixes that picture (background where clear) with the grey clips beside it. Judged on
/// the RGB of the frames `reel compose` wrote.
@Suite struct AlphaClipTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-alpha-clip")
        // Grey 128 (full range), 160x90 at 25 fps, 1 s, a 440 Hz tone.
        try LosslessClips.make(
            "color=0x808080:s=160x90:r=25:d=1", tone: 440, seconds: 1,
            to: directory.appendingPathComponent("grey.mp4"))
        // 25 RGBA pictures, 160x90: the left half green at alpha 0 (a clip drawn opaque shows
        // the green), the right half opaque red.
        let frames = directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i",
            "color=black:s=160x90:r=25:d=1,format=rgba,geq=r='if(lt(X,80),0,255)':g='if(lt(X,80),255,0)':b=0:a='if(lt(X,80),0,255)'",
            "-start_number", "0", frames.appendingPathComponent("a-%03d.png").path,
        ])
    }

    /// Composes `json` and returns its frames as RGB24, with how many there are.
    private func render(_ json: String, name: String) throws -> (pixels: [UInt8], count: Int) {
        let spec = directory.appendingPathComponent("\(name).json")
        let out = directory.appendingPathComponent("\(name).mp4")
        try json.write(to: spec, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        let raw = directory.appendingPathComponent("\(name).rgb")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        let size = 160 * 90 * 3
        guard bytes.count % size == 0 else { throw TestFailure("\(name): \(bytes.count) bytes") }
        // Each looked at, as a user would: frame 0 as a PNG beside the movie.
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-frames:v", "1", directory.appendingPathComponent("\(name)-0.png").path])
        return (bytes, bytes.count / size)
    }

    /// The colour of frame `index` at (x, y).
    private func colour(_ frames: (pixels: [UInt8], count: Int), _ index: Int, _ x: Int, _ y: Int) -> [Int] {
        let at = index * 160 * 90 * 3 + (y * 160 + x) * 3
        return (0..<3).map { Int(frames.pixels[at + $0]) }
    }

    private func near(_ got: [Int], _ wanted: [Int], within tolerance: Int = 8) -> Bool {
        zip(got, wanted).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// Alone: every frame black on the left (not the green under alpha 0), red on the right.
    @Test func theBackgroundShowsThroughAClipsClearParts() throws {
        let frames = try render(
            """
            {"frameRate": 25, "renderSize": {"width": 160, "height": 90},
             "clips": [{"file": "frames/a-%03d.png", "fps": 25}]}
            """, name: "alone")
        #expect(frames.count == 25)
        for index in [0, 12, 24] {
            for (x, y) in [(20, 20), (60, 70)] {
                #expect(
                    near(colour(frames, index, x, y), [0, 0, 0]),
                    "frame \(index) clear (\(x), \(y)): \(colour(frames, index, x, y))")
            }
            for (x, y) in [(100, 20), (140, 70)] {
                #expect(
                    near(colour(frames, index, x, y), [255, 0, 0], within: 12),
                    "frame \(index) opaque (\(x), \(y)): \(colour(frames, index, x, y))")
            }
        }
    }

    /// grey, dissolve 0.4 s, the sequence (1 s), dissolve 0.4 s, grey: 2.2 s, 55 frames. Into
    /// it (0.6–1 s) the grey fades off the sequence over black: at 0.8 s half grey over black
    /// on the left (64) and over red on the right (191, 64, 64). Between (1–1.2 s) black and
    /// red. Out of it (1.2–1.6 s) the sequence, black where clear, fades into the next grey:
    /// 1.24 s is a tenth of the way (13 on the left), 1.4 s half (64), never the grey showing
    /// through the clear half at once (128).
    @Test func aDissolveMixesTheClipAsItShows() throws {
        let frames = try render(
            """
            {"frameRate": 25, "renderSize": {"width": 160, "height": 90},
             "clips": [{"file": "grey.mp4", "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "frames/a-%03d.png", "fps": 25, "transition": {"type": "dissolve", "duration": 0.4}},
                       {"file": "grey.mp4"}]}
            """, name: "dissolve")
        #expect(frames.count == 55)
        let cases: [(frame: Int, left: [Int], right: [Int])] = [
            (10, [128, 128, 128], [128, 128, 128]),
            (20, [64, 64, 64], [191, 64, 64]),
            (27, [0, 0, 0], [255, 0, 0]),
            (31, [13, 13, 13], [242, 13, 13]),
            (35, [64, 64, 64], [191, 64, 64]),
            (45, [128, 128, 128], [128, 128, 128]),
        ]
        for (frame, left, right) in cases {
            for y in [20, 70] {
                #expect(
                    near(colour(frames, frame, 30, y), left),
                    "frame \(frame) left (30, \(y)): \(colour(frames, frame, 30, y)), wanted \(left)")
                #expect(
                    near(colour(frames, frame, 130, y), right, within: 12),
                    "frame \(frame) right (130, \(y)): \(colour(frames, frame, 130, y)), wanted \(right)")
            }
        }
    }

    /// In the library: the sequence as a ``ClipSequence`` clip, its instructions' background
    /// set to blue, exported: the clear half is the instruction's blue (0, 0, 255), not black
    /// nor the green stored under alpha 0; the opaque half red.
    @Test func theInstructionsBackgroundColourShows() async throws {
        let asset = try Asset(imageSequence: directory.appendingPathComponent("frames/a-%03d.png"), frameRate: 25)
        let sequence = try ClipSequence(clips: [ClipSequence.Clip(pictureOf: asset)], renderSize: Size(width: 160, height: 90))
        var video = sequence.videoComposition
        for index in video.instructions.indices { video.instructions[index].backgroundColor = (red: 0, green: 0, blue: 1) }
        let out = directory.appendingPathComponent("blue.mp4")
        let session = sequence.exportSession(preset: .highestQuality, to: out, fileType: .mp4)
        session.videoComposition = video
        try await session.export()
        let raw = directory.appendingPathComponent("blue.rgb")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        let frames = (pixels: bytes, count: bytes.count / (160 * 90 * 3))
        #expect(frames.count == 25)
        for index in [0, 24] {
            #expect(
                near(colour(frames, index, 30, 45), [0, 0, 255], within: 12),
                "frame \(index) clear: \(colour(frames, index, 30, 45))")
            #expect(
                near(colour(frames, index, 130, 45), [255, 0, 0], within: 12),
                "frame \(index) opaque: \(colour(frames, index, 130, 45))")
        }
    }

    /// The same picture as ProRes 4444 (yuva444p) and as VP9 with alpha in WebM (whose
    /// stream reads yuv420p; `alpha_mode` 1 says libvpx decodes an alpha): as a main clip each
    /// shows black where clear and red where opaque.
    @Test func proResAndVP9AlphaClipsShowTheBackground() throws {
        let picture =
            "color=black:s=160x90:r=25:d=1,format=rgba,geq=r='if(lt(X,80),0,255)':g='if(lt(X,80),255,0)':b=0:a='if(lt(X,80),0,255)'"
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", picture, "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le",
            directory.appendingPathComponent("alpha.mov").path,
        ])
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", picture, "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-auto-alt-ref", "0",
            directory.appendingPathComponent("alpha.webm").path,
        ])
        for file in ["alpha.mov", "alpha.webm"] {
            let frames = try render(
                """
                {"frameRate": 25, "renderSize": {"width": 160, "height": 90}, "clips": [{"file": "\(file)"}]}
                """, name: file.replacingOccurrences(of: ".", with: "-"))
            #expect(frames.count == 25, "\(file)")
            for index in [0, 24] {
                #expect(
                    near(colour(frames, index, 30, 45), [0, 0, 0], within: 12),
                    "\(file) frame \(index) clear: \(colour(frames, index, 30, 45))")
                #expect(
                    near(colour(frames, index, 130, 45), [255, 0, 0], within: 12),
                    "\(file) frame \(index) opaque: \(colour(frames, index, 130, 45))")
            }
        }
    }
}

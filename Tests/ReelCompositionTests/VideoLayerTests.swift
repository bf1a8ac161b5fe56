import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Video layers (picture in picture, layers with alpha), judged on frames `reel compose`
/// wrote, decoded by the ffmpeg CLI: where the rectangle is, what shows inside and outside
/// it, how its opacity, corners, border and alpha blend with the picture under it.
@Suite struct VideoLayerTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-layers")
        // The main track: flat grey 64 (full range), 320x180 at 25 fps, 2 s, a 440 Hz tone.
        try LosslessClips.make(
            "color=0x404040:s=320x180:r=25:d=2", tone: 440, seconds: 2,
            to: directory.appendingPathComponent("grey.mp4"))
        // The layer: flat light grey 192, 160x90, 2 s.
        try LosslessClips.make(
            "color=0xC0C0C0:s=160x90:r=25:d=2", tone: 880, seconds: 2,
            to: directory.appendingPathComponent("light.mp4"))
    }

    /// Renders `json` and returns frame `index` as a full-range grey picture (kept as a PNG).
    private func frame(
        _ json: String, name: String, index: Int, size: (Int, Int) = (320, 180),
        format: String = "gray"
    ) throws -> [UInt8] {
        let spec = directory.appendingPathComponent("\(name).json")
        let out = directory.appendingPathComponent("\(name).mp4")
        if !FileManager.default.fileExists(atPath: out.path) {
            try json.write(to: spec, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
            guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        }
        let picture = directory.appendingPathComponent("\(name)-\(index).png")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", picture.path])
        let raw = directory.appendingPathComponent("\(name)-\(index).\(format)")
        // Straight from the movie: grey is its luma plane (range-expanded), not a mix of R, G, B.
        try ProcessRunner.ffmpeg([
            "-y", "-i", out.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", "-f", "rawvideo",
            "-pix_fmt", format, raw.path,
        ])
        let bytes = [UInt8](try Data(contentsOf: raw))
        let channels = format == "gray" ? 1 : 3
        guard bytes.count == size.0 * size.1 * channels else { throw TestFailure("\(name) frame \(index): \(bytes.count) bytes") }
        return bytes
    }

    private func at(_ frame: [UInt8], _ x: Int, _ y: Int, width: Int = 320) -> Int { Int(frame[y * width + x]) }

    /// A 80x45 layer at (100, 50), half opaque, from 0.4 s: before it, the frame is the grey
    /// under it; from then on, inside the rectangle (3 pixels in from each edge: the encoder
    /// rings by up to 4 at a sharp edge) the mix of 192 and 64 (128 ± 3), outside it (3 pixels
    /// out) 64 ± 3.
    @Test func pictureInPicturePlacementAndOpacity() throws {
        let json = """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "light.mp4", "start": 0.4, "frame": {"x": 100, "y": 50, "width": 80, "height": 45}, "opacity": 0.5}]}
            """
        let before = try frame(json, name: "pip", index: 5)
        #expect(abs(at(before, 140, 72) - 64) <= 3, "before the layer starts: \(at(before, 140, 72))")
        let during = try frame(json, name: "pip", index: 20)
        for (x, y) in [(140, 72), (103, 53), (176, 91), (103, 91), (176, 53)] {
            #expect(abs(at(during, x, y) - 128) <= 3, "inside at (\(x), \(y)): \(at(during, x, y))")
        }
        for (x, y) in [(96, 72), (183, 72), (140, 46), (140, 98), (20, 20), (300, 160)] {
            #expect(abs(at(during, x, y) - 64) <= 3, "outside at (\(x), \(y)): \(at(during, x, y))")
        }
    }

    /// An opaque layer with 20 px corners and a 4 px red border: the corner pixel shows the
    /// grey under it, the border its red (luma 76: BT.601 below 720 lines, as Reel decodes
    /// such a source), the middle the layer's 192.
    @Test func cornersAndBorder() throws {
        let json = """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "light.mp4", "frame": {"x": 100, "y": 50, "width": 160, "height": 90},
                         "cornerRadius": 20, "border": {"width": 4, "color": "#ff0000"}}]}
            """
        let picture = try frame(json, name: "corners", index: 10)
        #expect(abs(at(picture, 101, 51) - 64) <= 3, "the corner: \(at(picture, 101, 51))")
        #expect(abs(at(picture, 258, 138) - 64) <= 3, "the far corner: \(at(picture, 258, 138))")
        #expect(abs(at(picture, 101, 95) - 76) <= 4, "the left border: \(at(picture, 101, 95))")
        #expect(abs(at(picture, 180, 52) - 76) <= 4, "the top border: \(at(picture, 180, 52))")
        #expect(abs(at(picture, 180, 95) - 192) <= 3, "the middle: \(at(picture, 180, 95))")
        #expect(abs(at(picture, 97, 95) - 64) <= 3, "left of it: \(at(picture, 97, 95))")
    }

    /// A layer with alpha over the whole frame: a white picture whose left quarter is clear,
    /// the next quarter half transparent (alpha 128) and the rest opaque. Clear shows the grey
    /// (64), half blends to 160 ± 3, opaque is white; the edge between half and opaque is a
    /// step of one or two pixels (the source is scaled 2x).
    @Test(arguments: ["prores4444.mov", "vp9alpha.webm"])
    func alphaEdgesBlend(_ name: String) throws {
        let source = directory.appendingPathComponent(name)
        let codec =
            name.hasSuffix(".mov")
            ? ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"]
            : ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-lossless", "1"]
        try ProcessRunner.ffmpeg(
            [
                "-f", "lavfi", "-i",
                "color=white:s=160x90:r=25:d=2,format=rgba,geq=r=255:g=255:b=255:a='if(lt(X,40),0,if(lt(X,80),128,255))'",
            ]
                + codec + [source.path])
        let json = """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "\(name)", "frame": {"x": 0, "y": 0, "width": 320, "height": 180}}]}
            """
        let picture = try frame(json, name: "alpha-\(name)", index: 10)
        for y in [20, 90, 160] {
            #expect(abs(at(picture, 40, y) - 64) <= 3, "clear at (40, \(y)): \(at(picture, 40, y))")
            #expect(abs(at(picture, 120, y) - 160) <= 3, "half at (120, \(y)): \(at(picture, 120, y))")
            #expect(abs(at(picture, 240, y) - 255) <= 3, "opaque at (240, \(y)): \(at(picture, 240, y))")
        }
        // Across the clear/half edge at x = 80, the level rises in at most 3 pixels.
        let row = (72...88).map { at(picture, $0, 90) }
        let rising = row.filter { $0 > 64 + 3 && $0 < 160 - 3 }.count
        #expect(rising <= 3, "the clear-to-half edge is soft over \(rising) pixels: \(row)")
    }

    /// Keyframes move the layer: a position animation from x = 60 to x = 260 (its centre) over
    /// the first second, eased linearly: at frame 0 the layer's middle is at 60, at frame 25 at 260.
    @Test func keyframesMoveTheLayer() throws {
        let json = """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "light.mp4", "frame": {"x": 20, "y": 70, "width": 80, "height": 45},
                         "animations": [{"property": "position", "values": [[60, 92], [260, 92]], "begin": 0, "duration": 1,
                                         "removedOnCompletion": false}]}]}
            """
        let first = try frame(json, name: "moving", index: 0)
        #expect(abs(at(first, 60, 92) - 192) <= 3 && abs(at(first, 140, 92) - 64) <= 3)
        let half = try frame(json, name: "moving", index: 12)
        // 12/25 of the way: centre 156, the layer 116…196.
        #expect(abs(at(half, 156, 92) - 192) <= 3 && abs(at(half, 110, 92) - 64) <= 3 && abs(at(half, 202, 92) - 64) <= 3)
        let last = try frame(json, name: "moving", index: 30)
        #expect(abs(at(last, 260, 92) - 192) <= 3 && abs(at(last, 60, 92) - 64) <= 3)
    }

    /// The layer's sound is mixed in: the output has the main 440 Hz tone and, while the layer
    /// plays, its 880 Hz tone; a spec without a layer has no 880 Hz.
    @Test func layerSoundIsMixed() throws {
        let json = """
            {"frameRate": 25, "clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "light.mp4", "start": 1, "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}]}
            """
        _ = try frame(json, name: "sound", index: 0)
        let out = directory.appendingPathComponent("sound.mp4")
        func level(_ from: Double, _ filter: String) throws -> Double {
            let result = try ProcessRunner.run(
                "ffmpeg",
                [
                    "-hide_banner", "-ss", "\(from)", "-t", "0.5", "-i", out.path, "-af",
                    "\(filter),volumedetect", "-f", "null", "-",
                ])
            guard let line = result.standardError.split(separator: "\n").first(where: { $0.contains("mean_volume") }),
                let value = Double(line.split(separator: " ").dropLast().last ?? "")
            else {
                throw TestFailure("no volume: \(result.standardError.suffix(300))")
            }
            return value
        }
        let before = try level(0.3, "bandpass=f=880:width_type=q:w=10")
        let during = try level(1.3, "bandpass=f=880:width_type=q:w=10")
        #expect(during - before > 20, "880 Hz before the layer \(before) dB, during \(during) dB")
    }

    /// The timeline picture draws a layer in lanes of its own (picture and sound), shaded,
    /// below the main tracks: two rows (88 pixels) taller than without it.
    @Test func timelineDrawsLayerLanes() throws {
        func timeline(_ json: String, _ name: String) throws -> (height: Int, pixel: (Int) -> [UInt8]) {
            let spec = directory.appendingPathComponent("\(name).json")
            try json.write(to: spec, atomically: true, encoding: .utf8)
            let png = directory.appendingPathComponent("\(name).png")
            let result = try ProcessRunner.reel(["timeline", spec.path, "-o", png.path, "--width", "800"])
            guard result.status == 0 else { throw TestFailure("reel timeline: \(result.standardError)") }
            let probe = try FFprobe.probe(png)
            let height = probe.streams.first?.height ?? 0
            let raw = directory.appendingPathComponent("\(name).rgb")
            try ProcessRunner.ffmpeg(["-y", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            let bytes = [UInt8](try Data(contentsOf: raw))
            return (height, { y in Array(bytes[(y * 800 + 2) * 3..<(y * 800 + 2) * 3 + 3]) })
        }
        let plain = try timeline(#"{"clips": [{"file": "grey.mp4"}]}"#, "timeline-plain")
        let layered = try timeline("""
            {"clips": [{"file": "grey.mp4"}],
             "layers": [{"file": "light.mp4", "start": 0.5, "frame": {"x": 10, "y": 10, "width": 80, "height": 45}}]}
            """, "timeline-layer")
        #expect(layered.height - plain.height == 88, "heights \(plain.height) and \(layered.height)")
        // Rows: video 1, video 2, audio 3, audio 4, then the layer's picture and sound lanes.
        #expect(layered.pixel(30 + 4 * 44 + 5) == [34, 34, 44], "\(layered.pixel(30 + 4 * 44 + 5))")
        #expect(layered.pixel(30 + 5 * 44 + 5) == [34, 34, 44])
        #expect(layered.pixel(30 + 3 * 44 + 5) == [24, 24, 28])
    }

    /// Bad layers are refused by their spec path, in one line.
    @Test func badLayersAreRefused() throws {
        let cases: [(String, String)] = [
            (#"{"file": "light.mp4", "frame": {"x": 0, "y": 0, "width": 0, "height": 45}}"#, "layers[0].frame.width"),
            (#"{"file": "light.mp4", "start": 5, "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#, "layers[0].start"),
            (#"{"file": "light.mp4", "speed": 40, "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#, "layers[0].speed"),
            (#"{"file": "light.mp4", "opacity": 2, "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#, "layers[0].opacity"),
            (#"{"file": "light.mp4", "fit": "zoom", "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#, "layers[0].fit"),
            (#"{"file": "light.mp4", "frame": {"x": 0, "y": 0, "width": 80, "height": 45}, "shadow": 3}"#, "shadow"),
            (#"{"file": "nothere.mp4", "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#, "layers[0].file"),
            (#"{"file": "still.png", "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#, "layers[0].file"),
            (
                #"{"file": "light.mp4", "range": {"start": 1, "end": 9}, "frame": {"x": 0, "y": 0, "width": 80, "height": 45}}"#,
                "layers[0].range.end"
            ),
        ]
        try ProcessRunner.ffmpeg(["-y", "-f", "lavfi", "-i", "color=red:s=64x64", "-frames:v", "1",
                                  directory.appendingPathComponent("still.png").path])
        for (index, (layer, path)) in cases.enumerated() {
            let spec = directory.appendingPathComponent("bad-\(index).json")
            try #"{"clips": [{"file": "grey.mp4"}], "layers": [\#(layer)]}"#.write(to: spec, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("bad.mp4").path])
            #expect(result.status != 0 && result.standardError.contains(path), "\(layer): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
    }
}

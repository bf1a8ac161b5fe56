import Foundation
import ReelTestSupport
import Testing

/// The colours Reel writes read back as they were specified: overlays (a plain fill, a scaled
/// colour, a picture, text), a styled layer and a clip scaled across 720 lines, on an SD and an
/// HD output, decoded by the ffmpeg CLI with the matrix the file is tagged with; and the tags
/// themselves (BT.601 as `smpte170m` below 720 lines, BT.709 from 720 up, video range).
@Suite struct ColorFidelityTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-color")
        // Teal (48, 160, 192) at both sizes, each in its own size's matrix and tagged so, as a
        // camera writes it; lossless, so the only change is Reel's.
        // Also each size in the other's matrix, tagged so (an SD file kept in BT.709 by the
        // tool that scaled it down): read by its tag, not by its height.
        for (name, size, matrix) in [
            ("teal-hd", "1280x720", "bt709"), ("teal-sd", "640x360", "smpte170m"), ("teal-sd709", "640x360", "bt709"),
            ("teal-hd601", "1280x720", "smpte170m"),
        ] {
            try ProcessRunner.ffmpeg([
                "-f", "lavfi", "-i",
                "color=0x30A0C0:s=\(size):r=25:d=1,format=rgb24,scale=out_color_matrix=\(matrix == "bt709" ? "bt709" : "bt601"):out_range=tv,format=yuv420p",
                "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-colorspace", matrix, "-color_primaries", matrix,
                "-color_trc", matrix, "-color_range", "tv", directory.appendingPathComponent("\(name).mp4").path,
            ])
        }
        // A saturated red (192, 48, 48), 320x180 (BT.601), for the styled layer.
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=0xC03030:s=320x180:r=25:d=1,format=rgb24,scale=out_color_matrix=bt601:out_range=tv,format=yuv420p",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-colorspace", "smpte170m",
            directory.appendingPathComponent("red.mp4").path,
        ])
        // Pure blue, as a picture overlay.
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=0x0000FF:s=64x64,format=rgb24", "-frames:v", "1",
            directory.appendingPathComponent("blue.png").path,
        ])
    }

    /// What is drawn where, in render pixels of a 640x360 frame (scaled by `k` for a bigger one),
    /// the colour it must read back as, and how near. Overlays are converted once, from the
    /// colour given: within 3. A clip or a layer is converted by libswscale on the way in (YCbCr
    /// to YCbCr across 720 lines, or to RGB for a styled layer), which is itself off by up to 4
    /// on these colours (the ffmpeg CLI's `scale` gives the same), so within 5 (before, 9 and 19).
    private struct Probe {
        var name: String
        var x: Int
        var y: Int
        var expected: (Int, Int, Int)
        var tolerance = 3
    }

    private let probes = [
        Probe(name: "the clip (scaled across 720 lines)", x: 600, y: 330, expected: (48, 160, 192), tolerance: 5),
        Probe(name: "red fill", x: 80, y: 80, expected: (255, 0, 0)),
        Probe(name: "green scaled colour", x: 260, y: 80, expected: (0, 255, 0)),
        Probe(name: "blue picture", x: 400, y: 80, expected: (0, 0, 255)),
        Probe(name: "grey rotated colour", x: 540, y: 80, expected: (128, 128, 128)),
        Probe(name: "red styled layer", x: 120, y: 245, expected: (192, 48, 48), tolerance: 5),
    ]

    private func spec(width: Int, height: Int, clip: String) -> String {
        let k = Double(width) / 640
        func box(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> String {
            "{ \"x\": \(Double(x) * k), \"y\": \(Double(y) * k), \"width\": \(Double(w) * k), \"height\": \(Double(h) * k) }"
        }
        return """
            {
              "renderSize": { "width": \(width), "height": \(height) },
              "frameRate": 25,
              "clips": [ { "file": "\(clip).mp4" } ],
              "layers": [ { "file": "red.mp4", "frame": \(box(40, 200, 160, 90)), "cornerRadius": \(8 * k) } ],
              "overlays": [
                { "type": "color", "color": "#ff0000", "frame": \(box(40, 40, 80, 80)) },
                { "type": "color", "color": "#00ff00", "frame": \(box(230, 50, 60, 60)),
                  "animations": [ { "property": "scale", "values": [1.5, 1.5], "begin": 0, "duration": 10 } ] },
                { "type": "image", "file": "blue.png", "frame": \(box(360, 40, 80, 80)) },
                { "type": "color", "color": "#808080", "frame": \(box(500, 40, 80, 80)),
                  "animations": [ { "property": "rotation", "values": [0.3, 0.3], "begin": 0, "duration": 10 } ] },
                { "type": "text", "text": "\u{2588}\u{2588}", "fontSize": \(Int(60 * k)), "color": "#0000ff",
                  "frame": \(box(220, 200, 200, 100)) }
              ]
            }
            """
    }

    /// Renders the spec at `width`x`height` over the clip of the other size, checks the tags, and
    /// returns frame 10 as RGB decoded with the tagged matrix.
    private func render(width: Int, height: Int, clip: String, name: String) throws -> (rgb: [UInt8], stream: FFprobe.Stream) {
        let specURL = directory.appendingPathComponent("\(name).json")
        let out = directory.appendingPathComponent("\(name).mp4")
        try spec(width: width, height: height, clip: clip).write(to: specURL, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.reel(["compose", specURL.path, "-o", out.path], timeout: 600)
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        return try decoded(out, name: name)
    }

    /// Frame 10 of `out` as RGB, decoded by the ffmpeg CLI with the matrix its stream is tagged with.
    private func decoded(_ out: URL, name: String, flags: String = "") throws -> (rgb: [UInt8], stream: FFprobe.Stream) {
        guard let stream = try FFprobe.probe(out).streams(ofType: "video").first else {
            throw TestFailure("\(name): no video stream")
        }
        let raw = directory.appendingPathComponent("\(name).rgb")
        // Untagged (or a tag the scaler lacks): ffmpeg's own guess.
        let matrix = stream.colorSpace.map { $0 == "unknown" ? "auto" : $0 } ?? "auto"
        try ProcessRunner.ffmpeg([
            "-i", out.path, "-vf", "select=eq(n\\,10),scale=in_color_matrix=\(matrix):in_range=tv:out_range=pc\(flags),format=rgb24",
            "-frames:v", "1", "-f", "rawvideo", raw.path,
        ])
        try ProcessRunner.ffmpeg([
            "-i", out.path, "-vf", "select=eq(n\\,10),scale=in_color_matrix=\(matrix):in_range=tv:out_range=pc",
            "-frames:v", "1", directory.appendingPathComponent("\(name).png").path,
        ])
        return ([UInt8](try Data(contentsOf: raw)), stream)
    }

    private func check(_ rgb: [UInt8], width: Int, label: String) {
        let k = Double(width) / 640
        for probe in probes {
            let x = Int(Double(probe.x) * k), y = Int(Double(probe.y) * k)
            let i = 3 * (y * width + x)
            guard i + 2 < rgb.count else {
                Issue.record("\(label) \(probe.name): outside the frame")
                continue
            }
            let seen = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
            let off = max(abs(seen.0 - probe.expected.0), abs(seen.1 - probe.expected.1), abs(seen.2 - probe.expected.2))
            #expect(off <= probe.tolerance, "\(label) \(probe.name): \(seen), specified \(probe.expected)")
        }
        // The text: its inside (the pixels farthest from the teal behind it) is the blue given.
        var bluest = (0, 0, 0)
        for y in Int(200 * k)..<Int(300 * k) {
            for x in Int(220 * k)..<Int(420 * k) {
                let i = 3 * (y * width + x)
                let pixel = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
                if pixel.2 - pixel.1 - pixel.0 > bluest.2 - bluest.1 - bluest.0 { bluest = pixel }
            }
        }
        #expect(bluest.0 <= 3 && bluest.1 <= 3 && bluest.2 >= 252, "\(label) text: \(bluest), specified (0, 0, 255)")
    }

    private func tags(_ stream: FFprobe.Stream) -> String {
        [stream.colorSpace, stream.colorPrimaries, stream.colorTransfer, stream.colorRange]
            .map { $0 ?? "absent" }.joined(separator: "/")
    }

    /// `reel transcode` to each codec, down from HD and up from SD: each file is tagged with the
    /// matrix of its own height, and the teal reads back within 5 of (48, 160, 192) (converted
    /// between the matrices by libswscale, as the clip above).
    @Test func transcodesAreTaggedWithTheMatrixTheyWrote() throws {
        for codec in ["h264", "hevc", "prores", "vp9"] {
            for (clip, size, expected) in [("teal-hd", "640x360", "smpte170m"), ("teal-sd", "1280x720", "bt709")] {
                let name = "\(codec)-\(size)"
                let out = directory.appendingPathComponent("\(name).\(codec == "prores" ? "mov" : codec == "vp9" ? "webm" : "mp4")")
                let result = try ProcessRunner.reel(
                    ["transcode", directory.appendingPathComponent("\(clip).mp4").path, "-o", out.path, "--codec", codec,
                     "--size", size], timeout: 600)
                guard result.status == 0 else { throw TestFailure("reel transcode \(name): \(result.standardError)") }
                try checkTeal(out, name: name, tagged: expected)
            }
        }
    }

    /// A source tagged with the other size's matrix is read by its tag: a 640x360 file in BT.709
    /// and a 1280x720 one in BT.601, each transcoded at its own size into the matrix of that size
    /// (read by height, the teal came back (56, 169, 188) from the first and (36, 150, 195) from the second).
    @Test func sourcesAreReadInTheMatrixTheyAreTaggedWith() throws {
        for (clip, expected) in [("teal-sd709", "smpte170m"), ("teal-hd601", "bt709")] {
            let out = directory.appendingPathComponent("\(clip)-out.mp4")
            let result = try ProcessRunner.reel(["transcode", directory.appendingPathComponent("\(clip).mp4").path, "-o", out.path], timeout: 600)
            guard result.status == 0 else { throw TestFailure("reel transcode \(clip): \(result.standardError)") }
            try checkTeal(out, name: "\(clip)-out", tagged: expected)
        }
    }

    /// `out` is tagged `matrix` in all three fields, video range, and its middle pixel reads
    /// back within 5 of the teal (48, 160, 192).
    private func checkTeal(_ out: URL, name: String, tagged matrix: String) throws {
        let (rgb, stream) = try decoded(out, name: name)
        #expect(tags(stream) == "\(matrix)/\(matrix)/\(matrix)/tv", "\(name) tags: \(tags(stream))")
        let width = stream.width ?? 0, height = stream.height ?? 0
        let i = 3 * ((height / 2) * width + width / 2)
        guard i + 2 < rgb.count else {
            Issue.record("\(name): \(rgb.count) bytes for \(width)x\(height)")
            return
        }
        let seen = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
        #expect(abs(seen.0 - 48) <= 5 && abs(seen.1 - 160) <= 5 && abs(seen.2 - 192) <= 5, "\(name): \(seen), the source (48, 160, 192)")
    }

    /// The matrix a picture `height` lines high is made in (Reel's rule): the name the
    /// `scale` filter takes and the tag.
    private static func matrix(height: Int) -> (scale: String, tag: String) {
        height >= 720 ? ("bt709", "bt709") : ("bt601", "smpte170m")
    }

    /// Five stripes of colour, each a fifth of the width: teal, red, skin, yellow-green, purple.
    private static let stripes = [(48, 160, 192), (192, 48, 48), (224, 160, 128), (160, 192, 64), (112, 64, 176)]

    /// The stripes at `width`x`height`, each colour's YCbCr in that size's matrix rounded from
    /// the exact weights (libswscale's own conversion is off by one here and there), tagged
    /// so, lossless.
    private func stripesClip(width: Int, height: Int) throws -> URL {
        let matrix = Self.matrix(height: height)
        let (kr, kb) = height >= 720 ? (0.2126, 0.0722) : (0.299, 0.114)
        let samples = Self.stripes.map { colour -> (UInt8, UInt8, UInt8) in
            let (r, g, b) = (Double(colour.0) / 255, Double(colour.1) / 255, Double(colour.2) / 255)
            let y = kr * r + (1 - kr - kb) * g + kb * b
            return (UInt8((16 + 219 * y).rounded()), UInt8((128 + 224 * (b - y) / (2 * (1 - kb))).rounded()),
                    UInt8((128 + 224 * (r - y) / (2 * (1 - kr))).rounded()))
        }
        func stripe(_ x: Int, _ w: Int) -> Int { min(x * 5 / w, 4) }
        var frame = [UInt8]()
        for _ in 0..<height { frame += (0..<width).map { samples[stripe($0, width)].0 } }
        for _ in 0..<height / 2 { frame += (0..<width / 2).map { samples[stripe($0, width / 2)].1 } }
        for _ in 0..<height / 2 { frame += (0..<width / 2).map { samples[stripe($0, width / 2)].2 } }
        let raw = directory.appendingPathComponent("stripes-\(width)x\(height).yuv")
        try Data(frame).write(to: raw)
        let url = directory.appendingPathComponent("stripes-\(width)x\(height).mp4")
        try ProcessRunner.ffmpeg([
            "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-r", "25", "-stream_loop", "24", "-i", raw.path,
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-colorspace", matrix.tag, "-color_primaries", matrix.tag,
            "-color_trc", matrix.tag, "-color_range", "tv", url.path,
        ])
        return url
    }

    /// A look does to a colour at 640x360 (BT.601) what it does at 1280x720 (BT.709): each
    /// stripe through `reel filter` (lossless), decoded with the file's tag (libswscale's
    /// accurate rounding), compared with the HD result. Before, the looks' BT.709 tables ran on
    /// BT.601 samples: the sizes were apart by up to 18 under Noir (grey from luma), 4 under
    /// Chrome and Instant, 3 under Fade. Now within 2, but Chrome within 3: its 1.35 saturation
    /// and 1.15 contrast carry each size's rounding of the source and of the result (the
    /// teal's blue is 219.8 at 640x360 and 217.4 at 1280x720 decoded exactly, the true 217.5).
    @Test func looksGiveTheSameColoursAtEverySize() throws {
        let sd = try stripesClip(width: 640, height: 360), hd = try stripesClip(width: 1280, height: 720)
        for (look, tolerance) in [("PhotoEffectChrome", 3), ("PhotoEffectInstant", 2), ("PhotoEffectNoir", 2), ("PhotoEffectFade", 2)] {
            var seen: [[(Int, Int, Int)]] = []
            for (clip, width) in [(sd, 640), (hd, 1280)] {
                let name = "look-\(look)-\(width)"
                let out = directory.appendingPathComponent("\(name).mp4")
                let result = try ProcessRunner.reel(["filter", clip.path, "--filter", look, "-o", out.path, "--crf", "0",
                                                     "--preset", "ultrafast"], timeout: 600)
                guard result.status == 0 else { throw TestFailure("reel filter \(name): \(result.standardError)") }
                let (rgb, stream) = try decoded(out, name: name, flags: ":flags=accurate_rnd+full_chroma_int")
                let height = stream.height ?? 0
                seen.append((0..<Self.stripes.count).map { index in
                    let i = 3 * ((height / 2) * width + (2 * index + 1) * width / 10)
                    guard i + 2 < rgb.count else { return (-99, -99, -99) }
                    return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
                })
            }
            for (index, colour) in Self.stripes.enumerated() {
                let (a, b) = (seen[0][index], seen[1][index])
                let off = max(abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2))
                #expect(off <= tolerance, "\(look) on \(colour): 640x360 \(a), 1280x720 \(b)")
            }
        }
    }

    /// Burned subtitles (libass, `reel subtitles --burn`) in white, yellow and blue come out in
    /// those colours at 640x360 and at 1280x720, within 3. FFmpeg's filter blends libass's RGB in
    /// BT.601 at every size: before, the HD file read back yellow as (255, 238, 0) and blue as (0, 14, 255).
    @Test func burnedSubtitlesKeepTheirColoursAtEverySize() throws {
        let ass = directory.appendingPathComponent("colours.ass")
        let styles = [("White", "&H00FFFFFF", 40, (255, 255, 255)), ("Yellow", "&H0000FFFF", 240, (255, 255, 0)),
                      ("Blue", "&H00FF0000", 440, (0, 0, 255))]
        var script = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 640
            PlayResY: 360

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
            Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding

            """
        for (name, colour, _, _) in styles {
            script += "Style: \(name),DejaVu Sans,60,\(colour),\(colour),\(colour),&H00000000,0,0,0,0,100,100,0,0,1,0,0,7,0,0,0,1\n"
        }
        script += "\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
        for (name, _, x, _) in styles {
            script += "Dialogue: 0,0:00:00.00,0:00:02.00,\(name),,0,0,0,,{\\pos(\(x),100)}\u{2588}\u{2588}\n"
        }
        try script.write(to: ass, atomically: true, encoding: .utf8)
        for (width, height) in [(640, 360), (1280, 720)] {
            let matrix = Self.matrix(height: height)
            let grey = directory.appendingPathComponent("grey-\(width).mp4")
            try ProcessRunner.ffmpeg([
                "-f", "lavfi", "-i",
                "color=0x404040:s=\(width)x\(height):r=25:d=1,format=rgb24,scale=out_color_matrix=\(matrix.scale):out_range=tv,format=yuv420p",
                "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-colorspace", matrix.tag, grey.path,
            ])
            let name = "subtitles-\(width)"
            let out = directory.appendingPathComponent("\(name).mp4")
            let result = try ProcessRunner.reel(["subtitles", grey.path, "--srt", ass.path, "-o", out.path, "--burn"], timeout: 600)
            guard result.status == 0 else { throw TestFailure("reel subtitles \(name): \(result.standardError)") }
            let (rgb, _) = try decoded(out, name: name)
            let k = Double(width) / 640
            for (style, _, x0, expected) in styles {
                // The commonest colour of the pixels that are not the grey behind: the glyphs' inside.
                var counts: [Int: Int] = [:]
                for y in Int(100 * k)..<Int(180 * k) {
                    for x in Int(Double(x0) * k)..<Int(Double(x0 + 120) * k) {
                        let i = 3 * (y * width + x)
                        guard i + 2 < rgb.count else { continue }
                        let (r, g, b) = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
                        if max(abs(r - 64), abs(g - 64), abs(b - 64)) > 40 { counts[r << 16 | g << 8 | b, default: 0] += 1 }
                    }
                }
                guard let commonest = counts.max(by: { $0.value < $1.value }), commonest.value > Int(400 * k * k) else {
                    Issue.record("\(width)x\(height) \(style): no glyph drawn (\(counts.count) colours)")
                    continue
                }
                let seen = (commonest.key >> 16, commonest.key >> 8 & 0xFF, commonest.key & 0xFF)
                let off = max(abs(seen.0 - expected.0), abs(seen.1 - expected.1), abs(seen.2 - expected.2))
                #expect(off <= 3, "\(width)x\(height) \(style) subtitle: \(seen), specified \(expected)")
            }
        }
    }

    /// 640x360: BT.601, tagged smpte170m; the HD clip is converted from BT.709 on the way down.
    @Test func standardDefinitionOutputReadsBackAsSpecified() throws {
        let (rgb, stream) = try render(width: 640, height: 360, clip: "teal-hd", name: "sd")
        #expect(tags(stream) == "smpte170m/smpte170m/smpte170m/tv", "tags: \(tags(stream))")
        check(rgb, width: 640, label: "640x360")
    }

    /// 1280x720: BT.709, tagged bt709; the SD clip is converted from BT.601 on the way up.
    @Test func highDefinitionOutputReadsBackAsSpecified() throws {
        let (rgb, stream) = try render(width: 1280, height: 720, clip: "teal-sd", name: "hd")
        #expect(tags(stream) == "bt709/bt709/bt709/tv", "tags: \(tags(stream))")
        check(rgb, width: 1280, label: "1280x720")
    }
}

import Foundation
import ReelTestSupport
import Testing

@Suite struct FilterCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-filter")
    }

    @Test func listsEveryFilterWithParameters() throws {
        let result = try ProcessRunner.reel(["filters"])
        #expect(result.status == 0)
        for name in ["PhotoEffectChrome", "PhotoEffectFade", "PhotoEffectInstant", "PhotoEffectMono", "PhotoEffectNoir",
                     "PhotoEffectProcess", "PhotoEffectTonal", "PhotoEffectTransfer", "ColorControls", "ExposureAdjust",
                     "SepiaTone", "Vignette", "GaussianBlur", "ColorCube"] {
            #expect(result.standardOutput.contains(name))
        }
        #expect(result.standardOutput.contains("saturation = 1  (0...2)"))
    }

    @Test func sheetOfEveryEffect() throws {
        let out = directory.appendingPathComponent("sheet.png")
        let result = try ProcessRunner.reel(["filters", "--sheet", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        #expect(probe.streams.first?.codecName == "png")
        #expect(probe.streams.first?.width == 8 + 4 * 328)
    }

    @Test func filtersAVideoToBlackAndWhite() throws {
        let clip = try TestClips.rotated(0, in: directory)
        let out = directory.appendingPathComponent("noir.mp4")
        let result = try ProcessRunner.reel(["filter", clip.path, "--filter", "PhotoEffectNoir,Vignette:intensity=0.5",
                                             "-o", out.path, "--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.countFrames(out) == 25)
        // Decode a frame as RGB with the ffmpeg CLI: black and white means R = G = B (within coding noise).
        let frame = directory.appendingPathComponent("frame.rgb")
        try ProcessRunner.ffmpeg(["-i", out.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", frame.path])
        let bytes = [UInt8](try Data(contentsOf: frame))
        var worst = 0
        for index in stride(from: 0, to: bytes.count - 2, by: 3 * 97) {
            worst = max(worst, abs(Int(bytes[index]) - Int(bytes[index + 1])), abs(Int(bytes[index + 1]) - Int(bytes[index + 2])))
        }
        #expect(worst <= 6, "largest channel difference \(worst)")
    }

    @Test func filtersAStillPicture() throws {
        let clip = try TestClips.rotated(0, in: directory)
        let still = directory.appendingPathComponent("still.png")
        #expect(try ProcessRunner.reel(["thumbnail", clip.path, "-o", still.path]).status == 0)
        let out = directory.appendingPathComponent("sepia.jpg")
        let result = try ProcessRunner.reel(["filter", still.path, "--filter", "CISepiaTone:inputIntensity=1", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.probe(out).streams.first?.width == 320)
    }

    @Test func badChainsGiveOneLine() throws {
        let clip = try TestClips.rotated(0, in: directory)
        let out = directory.appendingPathComponent("x.mp4").path
        let badCube = directory.appendingPathComponent("bad.cube")
        try "LUT_3D_SIZE 2\n0 0 0\n1 x 0\n".write(to: badCube, atomically: true, encoding: .utf8)
        let cases: [([String], Int32, String)] = [
            (["filter", clip.path, "--filter", "PhotoEffectSparkle", "-o", out], 1, "--filter: unknown filter 'PhotoEffectSparkle'"),
            (["filter", clip.path, "--filter", "ColorControls:sat=2", "-o", out], 1, "has no parameter 'sat'"),
            (["filter", clip.path, "--filter", "ColorControls:saturation=9", "-o", out], 1, "wants a value in 0.0...2.0"),
            (["filter", clip.path, "--filter", "ColorCube:file=\(badCube.path)", "-o", out], 1, "line 3: a table row is three numbers"),
            (["filter", clip.path, "--filter", ",", "-o", out], 1, "names no filter"),
            (["filter", clip.path, "--filter", "PhotoEffectMono", "--preset", "quick", "-o", out], 1, "--preset is one of"),
            (["filter", clip.path, "-o", out], 1, "needs --filter"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 60)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

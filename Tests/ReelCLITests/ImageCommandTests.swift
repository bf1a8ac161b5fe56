import Foundation
import ReelTestSupport
import Testing

@Suite struct ImageCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-images")
    }

    @Test func thumbnailOfARotatedClipIsUpright() throws {
        let clip = try TestClips.rotated(270, in: directory)
        let out = directory.appendingPathComponent("thumb.png")
        let result = try ProcessRunner.reel(["thumbnail", clip.path, "--at", "0.5", "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try FFprobe.probe(out)
        #expect(probe.streams.first?.width == 240 && probe.streams.first?.height == 320)
    }

    @Test func contactSheetWritesAPicture() throws {
        let clip = try TestClips.rotated(0, in: directory)
        let out = directory.appendingPathComponent("sheet.jpg")
        let result = try ProcessRunner.reel(["contact-sheet", clip.path, "-o", out.path, "--columns", "2", "--rows", "2"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.probe(out).streams.first?.width == 8 + 2 * 328)
    }

    @Test func badRequestsGiveOneLine() throws {
        let clip = try TestClips.rotated(0, in: directory)
        let cases: [([String], Int32, String)] = [
            (["thumbnail", clip.path], 1, "needs -o"),
            (["thumbnail", clip.path, "-o", "x.bmp"], 1, "must end in .png"),
            (["thumbnail", clip.path, "--at", "soon", "-o", "x.png"], 1, "--at wants a number"),
            (["thumbnail", clip.path, "--at", "99", "-o", directory.appendingPathComponent("late.png").path], 2, "no frame at 99.000 s"),
            (["contact-sheet", clip.path, "-o", directory.appendingPathComponent("s.png").path, "--columns", "0"], 1, "--columns"),
            (["contact-sheet", directory.path, "-o", directory.appendingPathComponent("s.png").path], 2, "is a directory"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 60)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }
}

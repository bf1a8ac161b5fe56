import Foundation
import ReelTestSupport
import Testing

/// `--explain` prints the smart-render plan, `--no-smart` turns it off; the file is written either way.
@Suite struct SmartRenderCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-smart")
    }

    @Test func explainListsCopiedAndRenderedRangesWithReasons() throws {
        let clips = try (0..<2).map { index in
            let url = directory.appendingPathComponent("clip\(index).mp4")
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2", "-c:v", "libx264", "-g", "15",
                                      "-pix_fmt", "yuv420p", url.path])
            return url
        }
        let out = directory.appendingPathComponent("merged.mp4")
        let smart = try ProcessRunner.reel(["merge"] + clips.map(\.path) + ["-o", out.path, "--transition", "dissolve:0.5",
                                                                           "--preset", "highest", "--explain"])
        #expect(smart.status == 0, "\(smart.standardError)")
        let lines = smart.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("smart render: 90 of 105 frames copied, 15 rendered") == true, "\(lines)")
        #expect(lines.contains { $0.contains("copy") && $0.contains("clip0.mp4 from 0.000 s") })
        #expect(lines.contains { $0.contains("render") && $0.contains("2 pictures mixed (a transition)") })
        #expect(try FFprobe.countFrames(out) == 105)
        let off = try ProcessRunner.reel(["merge"] + clips.map(\.path) + ["-o", out.path, "--transition", "dissolve:0.5",
                                                                         "--preset", "highest", "--explain", "--no-smart"])
        #expect(off.status == 0, "\(off.standardError)")
        #expect(off.standardOutput.contains("smart render: off (--no-smart)"))
        #expect(try FFprobe.countFrames(out) == 105)
    }
}

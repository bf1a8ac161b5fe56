import Foundation
import ReelTestSupport
import Testing

/// A disk that fills up: a recording stops with one clear line and keeps what it wrote;
/// an export leaves nothing behind; sources are never touched.
@Suite(.enabled(if: SmallDisk.canMount, "mounting a small tmpfs needs root"))
struct DiskFullTests {
    @Test func aRecordingStopsWithOneLineAndKeepsWhatItWrote() throws {
        // The virtual camera's picture compresses to about 20 kB a second: full in some 15 s.
        let disk = try SmallDisk(kilobytes: 320)
        let out = disk.url.appendingPathComponent("take.mp4")
        let started = Date()
        let result = try ProcessRunner.reel(["record", "--device", "virtual:camera", "--preset", "640x480",
                                             "--max-duration", "120", "-o", out.path], timeout: 60)
        // Before the fix it recorded on, unwritten, until --max-duration and beyond.
        #expect(!result.timedOut && !result.crashed, "it ran on after the disk filled")
        #expect(Date().timeIntervalSince(started) < 40, "it ran on after the disk filled")
        #expect(result.status == 2, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("take.partial.mp4: No space left on device")
                && result.standardError.contains("the recording so far is kept"), "\(result.standardError)")

        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path) == ["take.partial.mp4"])
        let partial = disk.url.appendingPathComponent("take.partial.mp4")
        let boxes = MP4Boxes.topLevel(try Data(contentsOf: partial)).map { "\($0.type) \($0.size)" }
        let frames = try #require(try? FFprobe.countFrames(partial), "ffprobe cannot read the kept file; its boxes: \(boxes)")
        #expect(frames >= 15, "only \(frames) frames were kept")

        // The kept recording recovers elsewhere; on the full disk, recovery fails cleanly.
        let elsewhere = try Paths.temporaryDirectory("reel-disk-recovered")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let recovered = elsewhere.appendingPathComponent("take.mp4")
        let recover = try ProcessRunner.reel(["recover", partial.path, "-o", recovered.path], timeout: 30)
        #expect(recover.status == 0, "\(recover.standardError)")
        #expect(try FFprobe.countFrames(recovered) == frames)
        let onFullDisk = try ProcessRunner.reel(["recover", partial.path], timeout: 30)
        #expect(onFullDisk.status == 2 && onFullDisk.standardError.contains("take.mp4: No space left on device"),
                "\(onFullDisk.standardError)")
        #expect(onFullDisk.standardError.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path) == ["take.partial.mp4"])
    }

    @Test func exportsFailWithOneLineAndLeaveNothing() throws {
        let scratch = try Paths.temporaryDirectory("reel-disk-source")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let made = scratch.appendingPathComponent("source.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i",
                                  "sine=duration=3", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "45", "-c:a", "aac",
                                  "-b:a", "16k", "-shortest", made.path])
        // The source (about 57 kB) fits with some 35 kB to spare: each output's header fits,
        // and then its media does not.
        let disk = try SmallDisk(kilobytes: 96)
        let source = disk.url.appendingPathComponent("source.mp4")
        try FileManager.default.copyItem(at: made, to: source)
        let original = try Data(contentsOf: source)
        func out(_ name: String) -> String { disk.url.appendingPathComponent(name).path }
        let commands: [[String]] = [
            ["transcode", source.path, "-o", out("transcoded.mp4"), "--preset", "ultrafast"],
            ["filter", source.path, "--filter", "PhotoEffectNoir", "-o", out("filtered.mp4"), "--crf", "10"],
            ["export", source.path, "--preset", "640x480", "-o", out("exported.mp4")],
            ["merge", source.path, source.path, "--preset", "passthrough", "-o", out("merged.mp4")],
            ["merge", source.path, source.path, "--preset", "640x480", "-o", out("rendered.mp4")],
            ["speed", source.path, "--rate", "0.5", "-o", out("slow.mp4")],
            ["speed", source.path, "--rate", "2", "-o", out("fast.mp4"), "--preset", "640x480"],
            ["contact-sheet", source.path, "-o", out("sheet.png"), "--width", "640", "--columns", "6"],
        ]
        for arguments in commands {
            let result = try ProcessRunner.reel(arguments, timeout: 120)
            let name = URL(fileURLWithPath: arguments[(arguments.firstIndex(of: "-o") ?? 0) + 1]).lastPathComponent
            #expect(!result.timedOut && !result.crashed, "\(arguments)")
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("\(name): ") && (result.standardError.contains("No space left on device")
                        || result.standardError.contains("enough space")), "\(arguments): \(result.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path) == ["source.mp4"],
                    "\(arguments) left files behind")
        }
        #expect(try Data(contentsOf: source) == original, "the source changed")
    }
}

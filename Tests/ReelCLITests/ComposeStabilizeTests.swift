import Foundation
import ReelTestSupport
import Testing

/// A composition spec's `clips[].stabilize`: the clip steadied (the two passes of `reel
/// stabilize`) before composing, judged by vidstabdetect (``ShakeMeter``), ffprobe and the
/// sync suite's flash-and-click measurement.
@Suite struct ComposeStabilizeTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-compose-stabilize")
    }

    func shakyClip() throws -> URL { try ShakeMeter.shakyClip(in: directory) }

    /// `reel compose` of `json`, its temporary files in the test's `scratch` folder: the
    /// other tests running at the same time steady clips in the shared one.
    func compose(_ json: String, name: String, extra: [String] = []) throws -> (URL, ProcessResult) {
        let spec = directory.appendingPathComponent("\(name).json")
        try Data(json.utf8).write(to: spec)
        let out = directory.appendingPathComponent("\(name).mp4")
        return (out, try ProcessRunner.reel(["compose", spec.path, "-o", out.path] + (extra.isEmpty ? ["--preset", "640x480"] : extra),
                                            temporaryDirectory: scratch))
    }

    var scratch: URL { directory.appendingPathComponent("scratch") }

    @Test func aSteadiedClipLosesItsShakeAndKeepsItsLength() throws {
        let shaky = try shakyClip()
        let (plain, plainRun) = try compose(#"{"clips": [{"file": "shaky.mp4", "range": {"start": 0.5, "end": 3.5}}]}"#,
                                            name: "plain")
        #expect(plainRun.status == 0, "\(plainRun.standardError)")
        let (steady, run) = try compose(
            #"{"clips": [{"file": "shaky.mp4", "range": {"start": 0.5, "end": 3.5}, "stabilize": 0.7}]}"#, name: "steady")
        #expect(run.status == 0, "\(run.standardError)")
        let before = try ShakeMeter.meanMotion(plain), after = try ShakeMeter.meanMotion(steady)
        let reduction = 1 - after.pixels / before.pixels
        print("compose clips[].stabilize: \(before.pixels) px/frame before, \(after.pixels) after (\(Int(reduction * 100)) %)")
        #expect(before.pixels > 3 && reduction >= 0.8, "\(before.pixels) → \(after.pixels) px a frame")
        // The same length, frames and sound as the unsteadied composition.
        #expect(try FFprobe.countFrames(steady) == FFprobe.countFrames(plain))
        let a = try FFprobe.probe(plain), b = try FFprobe.probe(steady)
        let (va, vb) = (try #require(a.streams(ofType: "video").first), try #require(b.streams(ofType: "video").first))
        let (aa, ab) = (try #require(a.streams(ofType: "audio").first), try #require(b.streams(ofType: "audio").first))
        #expect(abs((va.duration ?? 0) - 3) < 0.001 && abs((vb.duration ?? 0) - (va.duration ?? 0)) < 0.001,
                "video \(va.duration ?? 0) s unsteadied, \(vb.duration ?? 0) s steadied")
        #expect(abs((ab.duration ?? 0) - (aa.duration ?? 0)) < 0.001, "sound \(aa.duration ?? 0) s, \(ab.duration ?? 0) s")
        #expect(FileManager.default.fileExists(atPath: shaky.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// Flash and click stay together through a steadied clip with a range, and a plain one after it.
    @Test func soundAndPictureStayTogether() throws {
        let source = FlashClick(rate: (30, 1), seconds: 3)
        try source.write(to: directory.appendingPathComponent("flash.mp4"))
        let (out, run) = try compose(#"""
            {"clips": [{"file": "flash.mp4", "range": {"start": 0.2, "end": 2.8}, "stabilize": 1},
                       {"file": "flash.mp4", "stabilize": 0.3}, {"file": "flash.mp4"}]}
            """#, name: "sync")
        #expect(run.status == 0, "\(run.standardError)")
        let first = source.events.filter { $0 >= 0.2 && $0 < 2.8 }.map { $0 - 0.2 }
        let length = 2.6
        let expected = first + source.events.map { $0 + length } + source.events.map { $0 + length + source.pictureSeconds }
        let verdict = SyncMeter.judge(try SyncMeter.measure(out), expected: expected,
                                      duration: length + 2 * source.pictureSeconds)
        print("compose clips[].stabilize sync: \(verdict)")
        #expect(verdict.failures(frameTolerant: true).isEmpty, "\(verdict.failures(frameTolerant: true)): \(verdict)")
    }

    @Test func badStabilizeIsOneLine() throws {
        _ = try shakyClip()
        for (json, extra, words) in [
            (#"{"clips": [{"file": "shaky.mp4", "stabilize": 2}]}"#, [String](), "clips[0].stabilize"),
            (#"{"clips": [{"file": "shaky.mp4", "stabilize": true}]}"#, [], "clips[0].stabilize"),
            (#"{"clips": [{"file": "shaky.mp4", "stabilize": 0.5}]}"#, ["--preset", "passthrough"], "clips[0].stabilize"),
        ] {
            let (out, run) = try compose(json, name: "bad", extra: extra)
            #expect(run.status != 0 && run.standardError.contains(words), "\(json): \(run.standardError)")
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }
}

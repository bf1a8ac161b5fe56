import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Time effects of the spec (issue 22): a freeze frame, judged on the frames and lengths of
/// what `reel compose` wrote (ffprobe and decoded pixels).
@Suite struct TimeEffectTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-time-effects")
        // 2 s at 25 fps whose every frame is its own grey: 20 + 4 n, losslessly coded.
        try LosslessClips.make(
            "nullsrc=s=64x64:r=25:d=2,geq=lum='20+4*N':cb=128:cr=128,format=yuv420p", tone: 440,
            seconds: 2, to: directory.appendingPathComponent("ramp.mp4"))
    }

    /// The grey of each frame of `url`, as decoded (the middle pixel).
    private func greys(_ url: URL) throws -> [Int] {
        let raw = directory.appendingPathComponent("\(url.deletingPathExtension().lastPathComponent).gray")
        try ProcessRunner.ffmpeg(["-i", url.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        return stride(from: 0, to: bytes.count - 4095, by: 4096).map { Int(bytes[$0 + 32 * 64 + 32]) }
    }

    /// Which source frame each output frame shows: the source frame of the nearest grey.
    private func sourceFrames(_ url: URL) throws -> [Int] {
        let source = try greys(directory.appendingPathComponent("ramp.mp4"))
        return try greys(url).map { grey in source.indices.min { abs(source[$0] - grey) < abs(source[$1] - grey) } ?? -1 }
    }

    /// `reel compose` of `json`, its temporary files in `<name>-tmp` of the test's folder
    /// (TMPDIR): other suites running at once make their own copies in the shared one.
    private func compose(_ json: String, _ name: String) throws -> URL {
        let spec = directory.appendingPathComponent("\(name).json")
        try json.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("\(name).mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path],
                                            temporaryDirectory: directory.appendingPathComponent("\(name)-tmp"))
        guard result.status == 0 else { throw TestFailure("reel compose \(name): \(result.standardError)") }
        return out
    }

    /// A freeze of 0.6 s at 0.4 s: frame 10 (the one on screen at 0.4 s) shows for 15 more
    /// frames, every other frame once and in order; 65 frames and 2.6 s of picture and sound.
    @Test(arguments: [1.0, 0.5])
    func freezeHoldsTheFrameForItsDuration(speed: Double) throws {
        let out = try compose(
            """
            {"frameRate": 25, "clips": [{"file": "ramp.mp4", "speed": \(speed), "freeze": {"at": 0.4, "duration": 0.6}}]}
            """, "freeze-\(speed)")
        let frames = try sourceFrames(out)
        let played = Int((50 / speed).rounded())
        #expect(frames.count == played + 15, "\(frames.count) frames")
        #expect(try FFprobe.countFrames(out) == played + 15)
        let probe = try FFprobe.probe(out)
        let length = Double(played + 15) / 25
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - length) <= 0.001)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - length) <= 0.03)
        // At 0.4 s of the clip as it plays: frame 10 at normal speed, frame 5 at half speed.
        let frozen = Int((0.4 * speed * 25).rounded())
        let held = frames.filter { $0 == frozen }.count
        #expect(held == 15 + Int((1 / speed).rounded()), "frame \(frozen) shows \(held) times: \(frames)")
        // Outside the freeze the frames run as the speed has them.
        let unfrozen = frames.enumerated().filter { $0.offset < 10 || $0.offset >= 25 }.map(\.element)
        #expect(zip(unfrozen, unfrozen.dropFirst()).allSatisfy { $1 >= $0 && $1 - $0 <= 1 }, "\(frames)")
        #expect(frames.prefix(10).last == Int((9 * speed).rounded(.down)) && frames[10] == frozen && frames[24] == frozen)
    }

    /// 0.4–1.6 s of the ramp backwards, then all of it forwards: frames 39 down to 10, then 0
    /// to 49; 80 frames, 3.2 s of picture and of sound.
    @Test func reverseShowsTheFramesLastFirst() throws {
        let out = try compose(
            """
            {"frameRate": 25, "clips": [{"file": "ramp.mp4", "reverse": true, "range": {"start": 0.4, "end": 1.6}},
                                        {"file": "ramp.mp4"}]}
            """, "reverse")
        let frames = try sourceFrames(out)
        #expect(frames == Array((10...39).reversed()) + Array(0...49), "\(frames)")
        let probe = try FFprobe.probe(out)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 3.2) <= 0.001)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 3.2) <= 0.03)
        // The reversed copy is gone with the export.
        let scratch = directory.appendingPathComponent("reverse-tmp")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.isEmpty, "\(left)")
    }

    /// Played backwards, a rising tone falls: the reversed copy's sound, measured by the
    /// frequency of its zero crossings at its start and end.
    @Test func reverseTurnsTheSoundAround() throws {
        let sweep = directory.appendingPathComponent("sweep.mp4")
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=25:duration=2",
            "-f", "lavfi", "-i", "aevalsrc='sin(2*PI*(200*t+400*t*t))':s=48000:d=2",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", sweep.path,
        ])
        let reversed = directory.appendingPathComponent("sweep-reversed.mov")
        try ReversedCopy.write(
            try ReelAsset.Asset(url: sweep), range: MediaTimeRange(start: .zero, duration: MediaTime(value: 2, timescale: 1)),
            to: reversed)
        func frequency(_ url: URL, from start: Double) throws -> Double {
            let raw = directory.appendingPathComponent("pcm-\(url.lastPathComponent)-\(start).f32")
            try ProcessRunner.ffmpeg([
                "-ss", "\(start)", "-t", "0.2", "-i", url.path, "-ac", "1", "-f", "f32le", "-ar", "48000", raw.path,
            ])
            let data = try Data(contentsOf: raw)
            let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let crossings = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            return Double(crossings) / (Double(samples.count) / 48000)
        }
        // The sweep: 200 + 800 t Hz, so about 280 Hz near its start and 1720 Hz near its end.
        let start = try frequency(reversed, from: 0.0), end = try frequency(reversed, from: 1.8)
        #expect(abs(start - 1720) < 60 && abs(end - 280) < 60, "reversed: \(start) Hz first, \(end) Hz last")
    }

    @Test(arguments: [
        (#"{"file": "ramp.mp4", "reverse": "yes"}"#, "clips[0].reverse: wants true or false"),
        (
            #"{"file": "ramp.mp4", "freeze": {"at": 3, "duration": 1}}"#,
            "clips[0].freeze.at: 3.0 s is not inside the clip, which plays 2.0 s"
        ),
        (
            #"{"file": "ramp.mp4", "freeze": {"at": 1, "duration": 0}}"#,
            "clips[0].freeze.duration: wants a number above 0 and at most 86400 seconds, not 0"
        ),
        (
            #"{"file": "ramp.mp4", "freeze": {"at": -1, "duration": 1}}"#,
            "clips[0].freeze.at: wants a number from 0 to 10000000 seconds, not -1"
        ),
        (#"{"file": "ramp.mp4", "freeze": {"at": 1}}"#, "clips[0].freeze.duration: is missing"),
        (#"{"file": "ramp.mp4", "freeze": {"at": 1, "duration": 1, "loop": true}}"#, "unknown key 'loop' in clips[0].freeze"),
        (#"{"file": "ramp.mp4", "freeze": 2}"#, "clips[0].freeze: wants an object"),
    ])
    func badFreezesAreRefusedByTheirPath(clip: String, expected: String) {
        SpecRefusals.expectClip(clip, relativeTo: directory, refusedWith: expected)
    }
}

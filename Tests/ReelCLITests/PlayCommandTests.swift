import Foundation
import ReelCore
import ReelTestSupport
import Testing

/// `reel play` as a user runs it: its window under Xvfb, grabbed from the screen, and its
/// headless run and errors.
@Suite(.serialized) struct PlayCommandTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-play")
    }

    /// 320x64, 30 fps: frame n shows n in 8 bars 40 pixels wide (white for a set bit).
    private func barsClip(seconds: Int = 4) throws -> URL {
        let url = directory.appendingPathComponent("bars-\(seconds).mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i",
                                  "color=black:s=320x64:r=30:d=\(seconds),format=gray,geq=lum='if(bitand(N\\,pow(2\\,floor(X/40)))\\,235\\,16)',format=yuv420p",
                                  "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", url.path])
        return url
    }

    private static func freeDisplay() -> Int? {
        (90...99).reversed().first { !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") }
    }

    /// The index the window shows: a grab of the screen's middle row, where the window sits centred.
    private func shownIndex(display: Int, screen: (width: Int, height: Int)) throws -> Int {
        let raw = directory.appendingPathComponent("grab-\(UUID().uuidString).raw")
        let grab = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "x11grab", "-video_size", "\(screen.width)x\(screen.height)",
                                                             "-i", ":\(display).0", "-frames:v", "1", "-pix_fmt", "gray",
                                                             "-f", "rawvideo", raw.path], timeout: 20)
        guard grab.status == 0 else { throw TestFailure("x11grab: \(grab.standardError)") }
        let pixels = [UInt8](try Data(contentsOf: raw))
        let left = (screen.width - 320) / 2, row = screen.height / 2
        var value = 0
        for bit in 0..<8 where pixels[row * screen.width + left + bit * 40 + 20] > 128 { value |= 1 << bit }
        return value
    }

    @Test(.disabled(if: DeviceServer.xvfbMissing != nil, "\(DeviceServer.xvfbMissing ?? "")"))
    func theWindowShowsThePictureMoving() throws {
        let clip = try barsClip()
        let display = try #require(Self.freeDisplay(), "no free X display number in :90-:99")
        let screen = (width: 640, height: 480)
        let server = try DeviceServer.xvfb(display: display, width: screen.width, height: screen.height)
        defer { server.stop() }
        let finished = DispatchSemaphore(value: 0)
        let result = PosixMutex<ProcessResult?>(nil)
        let player = Thread {
            let run = try? ProcessRunner.run(Paths.reelBinary.path, ["play", clip.path, "--no-sound", "--for", "3.5"], timeout: 60,
                                             environment: ["DISPLAY": ":\(display)", "PATH": "/usr/bin:/bin",
                                                           "HOME": directory.path])
            result.withLock { $0 = run }
            finished.signal()
        }
        player.start()
        // Grabbed until the window shows the clip (a loaded machine takes longer to start the
        // player and open its window), then once more 0.8 s later.
        let deadline = Date().addingTimeInterval(30)
        var first = try shownIndex(display: display, screen: screen)
        while !(1..<120).contains(first), Date() < deadline, result.withLock({ $0 }) == nil {
            usleep(100_000)
            first = try shownIndex(display: display, screen: screen)
        }
        usleep(800_000)
        let second = try shownIndex(display: display, screen: screen)
        finished.wait()
        let run = try #require(result.withLock { $0 })
        #expect(run.status == 0, "reel play: \(run.standardError)")
        #expect(run.standardError.contains("/ 4.000 s"), "status line: \(run.standardError)")
        // The picture is the clip's and moves on: a later grab shows a later frame.
        #expect((1..<120).contains(first) && (1..<120).contains(second), "shown \(first), then \(second)")
        #expect(second > first, "shown \(first), then \(second)")
    }

    /// Keys pressed in the window (xdotool, through XTEST) do what the help says, judged by
    /// the frame on screen.
    @Test(.disabled(if: DeviceServer.xvfbMissing != nil || !FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool"),
                    "needs xvfb and xdotool (make deps)"))
    func keysPauseStepSeekAndQuit() throws {
        let clip = try barsClip(seconds: 8)
        let display = try #require(Self.freeDisplay(), "no free X display number in :90-:99")
        let screen = (width: 640, height: 480)
        let server = try DeviceServer.xvfb(display: display, width: screen.width, height: screen.height)
        defer { server.stop() }
        let environment = ["DISPLAY": ":\(display)", "PATH": "/usr/bin:/bin", "HOME": directory.path]
        let finished = DispatchSemaphore(value: 0)
        let result = PosixMutex<ProcessResult?>(nil)
        let player = Thread {
            let run = try? ProcessRunner.run(Paths.reelBinary.path, ["play", clip.path, "--no-sound"], timeout: 90,
                                             environment: environment)
            result.withLock { $0 = run }
            finished.signal()
        }
        player.start()
        let found = try ProcessRunner.run("/usr/bin/xdotool", ["search", "--sync", "--name", "reel play", "windowfocus", "--sync"],
                                          timeout: 30, environment: environment)
        try #require(found.status == 0, "no window: \(found.standardError)")
        func press(_ key: String) throws {
            let sent = try ProcessRunner.run("/usr/bin/xdotool", ["key", key], timeout: 10, environment: environment)
            guard sent.status == 0 else { throw TestFailure("xdotool key \(key): \(sent.standardError)") }
            usleep(500_000)
        }
        // A loaded machine handles a key later than the half second press() waits: the frame
        // each key should show is waited for, at most 10 s, and must stay (the player is paused).
        func shown(_ expected: Int) throws -> Int {
            let deadline = Date().addingTimeInterval(10)
            var index = try shownIndex(display: display, screen: screen)
            while index != expected, Date() < deadline {
                usleep(100_000)
                index = try shownIndex(display: display, screen: screen)
            }
            usleep(300_000)
            return try shownIndex(display: display, screen: screen)
        }
        usleep(1_000_000)
        try press("space")
        // Paused once two grabs 0.3 s apart show the same frame.
        var paused = try shownIndex(display: display, screen: screen)
        let pausing = Date().addingTimeInterval(10)
        while Date() < pausing {
            usleep(300_000)
            let again = try shownIndex(display: display, screen: screen)
            if again == paused { break }
            paused = again
        }
        usleep(500_000)
        #expect(try shownIndex(display: display, screen: screen) == paused, "paused, the picture stays")
        #expect(paused > 0)
        for _ in 0..<3 { try press("period") }
        #expect(try shown(paused + 3) == paused + 3, "three frames on")
        try press("comma")
        #expect(try shown(paused + 2) == paused + 2, "one frame back")
        try press("Right")
        #expect(try shown(paused + 2 + 150) == paused + 2 + 150, "5 s on")
        try press("Left")
        #expect(try shown(paused + 2) == paused + 2, "5 s back")
        try press("bracketright")
        try press("bracketright")
        try press("space")
        usleep(500_000)
        try press("q")
        finished.wait()
        let run = try #require(result.withLock { $0 })
        #expect(run.status == 0, "reel play: \(run.standardError)")
        // q quits while playing at the rate ] raised twice.
        #expect(run.standardError.contains("rate 1.50"), "\(run.standardError)")
    }

    @Test func headlessRunPlaysForItsTimeAndEnds() throws {
        let clip = try barsClip()
        let started = Date()
        let run = try ProcessRunner.reel(["play", clip.path, "--no-window", "--no-sound", "--rate", "2"], timeout: 60)
        #expect(run.status == 0, "\(run.standardError)")
        // 4 s at rate 2 plays in about 2 s of the host clock, and ends at the end.
        #expect(Date().timeIntervalSince(started) >= 1.9)
        #expect(run.standardError.hasSuffix("4.000 / 4.000 s  rate 0.00  dropped 0\n"), "\(run.standardError)")
    }

    /// Every file of the bad-input corpus plays or is refused in one line: no crash, no hang.
    @Test func theBadInputCorpusPlaysOrIsRefused() throws {
        for name in Corpus.names {
            let run = try ProcessRunner.reel(["play", Corpus.url(name).path, "--no-window", "--no-sound", "--for", "0.5"], timeout: 60)
            #expect(!run.timedOut && !run.crashed, "\(name)")
            #expect(run.status == 0 || run.status == 2, "\(name): \(run.status)")
            if run.status == 2 {
                let lines = run.standardError.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(name), "\(name): \(run.standardError)")
            }
        }
    }

    @Test func badInputIsOneLine() throws {
        let missing = try ProcessRunner.reel(["play", directory.appendingPathComponent("absent.mp4").path, "--no-window"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("absent.mp4"))
        let rate = try ProcessRunner.reel(["play", "x.mp4", "--rate", "9"])
        #expect(rate.status == 1)
        #expect(rate.standardError.contains("rate"))
        let spec = directory.appendingPathComponent("bad.json")
        try Data("{\"clips\": 3}".utf8).write(to: spec)
        let badSpec = try ProcessRunner.reel(["play", spec.path, "--no-window"])
        #expect(badSpec.status == 2)
        #expect(badSpec.standardError.contains("bad.json"))
    }
}

import Foundation
import ReelTestSupport
import Testing

/// Sync as a viewer experiences it: `reel play` in a window under Xvfb with its sound through
/// a real PulseAudio daemon's null sink, recorded by one ffmpeg from the screen (x11grab) and
/// the sink's monitor, both inputs stamped by the same wall clock (`-copyts`, so neither is
/// shifted to start at zero); in the recording each flash on screen is matched with its click.
///
/// The rig's own parts: the null sink has no rewinds (`norewinds=1`; with them the monitor
/// hears what the sink renders ahead, up to the stream's whole buffer early), and a silent
/// 5 ms stream keeps the sink's latency low, so the monitor hears the sound as it plays.
/// `make bench` (scripts/play-sync.sh) measures ffplay the same way beside Reel.
@Suite(.serialized,
       .disabled(if: Sanitizer.slowsRealTime, "sync measured on screen in real time; a sanitizer build cannot keep its pace"))
struct PlaySyncTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-play-sync")
    }

    static var missing: String? {
        DeviceServer.xvfbMissing ?? DeviceServer.pulseMissing
            ?? (FileManager.default.isExecutableFile(atPath: "/usr/bin/pacat") ? nil : "needs pulseaudio-utils (make deps)")
    }

    /// 30 fps, 160x90: a flash and a 10 ms click at 0.5, 1.5, … s; the flash lasts two
    /// frames at rate 1, four at rate 2 (so that it is on screen for 33 ms either way, two
    /// of the grab's frames).
    private func flashClickClip(_ name: String, seconds: Int, rate: Double) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FlashClick(rate: (30, 1), seconds: seconds, flashLength: rate > 1 ? 4 : 2).write(to: url)
        return url
    }

    @Test(.disabled(if: missing != nil, "\(missing ?? "")"), arguments: [1.0, 2.0])
    func aFilePlaysInSync(rate: Double) throws {
        let clip = try flashClickClip("file.mp4", seconds: 8, rate: rate)
        try expectInSync(playing: clip, events: 8, rate: rate)
    }

    /// Three clips with a dissolve and a push between them: the events away from the
    /// transitions (none falls inside one) stay in sync across both joins.
    @Test(.disabled(if: missing != nil, "\(missing ?? "")"), arguments: [1.0, 2.0])
    func aCompositionWithTransitionsPlaysInSync(rate: Double) throws {
        _ = try flashClickClip("a.mp4", seconds: 5, rate: rate)
        _ = try flashClickClip("b.mp4", seconds: 5, rate: rate)
        let spec = directory.appendingPathComponent("edit.json")
        try Data("""
            { "clips": [
              { "file": "a.mp4", "range": { "start": 0, "end": 4 }, "transition": { "type": "dissolve", "duration": 0.4 } },
              { "file": "b.mp4", "range": { "start": 0, "end": 4 }, "transition": { "type": "push", "duration": 0.4 } },
              { "file": "a.mp4", "range": { "start": 0, "end": 4 } } ] }
            """.utf8).write(to: spec)
        try expectInSync(playing: spec, events: 12, rate: rate)
    }

    /// One recording must have every event, each click within 40 ms of its flash. A run the
    /// machine's load disturbed (a picture shown a grab late) is recorded once more, and the
    /// second recording decides.
    private func expectInSync(playing path: URL, events: Int, rate: Double) throws {
        var measured = try record(playing: path, rate: rate)
        let good = { (run: Recording) in
            run.flashes == events && run.clicks == events && run.offsets.count == events
                && run.offsets.allSatisfy { abs($0) <= 0.040 }
        }
        if !good(measured) {
            print("\(path.lastPathComponent) at rate \(rate), first recording: \(measured.offsets.map { $0 * 1000 }) ms; once more")
            measured = try record(playing: path, rate: rate)
        }
        let offsets = measured.offsets.map { String(format: "%+.1f", $0 * 1000) }.joined(separator: " ")
        let summary = "\(path.lastPathComponent) at rate \(rate): \(measured.flashes) flashes, \(measured.clicks) clicks, "
            + "offsets (click minus flash) ms: \(offsets)"
        print(summary)
        #expect(measured.flashes == events && measured.clicks == events, "\(summary)")
        #expect(measured.offsets.count == events, "\(summary)")
        // The issue's bound, 40 ms; the recording's own grain is a 60 fps grab (17 ms).
        #expect(measured.offsets.allSatisfy { abs($0) <= 0.040 }, "\(summary)")
    }

    private struct Recording {
        var flashes = 0
        var clicks = 0
        /// Each click's time minus its nearest flash's, in seconds.
        var offsets: [Double] = []
    }

    private static func freeDisplay() -> Int? {
        (80...89).reversed().first { !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") }
    }

    private func record(playing path: URL, rate: Double) throws -> Recording {
        let display = try #require(Self.freeDisplay(), "no free X display number in :80-:89")
        let xvfb = try DeviceServer.xvfb(display: display, width: 320, height: 180)
        defer { xvfb.stop() }
        let pulse = try DeviceServer.pulseAudio(sink: "rig", sinkOptions: "norewinds=1")
        defer { pulse.stop() }
        let environment = ["DISPLAY": ":\(display)", "PULSE_SERVER": pulse.pulseServer, "HOME": directory.path,
                           "PATH": "/usr/bin:/bin"]
        let silence = try start("/usr/bin/pacat", ["-p", "--latency-msec=5", "--raw", "--format=s16le", "--rate=48000",
                                                   "--channels=2", "/dev/zero"], environment: environment)
        // It ends with the daemon (a signal would not reach it, as for the recorder below).
        _ = silence
        let recording = directory.appendingPathComponent("rec-\(UUID().uuidString.prefix(6)).mkv")
        // The window (160x90) sits centred on the 320x180 screen.
        // Stopped by a 'q' on its input: a process started from the test runner inherits its
        // blocked signals, so SIGINT would never reach it.
        let keys = Pipe()
        let recorder = try start("/usr/bin/ffmpeg", [
            "-v", "error", "-y",
            "-thread_queue_size", "1024", "-use_wallclock_as_timestamps", "1", "-f", "x11grab", "-framerate", "60",
            "-video_size", "160x90", "-i", ":\(display)+80,45",
            "-thread_queue_size", "1024", "-use_wallclock_as_timestamps", "1", "-f", "pulse", "-fragment_size", "1024",
            "-i", "rig.monitor", "-copyts", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-c:a", "pcm_s16le",
            recording.path], environment: environment, input: keys)
        usleep(1_000_000)
        let binary = Paths.releaseReelBinary ?? Paths.reelBinary
        let play = try ProcessRunner.run(binary.path, ["play", path.path, "--rate", String(rate)], timeout: 90,
                                         environment: environment)
        usleep(700_000)
        keys.fileHandleForWriting.write(Data("q".utf8))
        try? keys.fileHandleForWriting.close()
        recorder.waitUntilExit()
        #expect(play.status == 0, "reel play: \(play.standardError)")
        return try measure(recording)
    }

    private func start(_ executable: String, _ arguments: [String], environment: [String: String],
                       input: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let input { process.standardInput = input } else { process.standardInput = FileHandle.nullDevice }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Flashes from ffmpeg's mean luma of each grabbed frame (the first bright frame of each
    /// run), clicks from the monitor's samples (the first above 0.1 after 0.2 s of quiet),
    /// both on the wall clock both inputs were stamped with.
    private func measure(_ recording: URL) throws -> Recording {
        let luma = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(recording.path),signalstats",
                                                             "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG",
                                                             "-of", "csv=p=0"], timeout: 120)
        var flashes: [Double] = []
        var bright = false
        for line in luma.standardOutput.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[0]), let mean = Double(fields[1]) else { continue }
            if mean > 128, !bright { flashes.append(time) }
            bright = mean > 128
        }
        let start = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                              "stream=start_time", "-of", "csv=p=0", recording.path])
        let audioStart = try #require(Double(start.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)),
                                      "no sound in the recording: \(start.standardError)")
        let raw = recording.deletingPathExtension().appendingPathExtension("f32")
        let decode = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", recording.path, "-map", "0:a", "-ac", "1",
                                                              "-f", "f32le", raw.path], timeout: 120)
        #expect(decode.status == 0, "\(decode.standardError)")
        let data = try Data(contentsOf: raw)
        var clicks: [Double] = []
        var lastLoud = -Int.max / 2
        data.withUnsafeBytes { bytes in
            let samples = bytes.bindMemory(to: Float.self)
            for (index, sample) in samples.enumerated() where abs(sample) > 0.1 {
                if index - lastLoud > 48000 / 5 { clicks.append(audioStart + Double(index) / 48000) }
                lastLoud = index
            }
        }
        var result = Recording(flashes: flashes.count, clicks: clicks.count)
        for click in clicks {
            guard let nearest = flashes.min(by: { abs($0 - click) < abs($1 - click) }), abs(nearest - click) < 0.4 else { continue }
            result.offsets.append(click - nearest)
        }
        return result
    }
}

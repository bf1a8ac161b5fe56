import Foundation
import ReelTestSupport
import Testing

/// `reel record` killed with SIGKILL at random moments leaves a fragmented file that
/// ffprobe and Chromium read, missing at most the fragment being filled; `reel recover`
/// makes it an ordinary file with the index first and the same frames.
@Suite struct CrashRecoveryTests {
    struct Trial: Sendable {
        var partial: URL
        var delay: Double
        var alive: Double
        /// From the process's launch to the kill: the most a recording can hold, since the
        /// pictures that come while its encoder opens (before its file appears) are kept.
        var lifetime: Double
        var killed: Bool
        var finishedFileExists: Bool
    }

    static let fragmentInterval = 1.0
    /// What scheduling on a busy machine may add to the fragment interval: the encoder's
    /// queue, the timer and the kill itself.
    static let slack = 0.5
    static let frameRate = 30.0

    /// Starts `reel record`, waits for its file to appear, and kills it `delay` seconds later.
    static func killedRecording(_ index: Int, after delay: Double, in directory: URL) throws -> Trial {
        let out = directory.appendingPathComponent("take\(index).mp4")
        let partial = directory.appendingPathComponent("take\(index).partial.mp4")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["record", "--device", "virtual:camera", "--preset", "low", "--fps", "30",
                             "--max-duration", "10", "-o", out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let launched = Date()
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: partial.path) {
            guard Date() < deadline, process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TestFailure("take \(index): no \(partial.lastPathComponent) after 20 s")
            }
            usleep(2000)
        }
        let start = Date()
        usleep(UInt32(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        let alive = Date().timeIntervalSince(start)
        let lifetime = Date().timeIntervalSince(launched)
        process.waitUntilExit()
        return Trial(partial: partial, delay: delay, alive: alive, lifetime: lifetime,
                     killed: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                     finishedFileExists: FileManager.default.fileExists(atPath: out.path))
    }

    /// The MD5 of every decoded video frame, in order (`ffmpeg -f framemd5`).
    static func frameHashes(_ url: URL) throws -> [Substring] {
        try frames(url).map(\.hash)
    }

    /// Every decoded video frame's presentation time (seconds) and MD5, in order (`ffmpeg -f framemd5`).
    static func frames(_ url: URL) throws -> [(time: Double, hash: Substring)] {
        let packets = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets",
                                                        "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", url.path])
        if packets.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { return [] }
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v:0",
                                                      "-f", "framemd5", "-"])
        guard result.status == 0 else {
            // Killed while its only fragment was being written: packets listed, none whole.
            if (try? FFprobe.countFrames(url)) ?? 0 == 0 { return [] }
            throw TestFailure("framemd5 \(url.path): \(result.standardError)")
        }
        let lines = result.standardOutput.split(separator: "\n")
        // "#tb 0: 1/30": the time base of the pts column.
        var base: Double?
        if let line = lines.first(where: { $0.hasPrefix("#tb 0:") }) {
            let parts = line.dropFirst(6).split(separator: "/").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if parts.count == 2, parts[1] != 0 { base = parts[0] / parts[1] }
        }
        guard let base else { throw TestFailure("framemd5 \(url.path): no time base in \(lines.prefix(12))") }
        return lines.filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6, let pts = Double(fields[2]) else { return nil }
            return (pts * base, fields[5][...])
        }
    }

    @Test func sigkillAtRandomMomentsLosesAtMostTheLastFragmentAndRecoverMakesItWhole() throws {
        let directory = try Paths.temporaryDirectory("reel-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let delays = (0..<20).map { _ in Double.random(in: 1.2...3.0) }
        final class Box: @unchecked Sendable {
            var trials: [Result<Trial, any Error>?] = Array(repeating: nil, count: 20)
            let lock = NSLock()
        }
        let box = Box()
        // Two recordings at a time: each takes a fraction of a core at this size.
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for index in stride(from: lane, to: delays.count, by: 2) {
                let trial = Result { try Self.killedRecording(index, after: delays[index], in: directory) }
                box.lock.withLock { box.trials[index] = trial }
            }
        }

        var playable: [URL] = []
        var recovered: [URL] = []
        var lived: [Double] = []
        var margins: [String] = []
        for (index, slot) in box.trials.enumerated() {
            let trial = try #require(slot).get()
            lived.append(trial.alive)
            let label = "take \(index) (killed \(String(format: "%.2f", trial.alive)) s after its file appeared)"
            #expect(trial.killed, "\(label): it had stopped before the kill")
            #expect(!trial.finishedFileExists, "\(label): a finished file exists")
            let probe = try FFprobe.probe(trial.partial)
            #expect(probe.streams(ofType: "video").count == 1, "\(label): ffprobe sees no video")
            let frames = try Self.frames(trial.partial)
            let hashes = frames.map(\.hash)
            // What survived is judged by the recording's timeline (its last frame's time), not by
            // counting frames: a loaded machine's camera skips frames it cannot make in time, and
            // the timeline goes on without them.
            let kept = frames.last.map { $0.time + 1 / Self.frameRate - (frames.first?.time ?? 0) } ?? 0
            margins.append(String(format: "%.2f/%.2f s (%d frames)", kept, trial.alive, frames.count))
            expectInRealTime {
                #expect(kept >= trial.alive - Self.fragmentInterval - Self.slack,
                        "\(label): only \(hashes.count) frames (to \(kept) s) survived")
            }
            #expect(kept <= trial.lifetime + 0.1,
                    "\(label): \(hashes.count) frames (to \(kept) s) is more than the \(trial.lifetime) s the recorder lived")

            let recover = try ProcessRunner.reel(["recover", trial.partial.path], timeout: 30)
            let whole = directory.appendingPathComponent("take\(index).mp4")
            if hashes.isEmpty {
                // Killed before the first fragment was complete: nothing to recover, said in one line.
                #expect(recover.status == 2 && recover.standardError.contains("nothing to recover"), "\(label): \(recover.standardError)")
                #expect(!FileManager.default.fileExists(atPath: whole.path))
                continue
            }
            playable.append(trial.partial)
            #expect(recover.status == 0, "\(label): \(recover.standardError)")
            guard recover.status == 0 else { continue }
            let boxes = MP4Boxes.topLevel(try Data(contentsOf: whole)).map(\.type)
            let moov = try #require(boxes.firstIndex(of: "moov"), "\(label): no moov in \(boxes)")
            let mdat = try #require(boxes.firstIndex(of: "mdat"), "\(label): no mdat in \(boxes)")
            #expect(moov < mdat && !boxes.contains("moof"), "\(label): boxes \(boxes)")
            #expect(try Self.frameHashes(whole) == hashes, "\(label): the recovered frames differ")
            #expect(try FFprobe.probe(whole).streams(ofType: "audio").count == probe.streams(ofType: "audio").count)
            recovered.append(whole)
        }
        // Every take that lived a fragment and the slack holds one (its timeline, above); most
        // takes do (the kills come 1.2 to 3.0 s in), so the kills tested what they should.
        print("crash: kept/alive \(margins.joined(separator: ", "))")
        let long = lived.filter { $0 >= Self.fragmentInterval + Self.slack }.count
        #expect(long >= 10 && playable.count >= long,
                "\(playable.count) of 20 takes held a fragment; \(long) lived over \(Self.fragmentInterval + Self.slack) s")

        guard BrowserPlayer.available else { return }
        let files = playable + recovered.prefix(3)
        let reports = try BrowserPlayer.playAll(files, seconds: 0.5)
        for (file, report) in zip(files, reports) {
            #expect(report.error == nil && report.readyState >= 2 && report.videoWidth == 320,
                    "\(file.lastPathComponent) does not play in Chromium: \(report)")
            #expect(report.currentTimeAfter > report.currentTimeBefore, "\(file.lastPathComponent) did not advance: \(report)")
        }
    }

    @Test func recoverRefusesWhatItCannotUseInOneLine() throws {
        let directory = try Paths.temporaryDirectory("reel-recover")
        defer { try? FileManager.default.removeItem(at: directory) }
        let valid = try Corpus.copy("valid.mp4", to: directory)
        let cases: [([String], Int32, String)] = [
            (["recover", Corpus.url("missing-moov.mp4").path, "-o", directory.appendingPathComponent("a.mp4").path], 2,
             "moov atom not found"),
            (["recover", Corpus.url("audio-only.mp4").path, "-o", directory.appendingPathComponent("b.mp4").path], 2,
             "no video track"),
            (["recover", Corpus.url("empty.mp4").path, "-o", directory.appendingPathComponent("c.mp4").path], 2, "empty"),
            (["recover", valid.path, "-o", valid.path], 2, "overwrite"),
            (["recover", valid.path, "-o", directory.appendingPathComponent("d.avi").path], 1, "must end in"),
            // The default name of valid.mp4's recovery is valid.recovered.mp4; make it exist.
            (["recover", valid.path], 0, "recovered"),
            (["recover", valid.path], 2, "already exists"),
        ]
        for (arguments, status, text) in cases {
            let result = try ProcessRunner.reel(arguments, timeout: 30)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                == ["valid.mp4", "valid.recovered.mp4"])
        #expect(try Data(contentsOf: valid) == Data(contentsOf: Corpus.url("valid.mp4")))
    }
}

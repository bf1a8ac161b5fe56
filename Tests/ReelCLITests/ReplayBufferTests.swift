import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// `reel record --replay-buffer N`: a 10 s recording from the virtual camera and microphone
/// keeps the last 3 s; a SIGUSR1 at about 6 s saves them while the recording goes on. The
/// saved file's frames (read by the camera's frame counter) are a run of the recording's own,
/// the 3 s before the signal (within a frame); its flashes
/// and clicks are in sync; the recording is whole; the buffer never held more than 6 segments.
@Suite(.serialized) struct ReplayBufferTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-replay")
    }

    /// Each frame's counter and presentation time.
    private func counters(_ url: URL) throws -> [(counter: Int, time: Double)] {
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        try reader.add(output)
        try reader.startReading()
        var frames: [(Int, Double)] = []
        while let sample = try output.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
            frames.append((VirtualCamera.readCounter(picture), sample.presentationTime.seconds))
        }
        return frames
    }

    /// `reel record ARGUMENTS` started, its standard error in the pipe, stdin not a terminal.
    private func record(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["record"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, errors)
    }

    @Test func savesTheLastSecondsOnSIGUSR1WhileRecording() throws {
        let main = directory.appendingPathComponent("main.mp4")
        let (process, errors) = try record(["-o", main.path, "--max-duration", "10", "--preset", "640x480", "--replay-buffer", "3"])
        let started = Date()
        var mostSegments = 0, mostBytes = 0, names = Set<String>()
        var signalled: Date?
        while process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            let buffers = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?
                .filter { $0.hasPrefix(".main.replay-") } ?? []
            for buffer in buffers {
                let folder = directory.appendingPathComponent(buffer)
                let segments = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".m4s") }
                names.formUnion(segments)
                mostSegments = max(mostSegments, segments.count)
                let bytes = segments.compactMap {
                    (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path))?[.size] as? Int
                }.reduce(0, +)
                mostBytes = max(mostBytes, bytes)
            }
            // About 6 s into the recording: once the buffer has written five 1 s segments (the
            // recording starts a moment after the process, longer on a loaded machine).
            if signalled == nil, names.count >= 5 {
                kill(process.processIdentifier, SIGUSR1)
                signalled = Date()
            }
        }
        let ended = Date()
        print("replay: signalled \(signalled.map { $0.timeIntervalSince(started) } ?? -1) s after the launch")
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(log)")
        let sent = try #require(signalled)
        // The recording went on: whole, 10 s, every frame the log counts.
        let wrote = try #require(log.split(separator: "\n").first { $0.hasPrefix("wrote \(main.path)") }, "\(log)")
        let words = wrote.split(separator: " ")
        let frames = try #require(words.firstIndex(of: "frames,").flatMap { Int(words[$0 - 1]) }, "\(wrote)")
        let dropped = try #require(words.firstIndex(of: "dropped").flatMap { Int(words[$0 - 1]) }, "\(wrote)")
        let recorded = try counters(main)
        // Every frame of the 10 s at 30 fps is in the file or counted as dropped by the camera
        // (a loaded machine's camera skips frames it cannot make in time: how many is the
        // machine's speed, not Reel's).
        #expect(recorded.count == frames && frames > 0 && frames + dropped >= 300, "\(wrote)")
        #expect(abs((try FFprobe.probe(main).duration ?? 0) - 10) < 0.1)
        #expect(zip(recorded, recorded.dropFirst()).allSatisfy { $1.counter > $0.counter })
        // One replay, beside the recording, nothing else left there.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let replays = files.filter { $0.hasPrefix("replay-") && $0.hasSuffix(".mp4") }
        #expect(files.count == 2 && replays.count == 1, "\(files)")
        let replay = directory.appendingPathComponent(try #require(replays.first))
        let saved = try counters(replay)
        let first = try #require(saved.first), last = try #require(saved.last)
        // The replay's frames are the recording's own, in order, from its first to its last
        // (the buffer's encoder leaves out frames it cannot take in time; the recording has them all).
        let start = try #require(recorded.firstIndex { $0.counter == first.counter }, "first counter \(first.counter)")
        let end = try #require(recorded.firstIndex { $0.counter == last.counter }, "last counter \(last.counter)")
        let run = recorded[start...end].map(\.counter)
        var position = run.startIndex
        for frame in saved {
            while position < run.endIndex, run[position] != frame.counter { position += 1 }
        }
        #expect(position < run.endIndex, "the replay's counters are not the recording's in order")
        let missing = run.count - saved.count
        #expect(missing <= 10, "\(missing) frames left out of the replay")
        let firstTime = recorded[start].time, lastTime = recorded[end].time
        // Exactly N seconds (a frame either way), cut by time from the keyframe grid.
        let probed = try #require(try FFprobe.probe(replay).duration)
        #expect(abs(probed - 3) <= 1.0 / 30 + 0.001, "replay \(probed) s")
        #expect(abs((lastTime - firstTime + 1.0 / 30) - probed) < 0.05, "\(firstTime)-\(lastTime) s, replay \(probed) s")
        // It ends at the signal, known here to within the finishing time: the signal's moment in the
        // recording is 10 s minus the time from the signal to the end (the end came a little
        // after the recording's last frame, so this is early by the finishing time).
        let signalTime = 10 - ended.timeIntervalSince(sent)
        #expect(lastTime >= signalTime - 0.05 && lastTime <= signalTime + 2.5, "last frame \(lastTime) s, signal ≈ \(signalTime) s")
        // One MP4 with its index first: ftyp, moov, then the media.
        let bytes = try Data(contentsOf: replay)
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count, boxes.count < 8 {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            boxes.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        #expect(boxes.prefix(2) == ["ftyp", "moov"] && boxes.contains("mdat") && !boxes.contains("moof"), "\(boxes)")
        // Sound in sync: every flash has its click.
        let measured = try SyncMeter.measure(replay)
        let sync = SyncMeter.match(measured.clicks, expected: measured.flashes, window: 0.2)
        #expect(measured.flashes.count >= 2 && sync.lost == 0, "flashes \(measured.flashes), clicks \(measured.clicks)")
        let worst = sync.offsets.map(abs).max() ?? 1
        #expect(worst <= 1.0 / 30 + 0.001, "offsets \(sync.offsets)")
        // Bounded: never more than N + 3 segments of 1 s, the oldest deleted as new ones land.
        #expect(mostSegments <= 6 && names.count > mostSegments + 2, "at most \(mostSegments) of \(names.count) segments")
        print("replay: counters \(first.counter)-\(last.counter) (\(saved.count) frames, \(missing) left out, \(probed) s), recording "
              + "\(firstTime)-\(lastTime) s, signal ≈ \(signalTime) s, sync \(sync.offsets.map { ($0 * 1000).rounded() }) ms, "
              + "buffer at most \(mostSegments) segments, \(mostBytes) bytes, \(names.count) written; \(log)")
    }

    /// `s` typed on a terminal (a pseudo-terminal Python opens) saves a replay too, and the
    /// recording says how to save when it starts.
    @Test func keyOnTheTerminalSaves() throws {
        let main = directory.appendingPathComponent("keyed.mp4")
        let script = """
            import os, pty, select, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            out, prompted, sent = b"", None, False
            while True:
                # 3 s after the recording says how to save (it has begun): the buffer holds its 2 s.
                if prompted is None and b"press s or Enter" in out:
                    prompted = time.time()
                if not sent and prompted is not None and time.time() - prompted > 3:
                    os.write(fd, b"s")
                    sent = True
                if select.select([fd], [], [], 0.1)[0]:
                    try:
                        data = os.read(fd, 4096)
                    except OSError:
                        break
                    if not data:
                        break
                    out += data
            sys.stdout.write(out.decode(errors="replace"))
            sys.exit(os.waitpid(pid, 0)[1] >> 8)
            """
        let result = try ProcessRunner.run(
            "/usr/bin/python3",
            [
                "-c", script, Paths.reelBinary.path, "record", "-o", main.path, "--max-duration", "7", "--preset", "640x480",
                "--replay-buffer", "2",
            ], timeout: 60)
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("press s or Enter"), "\(result.standardOutput)")
        let replays = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("replay-") }
        let replay = directory.appendingPathComponent(try #require(replays.first, "\(result.standardOutput)"))
        let probed = try #require(try FFprobe.probe(replay).duration)
        #expect(replays.count == 1 && abs(probed - 2) <= 1.0 / 30 + 0.001, "\(replays), \(probed) s")
        // Every frame of the 7 s is in the file or counted as dropped by the camera.
        let wrote = try #require(
            result.standardOutput.components(separatedBy: .newlines).first { $0.hasPrefix("wrote \(main.path)") },
            "\(result.standardOutput)")
        let words = wrote.split(separator: " ")
        let frames = try #require(words.firstIndex(of: "frames,").flatMap { Int(words[$0 - 1]) }, "\(wrote)")
        let dropped = try #require(words.firstIndex(of: "dropped").flatMap { Int(words[$0 - 1]) }, "\(wrote)")
        #expect(try FFprobe.countFrames(main) == frames && frames > 0 && frames + dropped >= 210, "\(wrote)")
    }

    /// `--hls` and `--replay-buffer` together: one segmented writer serves both (1 s segments
    /// in the playlist's folder, the buffer's folder holding none), and the replay saved on
    /// SIGUSR1 lasts its 2 s.
    @Test func hlsAndReplayBufferShareTheirSegments() throws {
        let main = directory.appendingPathComponent("both.mp4")
        let folder = directory.appendingPathComponent("both-hls")
        let (process, errors) = try record([
            "-o", main.path, "--max-duration", "7", "--preset", "640x480", "--hls", folder.path, "--replay-buffer", "2",
        ])
        var signalled = false
        var ownSegments = 0
        while process.isRunning {
            Thread.sleep(forTimeInterval: 0.1)
            for buffer in ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []) where buffer.hasPrefix(".both.replay-") {
                let inside = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(buffer).path)) ?? []
                ownSegments = max(ownSegments, inside.filter { $0.hasSuffix(".m4s") }.count)
            }
            // Once the playlist lists three 1 s segments: the buffer holds its 2 s (the
            // recording starts a moment after the process, longer on a loaded machine).
            let listed = (try? String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8))?
                .components(separatedBy: "#EXTINF:").count ?? 0
            if !signalled, listed - 1 >= 3 {
                kill(process.processIdentifier, SIGUSR1)
                signalled = true
            }
        }
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(log)")
        let playlist = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        let durations = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).dropLast()) }
        // Segments are cut on the 1 s grid, at the first picture at or after each second: each
        // cut (the running sum) is on its second or up to three frames after it, where the camera
        // dropped the pictures at the boundary on a loaded machine ([1, 1, 1, 1, 1.067, 0.933, 1]).
        let cuts = durations.dropLast().reduce(into: [Double]()) { $0.append(($0.last ?? 0) + $1) }
        #expect(durations.count >= 5 && cuts.enumerated().allSatisfy { index, cut in
            cut - Double(index + 1) > -0.01 && cut - Double(index + 1) < 0.1 + 0.01
        }, "\(durations)")
        #expect(ownSegments == 0, "the buffer wrote \(ownSegments) segments of its own")
        let replays = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("replay-") }
        let replay = directory.appendingPathComponent(try #require(replays.first, "\(log)"))
        let probed = try #require(try FFprobe.probe(replay).duration)
        #expect(replays.count == 1 && abs(probed - 2) <= 1.0 / 30 + 0.001, "\(replays), \(probed) s")
        #expect(log.contains("replay buffer: 1 saved, 0 failed") && log.contains("frames to \(folder.path)"), "\(log)")
        try FileManager.default.removeItem(at: replay)
    }

    @Test func badReplayLengthIsOneLine() throws {
        for value in ["0", "-5", "1e9", "thirty", "nan"] {
            let result = try ProcessRunner.reel([
                "record", "-o", directory.appendingPathComponent("x.mp4").path, "--max-duration", "1", "--replay-buffer", value,
            ])
            #expect(
                result.status != 0 && result.standardError.split(separator: "\n").count == 1
                    && result.standardError.contains("--replay-buffer"), "\(value): \(result.standardError)")
        }
        let folderless = try ProcessRunner.reel([
            "record", "-o", directory.appendingPathComponent("x.mp4").path, "--max-duration", "1", "--replay-buffer", "3",
            "--replay-folder", directory.appendingPathComponent("missing").path,
        ])
        #expect(folderless.status != 0 && folderless.standardError.split(separator: "\n").count == 1, "\(folderless.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}

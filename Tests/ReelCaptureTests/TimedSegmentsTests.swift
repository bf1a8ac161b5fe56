import Dispatch
import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// Live segments (`reel record --hls`, `--replay-buffer`) cut by their pictures' times, on
/// the stepped clock with a camera that drops frames: jumps of the clock make the session
/// skip what it cannot deliver, as a loaded machine does.
@Suite struct TimedSegmentsTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-timed-segments")
    }

    /// A session on the stepped clock, the virtual camera and microphone handed to `streamer`;
    /// `handed` gets the camera's counter of each picture its writer took, after it did.
    fileprivate func capture(
        feeding streamer: LiveStreamer, handed: PosixMutex<[Int]>,
        preset: CaptureSession.Preset = .low
    ) throws -> SteppedCapture {
        let capture = SteppedCapture()
        let session = capture.session
        session.sessionPreset = preset
        try session.add(try CaptureDeviceInput(device: CaptureDevice.testCamera(width: 640)))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "virtual:microphone")))
        let pictures = VideoDataOutput()
        pictures.setSampleBufferHandler(queue: DispatchQueue(label: "test.timed.video")) { sample in
            // Only the pictures the writer took: on a loaded machine it has no room for some.
            let before = streamer.statistics.frames
            streamer.appendVideo(sample)
            if streamer.statistics.frames > before, let picture = sample.pixelBuffer {
                handed.withLock { $0.append(VirtualCamera.readCounter(picture)) }
            }
        }
        try session.add(pictures)
        let sound = AudioDataOutput()
        sound.setSampleBufferHandler(queue: DispatchQueue(label: "test.timed.audio")) { sample in streamer.appendAudio(sample) }
        try session.add(sound)
        return capture
    }

    /// A replay buffer of its own on a stepped capture that drops frames when told, with what
    /// it reports and saves.
    private final class ReplayRig {
        let buffer: ReplayBuffer
        let streamer: LiveStreamer
        let capture: SteppedCapture
        let saved: PosixMutex<[URL]>
        let lines: PosixMutex<[String]>
        let handed: PosixMutex<[Int]>

        init(seconds: Double, beside output: URL, suite: TimedSegmentsTests) throws {
            let saved = PosixMutex<[URL]>([]), lines = PosixMutex<[String]>([]), handed = PosixMutex<[Int]>([])
            (self.saved, self.lines, self.handed) = (saved, lines, handed)
            buffer = try ReplayBuffer(
                seconds: seconds, beside: output, destination: output.deletingLastPathComponent(),
                report: { line in lines.withLock { $0.append(line) } }, saved: { url in saved.withLock { $0.append(url) } })
            streamer = LiveStreamer(hls: nil, replay: buffer, withAudio: true, frameRate: 30) { line in
                lines.withLock { $0.append(line) }
            }
            capture = try suite.capture(feeding: streamer, handed: handed)
        }

        /// The newest picture the writer took, once those the camera already gave have reached
        /// it (the clock stands still: the count stays the same over 0.6 s).
        func newestTaken() throws -> Int {
            var (count, still) = (-1, 0)
            for _ in 0..<100 where still < 3 {
                Thread.sleep(forTimeInterval: 0.2)
                let now = handed.withLock { $0.count }
                (count, still) = (now, now == count ? still + 1 : 0)
            }
            return try #require(handed.withLock { $0.last })
        }

        /// Moves the clock on at the camera's pace until the save asked for is written (or
        /// fails), stops, and returns it.
        func replay() throws -> URL {
            let done = capture.advance(until: { saved.withLock { !$0.isEmpty } || buffer.statistics.failed > 0 },
                                       limit: 10, realTime: true)
            streamer.stop()
            capture.session.stopRunning()
            #expect(done && buffer.statistics.failed == 0, "\(lines.withLock { $0 })")
            return try #require(saved.withLock { $0.first })
        }
    }

    /// A live playlist in the folder `name` (with parts of `parts`), written by a streamer fed
    /// from a stepped capture; what the streamer reports and the counters handed to it.
    private func livePlaylist(
        _ name: String, parts: MediaTime?
    ) throws
        -> (URL, SegmentFolderWriter, LiveStreamer, SteppedCapture, PosixMutex<[String]>, PosixMutex<[Int]>)
    {
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let hls = try SegmentFolderWriter(folder: folder, live: true, window: nil, parts: parts)
        let lines = PosixMutex<[String]>([])
        let streamer = LiveStreamer(hls: hls, replay: nil, withAudio: true, frameRate: 30) { line in
            lines.withLock { $0.append(line) }
        }
        let handed = PosixMutex<[Int]>([])
        return (folder, hls, streamer, try capture(feeding: streamer, handed: handed), lines, handed)
    }

    /// Moves the clock `seconds` on, 0.3 s of it frame by frame and then 0.4 s in one jump,
    /// over and over: the camera drops about 10 frames of every 21.
    private func advanceDropping(_ capture: SteppedCapture, seconds: Double) {
        var moved = 0.0
        while moved < seconds {
            capture.advanceInRealTime(seconds: 0.3)
            capture.clock.advance(by: MediaTime(value: 400, timescale: 1000), step: MediaTime(value: 400, timescale: 1000))
            moved += 0.7
        }
    }

    /// Each video packet's time and whether it is a keyframe, by ffprobe (which reads no
    /// durations from fragments).
    private func packets(_ url: URL) throws -> [(time: Double, key: Bool)] {
        let result = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time,flags", "-of", "csv=p=0",
                url.path,
            ])
        return result.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let time = Double(fields[0]) else { return nil }
            return (time, fields[2].contains("K"))
        }
    }

    /// Each frame's camera counter, from the decoded pictures.
    private func counters(_ url: URL) throws -> [Int] {
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        try reader.add(output)
        try reader.startReading()
        var counters: [Int] = []
        while let sample = try output.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
            counters.append(VirtualCamera.readCounter(picture))
        }
        return counters
    }

    /// The live playlist's segments last their 2 s however many frames the camera drops: each
    /// starts with a keyframe on the first picture at or after its boundary. (Keyframes placed
    /// every 60 frames made them 4–5 s long here.) The bandwidth is the segments' bytes over
    /// their time.
    @Test func liveSegmentsLastTheirIntervalWhenTheCameraDropsFrames() throws {
        let (folder, hls, streamer, capture, lines, handed) = try livePlaylist("live", parts: nil)
        capture.session.startRunning()
        capture.advance(0.5)
        advanceDropping(capture, seconds: 13)
        // The encoder takes what it was handed before the writer finishes.
        Thread.sleep(forTimeInterval: 0.5)
        streamer.stop()
        capture.session.stopRunning()
        let counters = handed.withLock { $0 }
        let span = Double((counters.last ?? 0) - (counters.first ?? 0) + 1)
        #expect(Double(counters.count) < span * 0.6, "\(counters.count) frames of \(span): the camera was to drop frames")
        let segments = hls.segments
        #expect(segments.count >= 6, "\(segments.map(\.duration.seconds)) \(lines.withLock { $0 })")
        let initial = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
        var bytes = 0
        var starts: [Double] = []
        var times: [[Double]] = []
        for (index, segment) in segments.enumerated() {
            let data = try Data(contentsOf: folder.appendingPathComponent(segment.name))
            bytes += data.count
            let file = directory.appendingPathComponent("probe-\(index).mp4")
            try (initial + data).write(to: file)
            let found = try packets(file)
            let first = try #require(found.first)
            starts.append(first.time)
            times.append(found.map(\.time))
            #expect(first.key, "segment \(index + 1) starts without a keyframe")
        }
        // Each segment after the first starts with the first picture at or after its boundary
        // (2 s apart from the session's start, zero in the segments, however late the first
        // picture came): the picture before it is before the boundary.
        #expect(starts[0] >= 0 && starts[0] < 1, "the first picture at \(starts[0]) s")
        for index in 1..<segments.count {
            let boundary = 2.0 * Double(index)
            let before = times[index - 1].last ?? 0
            #expect(
                starts[index] >= boundary - 1e-3 && before < boundary - 1e-3,
                "segment \(index + 1) starts at \(starts[index]) s, the picture before at \(before) s, the boundary at \(boundary) s"
            )
            // And it lasts until the next one's first picture, as its report says.
            if index < segments.count - 1 {
                let length = starts[index + 1] - starts[index]
                #expect(
                    abs(segments[index].duration.seconds - length) < 1e-3,
                    "report \(segments[index].duration.seconds) s, ffprobe \(length) s")
            }
        }
        let total = segments.reduce(0.0) { $0 + $1.duration.seconds }
        #expect(
            hls.bandwidth == Int((Double(bytes) * 8 / total).rounded(.up)), "\(hls.bandwidth) for \(bytes) bytes in \(total) s")
        let playlist = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        let longest = segments.map(\.duration.seconds).max() ?? 0
        #expect(
            playlist.contains("#EXT-X-TARGETDURATION:\(Int(longest.rounded(.up)))\n") && playlist.hasSuffix("#EXT-X-ENDLIST\n"),
            "\(playlist)")
        print(
            "live segments with dropped frames: \(counters.count) of \(Int(span)) frames; durations "
                + "\(segments.map { String(format: "%.3f", $0.duration.seconds) }.joined(separator: " ")) s")
    }

    /// `--replay-buffer 3` with a camera dropping frames saves exactly the last 3 s: the file
    /// lasts 3 s (a frame either way), ends with the newest picture the writer took before the
    /// save, starts with the picture on screen 3 s before its end, and every flash has its
    /// click. (Keyframes every 30 frames gave 1.5–2.3 s segments here and a replay up to two of them longer.)
    @Test func replaySavesExactlyTheLastSecondsWhenTheCameraDropsFrames() throws {
        let rig = try ReplayRig(seconds: 3, beside: directory.appendingPathComponent("main.mp4"), suite: self)
        let capture = rig.capture
        capture.session.startRunning()
        capture.advance(0.5)
        advanceDropping(capture, seconds: 6.3)
        capture.advance(0.2)
        let newest = try rig.newestTaken()
        rig.buffer.save()
        advanceDropping(capture, seconds: 1.4)
        let replay = try rig.replay()
        let probe = try FFprobe.probe(replay)
        let video = try #require(probe.streams(ofType: "video").first), audio = try #require(probe.streams(ofType: "audio").first)
        #expect(abs((probe.duration ?? 0) - 3) <= 1.0 / 30 + 1e-3, "replay \(probe.duration ?? 0) s")
        #expect(
            abs((video.duration ?? 0) - 3) <= 1.0 / 30 + 1e-3 && abs((audio.duration ?? 0) - 3) < 0.03,
            "video \(video.duration ?? 0) s, audio \(audio.duration ?? 0) s")
        let frames = try counters(replay)
        let first = try #require(frames.first), last = try #require(frames.last)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 > $0 }, "\(frames)")
        // The last picture is the newest the writer took. (Counting those it had no room for, a
        // CI run at load found the replay 16 counters short of the newest handed over.)
        #expect(last == newest, "last \(last), newest taken \(newest)")
        // 3 s of the camera's 30 fps from the first picture's start to the last one's end, the
        // first shown from before the start when the camera dropped the frames there.
        // (A picture on screen at the start but dropped just before it is not shown: FFmpeg's
        // reading of an edit list starts with the first picture at or after it.)
        let span = Double(last - first + 1) / 30
        #expect(abs(span - 3) <= 0.4 + 1.0 / 30, "counters \(first)-\(last): \(span) s")
        let measured = try SyncMeter.measure(replay)
        // Events 0.1 s inside the replay (one at an end may be cut by the range itself). The
        // dropping camera may show none of the flashes inside, but the sound comes whole (after
        // each stall the microphone's backlog at once), so every click of the range is heard
        // at its time. Two CI runs at load lost the click under a shown flash (flashes [0.2,
        // 1.2], clicks [1.2, 2.2]): the writer's sound queue, 16 buffers deep, had no room for
        // the 19 of a 0.4 s backlog, and the streamer dropped the one with the click.
        let end = probe.duration ?? 3
        func inside(_ times: [Double]) -> [Double] { times.filter { $0 >= 0.1 && $0 <= end - 0.1 } }
        let (flashes, clicks) = (inside(measured.flashes), inside(measured.clicks))
        let rangeStart = Double(last + 1) / 30 - 3
        // Clicks due 0.15 s inside, each looked for among all those heard: one due right at the
        // 0.1 s edge is heard a few samples later, on either side of it.
        let due = stride(from: rangeStart.rounded(.up), through: rangeStart + 3, by: 1).map { $0 - rangeStart }
            .filter { $0 >= 0.15 && $0 <= end - 0.15 }
        let heard = SyncMeter.match(measured.clicks, expected: due, window: 2e-3)
        let dropped = rig.streamer.statistics.soundDropped
        #expect(heard.lost == 0 && dropped == 0, "clicks \(measured.clicks) for \(due); \(dropped) buffers of sound dropped")
        let sync = SyncMeter.match(clicks, expected: flashes, window: 0.2)
        #expect(
            sync.lost == 0 && (sync.offsets.map(abs).max() ?? 0) <= 1.0 / 30 + 1e-3,
            "flashes \(measured.flashes), clicks \(measured.clicks)")
        print(
            "replay with dropped frames: \(frames.count) frames, counters \(first)-\(last) (\(span) s), newest taken \(newest), "
                + "\(probe.duration ?? 0) s; clicks \(due.count - heard.lost) of \(due.count); flashes \(flashes.count), offsets \(sync.offsets.map { ($0 * 1000).rounded() }) ms"
        )
    }

    /// A save asked for just before the camera drops a second of frames across a segment
    /// boundary: its newest picture is the last of its segment, whose report counts the gap.
    /// The replay ends at that picture's end, its sound with it. (Saving to the segment's
    /// end failed: "audio ends … after the video", the copy's last picture ending a frame
    /// after it starts.)
    @Test func aSaveJustBeforeDroppedFramesEndsWithItsPicture() throws {
        let rig = try ReplayRig(seconds: 2, beside: directory.appendingPathComponent("gap.mp4"), suite: self)
        let capture = rig.capture
        capture.session.startRunning()
        capture.advanceInRealTime(seconds: 3.6)
        let newest = try rig.newestTaken()
        rig.buffer.save()
        capture.clock.advance(by: MediaTime(value: 1200, timescale: 1000), step: MediaTime(value: 1200, timescale: 1000))
        let replay = try rig.replay()
        let probe = try FFprobe.probe(replay)
        let video = try #require(probe.streams(ofType: "video").first), audio = try #require(probe.streams(ofType: "audio").first)
        #expect(
            abs((video.duration ?? 0) - 2) <= 1.0 / 30 + 1e-3 && abs((audio.duration ?? 0) - (video.duration ?? 0)) < 0.03,
            "video \(video.duration ?? 0) s, audio \(audio.duration ?? 0) s")
        let frames = try counters(replay)
        // Its last picture is the newest the writer took, and it holds every picture the writer
        // took in its 2 s. (A loaded machine's writer has no room for some: a run took 28 of 60.)
        let last = try #require(frames.last)
        let taken = rig.handed.withLock { $0 }.filter { $0 > newest - 60 && $0 <= newest }
        #expect(
            last == newest && frames == taken && frames.count >= 10,
            "\(frames.count) frames \(frames), last \(last), newest taken \(newest), taken in the replay's 2 s \(taken)")
    }

    /// `--hls` and `--replay-buffer` together: one writer's 1 s segments serve both, the
    /// playlist keeping them all and the buffer folder holding none of its own. A new picture
    /// size (a preset change) goes on with a new initialization segment after a
    /// discontinuity, the playlist still playing through, and a save keeps the new size only.
    @Test func oneWriterServesThePlaylistAndTheBufferThroughASizeChange() throws {
        let folder = directory.appendingPathComponent("both")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let hls = try SegmentFolderWriter(folder: folder, live: true)
        let saved = PosixMutex<[URL]>([])
        let lines = PosixMutex<[String]>([])
        let buffer = try ReplayBuffer(
            seconds: 3, beside: directory.appendingPathComponent("both.mp4"), destination: directory, sharing: hls,
            report: { line in lines.withLock { $0.append(line) } }, saved: { url in saved.withLock { $0.append(url) } })
        let streamer = LiveStreamer(hls: hls, replay: buffer, withAudio: true, frameRate: 30) { line in
            lines.withLock { $0.append(line) }
        }
        let handed = PosixMutex<[Int]>([])
        let capture = try capture(feeding: streamer, handed: handed)
        capture.session.startRunning()
        capture.advanceInRealTime(seconds: 4.5)
        buffer.save()
        // The segment holding the save's end lands once the writer has the pictures after it.
        capture.advanceInRealTime(seconds: 1.5)
        #expect(capture.advance(until: { saved.withLock { $0.count == 1 } }, limit: 5, realTime: true), "\(lines.withLock { $0 })")
        capture.session.sessionPreset = .medium
        capture.advanceInRealTime(seconds: 2.5)
        buffer.save()
        capture.advanceInRealTime(seconds: 1.5)
        #expect(capture.advance(until: { saved.withLock { $0.count == 2 } }, limit: 5, realTime: true), "\(lines.withLock { $0 })")
        Thread.sleep(forTimeInterval: 0.3)
        streamer.stop()
        capture.session.stopRunning()
        let log = lines.withLock { $0 }
        let replays = saved.withLock { $0 }
        #expect(replays.count == 2 && buffer.statistics.failed == 0, "\(log)")
        // Both from the playlist's segments, cut on each writer's 1 s grid, all kept; none in
        // the buffer's folder. Most last 1 s; where the writer had no room for pictures a cut
        // waits for the next one (a run beside CI: 1, 1, 1, 1, 2.23, 1.47, 0.3 s), so a few
        // may be longer and the next shorter, none over 3 s.
        let segments = hls.segments
        for map in ["init.mp4", "init-2.mp4"] {
            let run = segments.filter { $0.initialization == map }.map(\.duration.seconds).dropLast()
            let whole = run.filter { abs($0 - 1) < 0.1 }.count
            #expect(run.count >= 2 && 2 * whole >= run.count && run.allSatisfy { $0 > 0.2 && $0 < 3 }, "\(map): \(run)")
        }
        let own = (try? FileManager.default.contentsOfDirectory(atPath: buffer.folder.path)) ?? []
        #expect(!own.contains { $0.hasSuffix(".m4s") })
        #expect(Set(segments.map(\.initialization)) == ["init.mp4", "init-2.mp4"], "\(segments.map(\.initialization))")
        let playlist = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init-2.mp4\""), "\(playlist)")
        // Each side of the change plays after its own initialization segment, at its size.
        // (FFmpeg 5.1's HLS reader does not switch initialization segments at a discontinuity,
        // so the playlist is checked in its two runs.)
        for (map, width) in [("init.mp4", 320), ("init-2.mp4", 640)] {
            var run = try Data(contentsOf: folder.appendingPathComponent(map))
            for segment in segments where segment.initialization == map {
                run += try Data(contentsOf: folder.appendingPathComponent(segment.name))
            }
            let file = directory.appendingPathComponent("run-\(map)")
            try run.write(to: file)
            #expect(try FFprobe.probe(file).streams(ofType: "video").first?.width == width)
            #expect(try FFprobe.countFrames(file) >= 30, "\(map)")
        }
        // The first replay at the first size, 3 s; the second at the new size, the 2 s or so since the change.
        let first = try FFprobe.probe(replays[0]), second = try FFprobe.probe(replays[1])
        #expect(first.streams(ofType: "video").first?.width == 320 && abs((first.duration ?? 0) - 3) <= 1.0 / 30 + 1e-3)
        #expect(
            second.streams(ofType: "video").first?.width == 640 && (second.duration ?? 0) > 1 && (second.duration ?? 0) < 2.6,
            "\(second.duration ?? 0) s")
        #expect(log.contains { $0.contains("640x480") }, "\(log)")
    }

    /// The Low-Latency HLS rules (RFC 8216bis) the live playlist follows, checked on its text
    /// and files: `EXT-X-PART-INF` with parts, `PART-HOLD-BACK` at least twice (here three
    /// times) the part target, each part at most the target and, unless it is independent or
    /// the last of its segment, at least 85 % of it, a segment's parts adding up to its
    /// `EXTINF` and their bytes to its file, `INDEPENDENT=YES` on the parts that start with a
    /// keyframe and only those, every part's URI once. Returns the parts listed.
    private func checkLowLatency(_ text: String, folder: URL) throws -> Int {
        let lines = text.split(separator: "\n").map(String.init)
        func attribute(_ line: String, _ name: String) -> String? {
            guard let range = line.range(of: "\(name)=") else { return nil }
            var value = line[range.upperBound...]
            if value.hasPrefix("\"") {
                value = value.dropFirst()
                return value.firstIndex(of: "\"").map { String(value[..<$0]) }
            }
            return String(value.prefix { $0 != "," })
        }
        let parts = lines.filter { $0.hasPrefix("#EXT-X-PART:") }
        guard !parts.isEmpty else { return 0 }
        let info = try #require(lines.first { $0.hasPrefix("#EXT-X-PART-INF:") }, "parts without EXT-X-PART-INF")
        let target = try #require(attribute(info, "PART-TARGET").flatMap(Double.init))
        let control = try #require(lines.first { $0.hasPrefix("#EXT-X-SERVER-CONTROL:") }, "no EXT-X-SERVER-CONTROL")
        let holdBack = try #require(attribute(control, "PART-HOLD-BACK").flatMap(Double.init))
        #expect(holdBack >= 2 * target && holdBack >= 3 * target - 1e-6, "PART-HOLD-BACK \(holdBack) for PART-TARGET \(target)")
        #expect(Set(parts.compactMap { attribute($0, "URI") }).count == parts.count, "a part listed twice")
        let initial = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
        var run: [(uri: String, duration: Double, independent: Bool)] = []
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("#EXT-X-PART:") {
                let uri = try #require(attribute(line, "URI")),
                    duration = try #require(attribute(line, "DURATION").flatMap(Double.init))
                run.append((uri, duration, attribute(line, "INDEPENDENT") == "YES"))
                let data = try Data(contentsOf: folder.appendingPathComponent(uri))
                let file = directory.appendingPathComponent("part-\(uri).mp4")
                try (initial + data).write(to: file)
                let found = try packets(file)
                let first = try #require(found.first, "\(uri) has no picture"), last = try #require(found.last)
                #expect(first.key == (attribute(line, "INDEPENDENT") == "YES"), "\(uri): keyframe \(first.key), \(line)")
                // At most the target, unless the camera or the encoder dropped frames in it or
                // right after it (the gap belongs to the picture before it): then it is longer.
                let steps = zip(found, found.dropFirst()).map { $1.time - $0.time } + [duration - (last.time - first.time)]
                if steps.allSatisfy({ $0 < 1.5 / 30 }) {
                    #expect(duration <= target + 1e-6, "\(uri) lasts \(duration) s, over PART-TARGET \(target)")
                }
            } else if line.hasPrefix("#EXTINF:") {
                let extinf = try #require(Double(line.dropFirst(8).prefix { $0 != "," }))
                if !run.isEmpty {
                    let name = lines[index + 1]
                    #expect(
                        abs(run.reduce(0) { $0 + $1.duration } - extinf) < 2e-3,
                        "\(name): parts \(run.map(\.duration)), EXTINF \(extinf)")
                    var joined = Data()
                    for part in run { joined += try Data(contentsOf: folder.appendingPathComponent(part.uri)) }
                    #expect(
                        joined == (try Data(contentsOf: folder.appendingPathComponent(name))), "\(name) is not its parts' bytes")
                    for part in run.dropLast() where !part.independent {
                        #expect(
                            part.duration >= 0.85 * target - 1e-6, "\(part.uri) lasts \(part.duration) s, under 85 % of \(target)"
                        )
                    }
                }
                run = []
            }
        }
        // The segment being filled: its parts so far, each a whole one.
        for part in run where !part.independent {
            #expect(part.duration >= 0.85 * target - 1e-6, "\(part.uri) lasts \(part.duration) s, under 85 % of \(target)")
        }
        return parts.count
    }

    /// `reel record --hls`'s playlist with Low-Latency HLS parts of 0.5 s: while recording it
    /// lists the parts of the segment being filled after the last whole one (the latency a
    /// player can reach: a part, not a segment), by the rules above; at the end it plays
    /// through with every frame.
    @Test func liveHLSListsLowLatencyParts() throws {
        let (folder, _, streamer, capture, lines, _) = try livePlaylist("parts", parts: MediaTime(value: 1, timescale: 2))
        capture.session.startRunning()
        // Looked at every 0.1 s of the clock: some playlists list parts of the segment being
        // filled, after the last whole one.
        var growing = ""
        for _ in 0..<60 {
            capture.advanceInRealTime(seconds: 0.1)
            let text = (try? String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)) ?? ""
            let tail = text.split(separator: "\n").reversed().prefix { !$0.hasPrefix("#EXTINF") && !$0.hasPrefix("segment-") }
            if text.contains("#EXTINF"), tail.contains(where: { $0.hasPrefix("#EXT-X-PART:") }) { growing = text }
        }
        #expect(!growing.isEmpty, "no playlist listed parts of the segment being filled")
        let listed = try checkLowLatency(growing, folder: folder)
        #expect(listed >= 4, "\(growing)")
        capture.advanceInRealTime(seconds: 1)
        Thread.sleep(forTimeInterval: 1)
        let later = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        _ = try checkLowLatency(later, folder: folder)
        // Parts leave the folder six target durations after their segment (three after they
        // leave the playlist): 12 s on from the first segment's end with 2 s segments, 18 s when
        // a late picture made one 2.1 s long (the target is then 3). The first segment's parts
        // go, its own file stays, and every part the playlist lists is there.
        var files: [String] = []
        var recorded = 7.0
        // (Up to a minute: at load a segment stretched by dropped pictures raises the target
        // again, and one run still had the parts after 30 s.)
        for _ in 0..<60 {
            capture.advanceInRealTime(seconds: 1)
            recorded += 1
            files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            if !files.contains("segment-00001.1.m4s") { break }
        }
        Thread.sleep(forTimeInterval: 1)
        let late = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        _ = try checkLowLatency(late, folder: folder)
        #expect(!files.contains { $0.hasPrefix("segment-00001.") && $0 != "segment-00001.m4s" }, "\(files.sorted())")
        #expect(files.contains("segment-00001.m4s"), "\(files.sorted())")
        streamer.stop()
        capture.session.stopRunning()
        let final = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        #expect(final.hasSuffix("#EXT-X-ENDLIST\n") && !final.contains("#EXT-X-PART"), "\(final)")
        // (ffprobe lists an HLS stream twice, as a program's and on its own.)
        let counted = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of",
                "csv=p=0",
                folder.appendingPathComponent("playlist.m3u8").path,
            ])
        let frames = counted.standardOutput.split(separator: "\n").compactMap { Int($0) }.first ?? 0
        let written = streamer.statistics.frames
        // Every picture written plays. At load the writer has no room for some (a CI run wrote
        // 372 of about 420), so the count is held to half the clock's; the segments' lengths
        // must still cover the clock to within a segment.
        #expect(
            frames == written && Double(frames) >= 0.5 * 30 * recorded,
            "\(frames) frames play of \(written) written in \(recorded) s; \(lines.withLock { $0 })")
        let listedSeconds = final.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst(8).prefix { $0 != "," }) }.reduce(0, +)
        #expect(abs(listedSeconds - recorded) < 2.1, "segments last \(listedSeconds) s of \(recorded) s recorded\n\(final)")
        print("LL-HLS: \(listed) parts listed at 3.3 s; playlist then:\n\(growing)")
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore
@testable import ReelPlayback
import ReelTestSupport
import Testing

/// What a viewer sees: the picture on screen after seeks and during play, read back from
/// frames that spell their index in bars, and the time the player reports on a manual clock.
@Suite struct PlayerTests {
    static let bits = 11
    static let fps: Int64 = 30
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-playback")
    }

    /// A 30 fps clip whose frame n shows `n + offset` in binary: bar b (16 pixels wide) is
    /// white when bit b is set. A keyframe every 12 frames, so seeks land inside groups.
    private func indexClip(_ name: String, frames: Int, offset: Int = 0) throws -> Asset {
        let url = directory.appendingPathComponent("\(name).mp4")
        let width = 16 * Self.bits, height = 32
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: width, height: height, quality: 0, keyFrameInterval: 12, expectedFrameRate: 30))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for n in 0..<frames {
            let picture = try PixelBuffer(width: width, height: height, pixelFormat: .yuv420p)
            picture.fill(planeValues: [16, 128, 128])
            let value = n + offset
            picture.withMutablePlane(0) { base, stride in
                for bit in 0..<Self.bits where value & (1 << bit) != 0 {
                    for y in 0..<height { (base + y * stride + bit * 16).initializeMemory(as: UInt8.self, repeating: 235, count: 16) }
                }
            }
            try input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(n), timescale: 30),
                                          duration: MediaTime(value: 1, timescale: 30)))
        }
        try writer.finishSynchronously()
        return try Asset(url: url)
    }

    /// The index a picture spells.
    static func index(of picture: PixelBuffer) -> Int {
        var value = 0
        for bit in 0..<bits {
            let luma = picture.element(plane: 0, x: bit * 16 + 8, y: picture.height / 2)?.first ?? 0
            if luma > 128 { value |= 1 << bit }
        }
        return value
    }

    /// A random time in `[0, limit)`, at 90 kHz (not on the frame grid).
    static func randomTime(below limit: MediaTime, using generator: inout some RandomNumberGenerator) -> MediaTime {
        MediaTime(value: Int64.random(in: 0..<limit.convertScale(90000).value, using: &generator), timescale: 90000)
    }

    static func frameIndex(_ time: MediaTime) -> Int {
        Int(TimeObserverSchedule.slot(of: time, interval: MediaTime(value: 1, timescale: 30)) ?? -1)
    }

    @Test func exactSeeksShowTheFrameOnScreen() throws {
        let asset = try indexClip("plain", frames: 120)
        let item = PlayerItem(asset: asset)
        #expect(item.status == .readyToPlay)
        #expect(item.duration == MediaTime(value: 4, timescale: 1))
        let output = PlayerItemVideoOutput()
        item.add(output)
        let player = Player(playerItem: item, clock: ManualClock())
        var generator = SeededGenerator(seed: 19)
        for _ in 0..<100 {
            let time = Self.randomTime(below: item.duration, using: &generator)
            player.seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero)
            #expect(player.currentTime() == time)
            var shown = MediaTime.invalid
            let picture = try #require(output.copyPixelBuffer(forItemTime: player.currentTime(), itemTimeForDisplay: &shown))
            #expect(Self.index(of: picture) == Self.frameIndex(time), "seek to \(time.seconds) s")
            #expect(shown == MediaTime(value: Int64(Self.frameIndex(time)), timescale: 30))
            #expect(!output.hasNewPixelBuffer(forItemTime: time))
        }
    }

    /// Two clips and a piece of the first again: every seek lands on the source frame the
    /// edit puts there.
    @Test func exactSeeksAcrossACompositionsEdits() throws {
        let a = try indexClip("a", frames: 120)
        let b = try indexClip("b", frames: 90, offset: 1024)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        func s(_ value: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: value, timescale: scale) }
        let aTrack = try #require(a.tracks(withMediaType: .video).first)
        let bTrack = try #require(b.tracks(withMediaType: .video).first)
        try track.insertTimeRange(MediaTimeRange(start: s(1), duration: s(2)), of: aTrack, at: .zero)
        try track.insertTimeRange(MediaTimeRange(start: s(1, 2), duration: s(2)), of: bTrack, at: s(2))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: s(1)), of: aTrack, at: s(4))
        composition.naturalSize = aTrack.naturalSize
        let item = PlayerItem(composition: composition)
        #expect(item.duration == s(5))
        let output = PlayerItemVideoOutput()
        item.add(output)
        let player = Player(playerItem: item, clock: ManualClock())
        func expected(_ time: MediaTime) -> Int {
            let frame = Self.frameIndex(time)
            if frame < 60 { return frame + 30 }            // a from 1 s
            if frame < 120 { return 1024 + frame - 60 + 15 } // b from 0.5 s
            return frame - 120                              // a from 0
        }
        var generator = SeededGenerator(seed: 2026)
        var times = (0..<100).map { _ in Self.randomTime(below: item.duration, using: &generator) }
        times += [s(2) - s(1, 90000), s(2), s(4) - s(1, 90000), s(4), s(0)] // either side of each cut
        for time in times {
            player.seek(to: time)
            let picture = try #require(output.copyPixelBuffer(forItemTime: player.currentTime()))
            #expect(Self.index(of: picture) == expected(time), "seek to \(time.seconds) s")
        }
    }

    @Test func playingAtRateTwoShowsEveryOtherFrame() throws {
        let item = PlayerItem(asset: try indexClip("rate", frames: 120))
        let output = PlayerItemVideoOutput()
        item.add(output)
        let clock = ManualClock(start: MediaTime(value: 1000, timescale: 1))
        let player = Player(playerItem: item, clock: clock)
        player.rate = 2
        #expect(player.timeControlStatus == .playing)
        var seen: [Int] = []
        for _ in 0..<30 {
            let time = output.itemTime(forHostTime: clock.hostTime)
            if output.hasNewPixelBuffer(forItemTime: time), let picture = output.copyPixelBuffer(forItemTime: time) {
                seen.append(Self.index(of: picture))
            }
            clock.advance(by: MediaTime(value: 1, timescale: 30))
        }
        #expect(seen == Array(stride(from: 0, to: 60, by: 2)))
        #expect(player.currentTime() == MediaTime(value: 2, timescale: 1)) // 1 s of clock at rate 2
        player.pause()
        clock.advance(by: MediaTime(value: 5, timescale: 1))
        #expect(player.currentTime() == MediaTime(value: 2, timescale: 1))
        #expect(player.timeControlStatus == .paused)
    }

    @Test func playingToTheEndPostsTheNotificationOnce() throws {
        let item = PlayerItem(asset: try indexClip("end", frames: 60))
        let clock = ManualClock()
        let player = Player(playerItem: item, clock: clock)
        let posts = PosixMutex<[MediaTime]>([])
        let token = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification, object: item,
                                                           queue: nil) { _ in
            posts.withLock { $0.append(player.currentTime()) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        player.play()
        for _ in 0..<30 { clock.advance(by: MediaTime(value: 1, timescale: 10)) } // 3 s over a 2 s item
        #expect(posts.withLock { $0 } == [MediaTime(value: 2, timescale: 1)])
        #expect(player.rate == 0)
        #expect(player.currentTime() == MediaTime(value: 2, timescale: 1))
        // A forward end time ends it there instead, after a seek back.
        item.forwardPlaybackEndTime = MediaTime(value: 1, timescale: 1)
        player.seek(to: MediaTime(value: 1, timescale: 2))
        player.play()
        for _ in 0..<10 { clock.advance(by: MediaTime(value: 1, timescale: 10)) }
        #expect(posts.withLock { $0 } == [MediaTime(value: 2, timescale: 1), MediaTime(value: 1, timescale: 1)])
    }

    @Test func periodicAndBoundaryObservers() throws {
        let item = PlayerItem(asset: try indexClip("observe", frames: 90))
        let clock = ManualClock()
        let player = Player(playerItem: item, clock: clock)
        let periodic = PosixMutex<[MediaTime]>([]), boundary = PosixMutex(0)
        player.addPeriodicTimeObserver(forInterval: MediaTime(value: 1, timescale: 2)) { time in periodic.withLock { $0.append(time) } }
        let crossing = player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 1, timescale: 1), MediaTime(value: 3, timescale: 2)]) {
            boundary.withLock { $0 += 1 }
        }
        player.play() // fires once for the rate change, at 0
        for _ in 0..<20 { clock.advance(by: MediaTime(value: 1, timescale: 10)) }
        let fired = periodic.withLock { $0 }
        #expect(fired == [0, 5, 10, 15, 20].map { MediaTime(value: $0, timescale: 10) })
        #expect(boundary.withLock { $0 } == 2)
        player.removeTimeObserver(crossing)
        player.seek(to: .zero)
        for _ in 0..<20 { clock.advance(by: MediaTime(value: 1, timescale: 10)) }
        #expect(boundary.withLock { $0 } == 2)
    }

    /// Infinite tolerances land on the keyframe nearest the time asked for: the keyframes
    /// are ffprobe's (x264 adds some at its scene cuts besides every 12th frame).
    @Test func toleranceSeeksLandOnTheNearestKeyframe() throws {
        let asset = try indexClip("keys", frames: 120)
        let probe = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                              "packet=pts_time,flags", "-of", "csv=p=0", asset.url.path])
        let keyframes = probe.standardOutput.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, fields[1].hasPrefix("K") else { return nil }
            return Double(fields[0])
        }.sorted()
        #expect(keyframes.count >= 10)
        let item = PlayerItem(asset: asset)
        let output = PlayerItemVideoOutput()
        item.add(output)
        let player = Player(playerItem: item, clock: ManualClock())
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<30 {
            let time = Self.randomTime(below: item.duration, using: &generator)
            player.seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
            let landed = player.currentTime()
            let nearest = try #require(keyframes.min { abs($0 - time.seconds) < abs($1 - time.seconds) })
            #expect(abs(landed.seconds - nearest) < 1e-6, "seek to \(time.seconds) s landed at \(landed.seconds) s")
            let picture = try #require(output.copyPixelBuffer(forItemTime: landed))
            #expect(Self.index(of: picture) == Self.frameIndex(landed))
        }
        // A window that holds no keyframe leaves the time exact.
        let between = MediaTime(value: 5, timescale: 30) + MediaTime(value: 1, timescale: 1000)
        player.seek(to: between, toleranceBefore: MediaTime(value: 1, timescale: 100), toleranceAfter: MediaTime(value: 1, timescale: 100))
        #expect(player.currentTime() == between)
    }

    /// A seek keeps the file and the decoder open (``AssetReader/restart(at:)``): reading
    /// again backwards, forwards and after the end gives exactly the frame on screen then.
    @Test func aRestartedReaderReadsFromTheNewTime() throws {
        let asset = try indexClip("restart", frames: 90)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p))
        try reader.add(output)
        try reader.startReading()
        for _ in 0..<40 { _ = try output.copyNextSampleBuffer() }
        let nudge = MediaTime(value: 1, timescale: 1000)
        for frame in [10, 75, 3, 0, 89, 47] {
            try reader.restart(at: MediaTime(value: Int64(frame), timescale: 30) + nudge)
            let sample = try #require(try output.copyNextSampleBuffer())
            #expect(sample.presentationTime == MediaTime(value: Int64(frame), timescale: 30))
            #expect(Self.index(of: try #require(sample.pixelBuffer)) == frame)
            let following = try output.copyNextSampleBuffer()
            #expect(following.flatMap(\.pixelBuffer).map(Self.index) == (frame < 89 ? frame + 1 : nil), "after frame \(frame)")
        }
        while try output.copyNextSampleBuffer() != nil {}
        try reader.restart(at: MediaTime(value: 1, timescale: 1))
        let again = try #require(try output.copyNextSampleBuffer())
        #expect(Self.index(of: try #require(again.pixelBuffer)) == 30)

        // Through a player: the output's sources are read ahead on their own threads, and a
        // seek back after the end (the thread has stopped at the end) shows the frame again.
        let item = PlayerItem(asset: asset)
        let video = PlayerItemVideoOutput()
        item.add(video)
        let player = Player(playerItem: item, clock: ManualClock())
        player.seek(to: MediaTime(value: 89, timescale: 30))
        #expect(video.copyPixelBuffer(forItemTime: player.currentTime()).map(Self.index) == 89)
        usleep(100_000)
        for frame in [12, 60, 61, 2] {
            player.seek(to: MediaTime(value: Int64(frame), timescale: 30))
            #expect(video.copyPixelBuffer(forItemTime: player.currentTime()).map(Self.index) == frame)
        }
    }

    @Test func aMissingFileFailsTheItem() {
        let item = PlayerItem(url: directory.appendingPathComponent("absent.mp4"))
        #expect(item.status == .failed)
        #expect(item.error?.description.contains("absent.mp4") == true)
        let output = PlayerItemVideoOutput()
        item.add(output)
        #expect(output.copyPixelBuffer(forItemTime: .zero) == nil)
    }
}

/// SplitMix64, so the random times are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

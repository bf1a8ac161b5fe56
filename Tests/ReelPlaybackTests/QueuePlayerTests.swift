import Foundation
import ReelAsset
import ReelCore
@testable import ReelPlayback
import ReelTestSupport
import Testing

/// A queue of items played one after another: the next starts where the last ended, to the
/// clock's tick, and shows its own frames.
@Suite struct QueuePlayerTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-queue")
    }

    /// 2 s at 30 fps, 176x32; frame n spells n + offset in 11 bars of 16 pixels.
    private func indexClip(_ name: String, offset: Int) throws -> PlayerItem {
        let url = directory.appendingPathComponent("\(name).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: 176, height: 32, quality: 0, keyFrameInterval: 12, expectedFrameRate: 30))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for n in 0..<60 {
            let picture = try PixelBuffer(width: 176, height: 32, pixelFormat: .yuv420p)
            picture.fill(planeValues: [16, 128, 128])
            picture.withMutablePlane(0) { base, stride in
                for bit in 0..<11 where (n + offset) & (1 << bit) != 0 {
                    for y in 0..<32 { (base + y * stride + bit * 16).initializeMemory(as: UInt8.self, repeating: 235, count: 16) }
                }
            }
            try input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(n), timescale: 30),
                                          duration: MediaTime(value: 1, timescale: 30)))
        }
        try writer.finishSynchronously()
        return PlayerItem(url: url)
    }

    @Test func theNextItemStartsWhereTheLastEnded() throws {
        let first = try indexClip("first", offset: 0), second = try indexClip("second", offset: 1024)
        let firstOutput = PlayerItemVideoOutput(), secondOutput = PlayerItemVideoOutput()
        first.add(firstOutput)
        second.add(secondOutput)
        let clock = ManualClock()
        let player = QueuePlayer(items: [first, second], clock: clock)
        #expect(player.actionAtItemEnd == .advance)
        #expect(player.items().count == 2)
        let ended = PosixMutex<[ObjectIdentifier]>([])
        let token = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification, object: nil,
                                                           queue: nil) { note in
            // Only this test's items: other suites' players post from their threads too.
            if let item = note.object as? PlayerItem, item === first || item === second {
                ended.withLock { $0.append(ObjectIdentifier(item)) }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        player.play()
        // Steps of 7/90 s do not land on the join at 2 s: the second item's time must still be exact.
        let step = MediaTime(value: 7, timescale: 90)
        var elapsed = MediaTime.zero
        var seen: [Int] = []
        while elapsed < MediaTime(value: 3, timescale: 1) {
            clock.advance(by: step)
            elapsed = elapsed + step
            let item = try #require(player.currentItem)
            let output = item === first ? firstOutput : secondOutput
            let time = player.currentTime()
            if item === second { #expect(time == elapsed - MediaTime(value: 2, timescale: 1)) }
            if let picture = output.copyPixelBuffer(forItemTime: time) { seen.append(PlayerTests.index(of: picture)) }
        }
        #expect(player.currentItem === second)
        #expect(ended.withLock { $0 } == [ObjectIdentifier(first)])
        // Frames climb through the first clip, then go on in the second's numbering.
        let split = try #require(seen.firstIndex { $0 >= 1024 })
        #expect(seen[..<split].allSatisfy { $0 < 60 } && seen[split...].allSatisfy { $0 >= 1024 })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 || ($0 < 60 && $1 >= 1024) })
        // Past the last item's end the queue is empty.
        clock.advance(by: MediaTime(value: 2, timescale: 1))
        #expect(player.currentItem == nil)
        #expect(ended.withLock { $0 } == [ObjectIdentifier(first), ObjectIdentifier(second)])
    }

    /// Twenty passes of a 2 s clip: every frame in order, the last of one pass and the first
    /// of the next one frame apart, the item time exact at every step.
    @Test func aLooperLoopsTwentyTimesWithoutAGap() throws {
        let template = try indexClip("loop", offset: 0)
        let clock = ManualClock()
        let player = QueuePlayer(items: [], clock: clock)
        let looper = PlayerLooper(player: player, templateItem: template)
        #expect(looper.status == .ready)
        let outputs = Self.videoOutputs(of: looper)
        player.play()
        var wrong: [String] = []
        for step in 0..<(20 * 60) {
            let item = try #require(player.currentItem)
            let time = player.currentTime()
            let expected = step % 60
            if time != MediaTime(value: Int64(expected), timescale: 30) { wrong.append("step \(step): time \(time)") }
            let picture = try #require(outputs[ObjectIdentifier(item)]?.copyPixelBuffer(forItemTime: time))
            if PlayerTests.index(of: picture) != expected { wrong.append("step \(step): frame \(PlayerTests.index(of: picture))") }
            clock.advance(by: MediaTime(value: 1, timescale: 30))
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(looper.loopCount == 20)
        looper.disableLooping()
        #expect(looper.status == .cancelled)
        clock.advance(by: MediaTime(value: 2, timescale: 1))
        #expect(player.currentItem == nil)
    }

    /// A video output on each of `looper`'s items, found by the item.
    static func videoOutputs(of looper: PlayerLooper) -> [ObjectIdentifier: PlayerItemVideoOutput] {
        var outputs: [ObjectIdentifier: PlayerItemVideoOutput] = [:]
        for item in looper.loopingPlayerItems {
            let output = PlayerItemVideoOutput()
            item.add(output)
            outputs[ObjectIdentifier(item)] = output
        }
        return outputs
    }

    /// A looper of a time range: each pass shows the range's frames (0.5 s to 1.5 s of the
    /// clip: frames 15 to 44) in order, the last of one pass and the first of the next one
    /// frame apart.
    @Test func aLooperOfATimeRangeLoopsThatRange() throws {
        let template = try indexClip("range", offset: 0)
        let clock = ManualClock()
        let player = QueuePlayer(items: [], clock: clock)
        let range = MediaTimeRange(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 3, timescale: 2))
        let looper = PlayerLooper(player: player, templateItem: template, timeRange: range)
        let outputs = Self.videoOutputs(of: looper)
        player.play()
        var shown: [Int] = []
        for _ in 0..<(5 * 30) {
            let item = try #require(player.currentItem)
            let picture = try #require(outputs[ObjectIdentifier(item)]?.copyPixelBuffer(forItemTime: player.currentTime()))
            shown.append(PlayerTests.index(of: picture))
            clock.advance(by: MediaTime(value: 1, timescale: 30))
        }
        let pass = Array(15..<45)
        #expect(shown == Array((0..<5).map { _ in pass }.joined()), "\(shown.prefix(40))")
        #expect(looper.loopCount == 5)
    }

    @Test func queueEditing() throws {
        let a = try indexClip("a", offset: 0), b = try indexClip("b", offset: 100), c = try indexClip("c", offset: 200)
        let player = QueuePlayer(items: [a, b], clock: ManualClock())
        #expect(!player.canInsert(b, after: a))
        player.insert(c, after: a)
        #expect(player.items().map(ObjectIdentifier.init) == [a, c, b].map(ObjectIdentifier.init))
        player.remove(c)
        player.advanceToNextItem()
        #expect(player.currentItem === b)
        #expect(player.currentTime() == .zero)
        player.removeAllItems()
        #expect(player.currentItem == nil && player.items().isEmpty)
    }

    @Test func aPlainPlayerPausesAtTheEndForAdvance() throws {
        let item = try indexClip("plain", offset: 0)
        let clock = ManualClock()
        let player = Player(playerItem: item, clock: clock)
        player.actionAtItemEnd = .advance
        player.play()
        clock.advance(by: MediaTime(value: 5, timescale: 2))
        #expect(player.rate == 0)
        #expect(player.currentTime() == MediaTime(value: 2, timescale: 1))
        #expect(player.currentItem === item)
    }
}

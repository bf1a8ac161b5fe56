import Foundation
import ReelAsset
import ReelCore
@testable import ReelPlayback
import ReelTestSupport
import Testing

/// Rows of docs/porting-from-avfoundation.md ("Playback") that no other test called
/// (issue 15: every row checked against a call), each called as a port would call it
/// and checked on the clock and the pictures a viewer would see.
@Suite struct PortingTablePlaybackTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-porting-playback")
    }

    /// 1 s at 30 fps, 64x16, its luma `level` throughout.
    private func clip(_ name: String, level: UInt8) throws -> URL {
        let url = directory.appendingPathComponent("\(name).mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: 64, height: 16, quality: 0, expectedFrameRate: 30))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let picture = try PixelBuffer(width: 64, height: 16, pixelFormat: .yuv420p)
        picture.fill(planeValues: [level, 128, 128])
        for n in 0..<30 {
            try input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(n), timescale: 30),
                                          duration: MediaTime(value: 1, timescale: 30)))
        }
        try writer.finishSynchronously()
        return url
    }

    private func luma(_ output: PlayerItemVideoOutput, at time: MediaTime) -> Int? {
        output.copyPixelBuffer(forItemTime: time).flatMap { $0.element(plane: 0, x: 32, y: 8)?.first }.map(Int.init)
    }

    /// `loadedTimeRanges` and `seekableTimeRanges`: a local file is all loaded and seekable.
    @Test func aLocalItemIsWhollyLoadedAndSeekable() throws {
        let item = PlayerItem(url: try clip("ranges", level: 100))
        let whole = MediaTimeRange(start: .zero, duration: item.duration)
        #expect(item.duration == MediaTime(value: 1, timescale: 1))
        #expect(item.loadedTimeRanges == [whole])
        #expect(item.seekableTimeRanges == [whole])
    }

    /// `replaceCurrentItem(with:)`: the new item's pictures from its start.
    @Test func replacingTheCurrentItemShowsTheNewOne() throws {
        let dark = PlayerItem(url: try clip("dark", level: 40)), light = PlayerItem(url: try clip("light", level: 200))
        let darkOutput = PlayerItemVideoOutput(), lightOutput = PlayerItemVideoOutput()
        dark.add(darkOutput)
        light.add(lightOutput)
        let clock = ManualClock()
        let player = Player(playerItem: dark, clock: clock)
        player.play()
        clock.advance(by: MediaTime(value: 1, timescale: 2))
        #expect(abs((luma(darkOutput, at: player.currentTime()) ?? 0) - 40) <= 3)
        player.replaceCurrentItem(with: light)
        #expect(player.currentItem === light)
        #expect(player.currentTime() == .zero)
        clock.advance(by: MediaTime(value: 1, timescale: 5))
        #expect(player.currentTime() == MediaTime(value: 1, timescale: 5))
        #expect(abs((luma(lightOutput, at: player.currentTime()) ?? 0) - 200) <= 3)
    }

    /// `defaultRate`: `play()` plays at it. `isMuted` is kept apart from `volume`.
    @Test func playUsesTheDefaultRateAndMutingKeepsTheVolume() throws {
        let clock = ManualClock()
        let player = Player(playerItem: PlayerItem(url: try clip("rate", level: 100)), clock: clock)
        player.defaultRate = 2
        player.play()
        #expect(player.rate == 2)
        clock.advance(by: MediaTime(value: 1, timescale: 4))
        #expect(player.currentTime() == MediaTime(value: 1, timescale: 2))
        player.volume = 0.5
        player.isMuted = true
        #expect(player.isMuted && player.volume == 0.5)
        player.isMuted = false
        #expect(!player.isMuted && player.volume == 0.5)
    }

    /// `failedToPlayToEndTimeNotification` with the error under `failedToPlayToEndTimeErrorKey`:
    /// the file is replaced by rubbish while the item is open.
    @Test func aFileThatBreaksWhilePlayingPostsTheFailure() throws {
        let url = try clip("breaks", level: 100)
        let item = PlayerItem(url: url)
        let output = PlayerItemVideoOutput()
        item.add(output)
        let player = Player(playerItem: item, clock: ManualClock())
        #expect(item.status == .readyToPlay)
        final class Seen: @unchecked Sendable { var errors: [ReelError] = [] }
        let seen = Seen()
        let observer = NotificationCenter.default.addObserver(forName: PlayerItem.failedToPlayToEndTimeNotification, object: item,
                                                              queue: nil) { note in
            if let error = note.userInfo?[PlayerItem.failedToPlayToEndTimeErrorKey] as? ReelError { seen.errors.append(error) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try Data(repeating: 0x5A, count: 4096).write(to: url)
        #expect(output.copyPixelBuffer(forItemTime: MediaTime(value: 1, timescale: 2)) == nil)
        #expect(item.status == .failed)
        #expect(seen.errors.count == 1, "\(seen.errors)")
        #expect(item.error != nil)
        _ = player
    }
}

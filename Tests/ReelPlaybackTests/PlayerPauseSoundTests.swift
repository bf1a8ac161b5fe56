import Foundation
import ReelCore
@testable import ReelPlayback
import ReelTestSupport
import Testing

/// A pause silences the sound at once: what waits in the device (1 s of it, so that a loaded
/// machine's server does not drain it) is dropped, not played on after the picture stopped.
/// The old feeder played on for the 0.3 s it held.
@Suite(.serialized) struct PlayerPauseSoundTests {
    @Test(.enabled(if: DeviceServer.pulseMissing == nil, "needs pulseaudio and pulseaudio-utils (make deps)"))
    func pauseSilencesTheSoundAtOnce() throws {
        let directory = try Paths.temporaryDirectory("reel-playback-pause")
        let clip = directory.appendingPathComponent("tone.mp4")
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6", "-c:a", "aac", clip.path,
        ])
        let server = try DeviceServer.pulseAudio(sink: "reelpause", sinkOptions: "norewinds=1")
        defer { server.stop() }
        let player = Player(
            playerItem: PlayerItem(url: clip), audioDevice: .pulseAudio(server: server.pulseServer, sink: "reelpause"))
        try #require(
            PlayerSoundTests.soundDeviceStarted(player.clock, by: Date().addingTimeInterval(20)),
            "the sound device never started")
        let recording = directory.appendingPathComponent("heard.raw")
        let recorded = PlayerSoundTests.recordMonitor(of: "reelpause", server: server, seconds: 3, to: recording)
        usleep(500_000)
        player.play()
        usleep(1_000_000)
        player.pause()
        let pausedAt = player.currentTime().seconds
        recorded.wait()
        let data = try Data(contentsOf: recording)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // 10 ms windows carrying the tone: as many as the player's time ran, not a buffer more.
        var loud = 0
        for start in stride(from: 0, to: max(0, samples.count - 480), by: 480) {
            let window = samples[start..<start + 480]
            if (window.reduce(0) { $0 + Double($1 * $1) } / 480).squareRoot() > 0.03 { loud += 1 }
        }
        let heard = Double(loud) / 100
        print("pause: the player stopped at \(pausedAt) s, the tone was heard for \(heard) s")
        expectInRealTime {
            #expect(abs(heard - pausedAt) < 0.08, "heard \(heard) s of tone for \(pausedAt) s played")
        }
    }
}

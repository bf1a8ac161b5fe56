import Foundation
import ReelTestSupport
import Testing

/// The camera page's microphone meter (issue 18, Deliver 4) against a real PulseAudio
/// daemon: the studio records the null sink's monitor, and a tone played into the sink
/// must move the meter that silence leaves at the bottom.
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the page runs against live capture"))
struct StudioMeterTests {
    @Test(.disabled(if: DeviceServer.pulseMissing != nil, "\(DeviceServer.pulseMissing ?? "")"))
    func theMeterShowsATonePlayedIntoTheMicrophone() throws {
        guard BrowserPlayer.available else { return }
        let pulse = try DeviceServer.pulseAudio(sink: "reelmeter", sinkOptions: "norewinds=1")
        defer { pulse.stop() }
        let folder = try Paths.temporaryDirectory("reel-studio-meter")
        // A second of 1 kHz at half scale: −9 dBFS of average power.
        let tone = folder.appendingPathComponent("tone.wav")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=48000:d=1", "-ac", "1",
                                  "-c:a", "pcm_s16le", tone.path])
        let environment = ["PULSE_SERVER": pulse.pulseServer, "HOME": pulse.directory.path]
        let studio = try StudioProcess(arguments: ["--mic", "pulse:reelmeter.monitor"], environment: environment)
        let result = try StudioTwoPageTests.run(
            "meter", studio, environment: environment.merging(["REEL_TONE": tone.path, "REEL_SINK": "reelmeter"]) { $1 })
        #expect(result["played"] as? Int == 0, "paplay: \(result)")
        let quiet = (result["quiet"] as? [Any] ?? []).compactMap { $0 as? Double }
        let loud = (result["loud"] as? [Any] ?? []).compactMap { $0 as? Double }
        print("studio meter: silence \(quiet.max() ?? .nan) dBFS at most, the tone \(loud.max() ?? .nan) dBFS at most")
        // Silence reads at the floor; the tone near its −9 dBFS.
        #expect(!quiet.isEmpty && quiet.allSatisfy { $0 < -90 }, "silence: \(quiet)")
        #expect((loud.max() ?? -200) > -15 && (loud.max() ?? 0) < -3, "the tone: \(loud)")
        // And the page draws what the studio measured.
        let quietShown = (result["quietShown"] as? [[Any]] ?? []).compactMap { $0.first as? Double }
        let loudShown = (result["loudShown"] as? [[Any]] ?? []).compactMap { $0.first as? Double }
        #expect(!quietShown.isEmpty && quietShown.allSatisfy { $0 == -60 }, "the meter in silence: \(quietShown)")
        #expect((loudShown.max() ?? -60) > -15, "the meter with the tone: \(loudShown)")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }
}

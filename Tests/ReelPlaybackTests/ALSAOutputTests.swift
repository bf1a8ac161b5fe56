import Foundation
import ReelPlayback
import ReelTestSupport
import Testing

/// The player's sound through ALSA where there is no PulseAudio server, and silence where
/// there is neither. The machine has no sound card: the ALSA configuration the test writes
/// (`ALSA_CONFIG_PATH`) makes the default PCM a `file` plugin over a `null` one, which writes
/// every sample it is given, raw, to a file. `reel play` runs as a user would run it.
@Suite(.serialized) struct ALSAOutputTests {
    static let rate = 48000

    /// A 2 s clip whose sound is 16-bit PCM (no codec between the file and the samples):
    /// left a chirp 0.5 sin(2π (200 + 150 t) t + 1), right 0.25 sin(2π 660 t + 2): nonzero from
    /// the first sample, and no stretch of it like another.
    static func makeClip(in directory: URL) throws -> URL {
        let clip = directory.appendingPathComponent("tone.mov")
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30:duration=2",
            "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(200+150*t)*t+1)|0.25*sin(2*PI*660*t+2):s=48000:d=2",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le",
            clip.path,
        ])
        return clip
    }

    static func configuration(in directory: URL, writingTo raw: URL) throws -> URL {
        let file = directory.appendingPathComponent("asound.conf")
        try """
        pcm.!default {
            type file
            slave { pcm { type null } }
            file "\(raw.path)"
            format "raw"
        }
        """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func floats(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func stats(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "no stats in \(output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func withoutPulseAudioTheSoundGoesToALSAsDefaultPCMSampleForSample() throws {
        let directory = try Paths.temporaryDirectory("reel-play-alsa")
        let clip = try Self.makeClip(in: directory)
        let raw = directory.appendingPathComponent("heard.raw")
        let configuration = try Self.configuration(in: directory, writingTo: raw)
        let started = Date()
        let result = try ProcessRunner.run(
            Paths.reelBinary.path, ["play", clip.path, "--no-window", "--stats"], timeout: 60,
            environment: ProcessInfo.processInfo.environment.merging(
                [
                    "PULSE_SERVER": "unix:\(directory.path)/no-such-server", "REEL_AUDIO_DEVICE": "",
                    "ALSA_CONFIG_PATH": configuration.path,
                ]) { $1 })
        let wall = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.standardError)")
        let stats = try Self.stats(result.standardOutput)
        #expect(stats["audio"] as? String == "alsa:default", "\(stats)")
        // The null PCM takes samples at once; the stream paces them by the host clock, so the
        // player's time (the samples heard) runs at real time: 2 s of sound take 2 s.
        #expect(wall > 1.9, "played in \(wall) s")

        // What reached the PCM is the clip's sound, every sample, in order, without a gap.
        let source = try ProcessRunner.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", clip.path, "-f", "f32le", "-ac", "2",
                "-ar", "\(Self.rate)", directory.appendingPathComponent("source.raw").path,
            ])
        #expect(source.status == 0)
        let expected = try Self.floats(directory.appendingPathComponent("source.raw"))
        let heard = try Self.floats(raw)
        #expect(expected.count == 2 * 2 * Self.rate, "\(expected.count)")
        let first = try #require(heard.firstIndex { abs($0) > 1e-6 }, "only silence reached the PCM (\(heard.count) samples)")
        #expect(first % 2 == 0, "the channels stay in order")
        // The sound starts at the player's time when the feeder first reads (play() comes
        // while the device already holds silence): find that source frame, then every frame after.
        let key = Array(heard[first..<min(heard.count, first + 16)])
        let start = try #require(
            stride(from: 0, to: expected.count - 16, by: 2).first { offset in
                zip(key, expected[offset..<(offset + 16)]).allSatisfy { abs($0 - $1) <= 1e-6 }
            }, "the first samples heard are not the source's")
        #expect(start / 2 < Self.rate / 2, "the sound starts \(start / 2) frames into the clip")
        let count = expected.count - start
        let played = Array(heard[first..<min(heard.count, first + count)])
        #expect(played.count == count, "the sound stops short: \(played.count) of \(count)")
        var worst: Float = 0, mismatches = 0
        for (a, b) in zip(played, expected[start...]) where abs(a - b) > 1e-6 {
            mismatches += 1
            worst = max(worst, abs(a - b))
        }
        #expect(mismatches == 0, "\(mismatches) samples differ (worst by \(worst))")
        // Silence after the end: nothing repeated, nothing left over.
        #expect(heard[min(heard.count, first + count)...].allSatisfy { abs($0) < 1e-6 })
        print(
            "ALSA file PCM: \(heard.count / 2) frames written, the sound from frame \(first / 2), "
                + "equal to the source from its frame \(start / 2) to its end (\(count / 2) frames); played in \(String(format: "%.2f", wall)) s, "
                + "underruns \(stats["underruns"] ?? "?")")
    }

    /// `audioOutputDeviceUniqueID` says where the player's sound goes: ALSA's `null` PCM
    /// (in every ALSA configuration, no sound card needed) by its name, nothing for `.none`.
    @Test func thePlayerSaysWhichDeviceItPlaysTo() throws {
        let directory = try Paths.temporaryDirectory("reel-play-alsa-name")
        let item = PlayerItem(url: try Self.makeClip(in: directory))
        #expect(Player(playerItem: item, audioDevice: .alsa(device: "null")).audioOutputDeviceUniqueID == "alsa:null")
        #expect(Player(playerItem: item, audioDevice: .none).audioOutputDeviceUniqueID == nil)
    }

    @Test func withNeitherThePlayerRunsSilentlyAndANamedDeviceThatCannotOpenIsRefused() throws {
        let directory = try Paths.temporaryDirectory("reel-play-alsa-none")
        let clip = try Self.makeClip(in: directory)
        let configuration = directory.appendingPathComponent("empty.conf")
        try "# no PCM at all\n".write(to: configuration, atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(
            [
                "PULSE_SERVER": "unix:\(directory.path)/no-such-server", "REEL_AUDIO_DEVICE": "",
                "ALSA_CONFIG_PATH": configuration.path,
            ]) { $1 }
        let silent = try ProcessRunner.run(
            Paths.reelBinary.path, ["play", clip.path, "--no-window", "--stats", "--for", "0.5"],
            timeout: 60, environment: environment)
        #expect(silent.status == 0, "\(silent.standardError)")
        let stats = try Self.stats(silent.standardOutput)
        #expect(stats["audio"] is NSNull, "\(stats)")
        #expect(!silent.standardError.contains("ALSA lib"), "libasound's own lines stay quiet: \(silent.standardError)")

        let named = try ProcessRunner.run(
            Paths.reelBinary.path, ["play", clip.path, "--no-window", "--audio", "alsa:nothing"],
            timeout: 60, environment: environment)
        #expect(named.status != 0)
        #expect(named.standardError.contains("--audio alsa:nothing"), "\(named.standardError)")
        let misspelt = try ProcessRunner.run(
            Paths.reelBinary.path, ["play", clip.path, "--no-window", "--audio", "jack"],
            timeout: 60, environment: environment)
        #expect(
            misspelt.status != 0 && misspelt.standardError.contains("pulse, pulse:SINK, alsa, alsa:PCM or none"),
            "\(misspelt.standardError)")
        // An empty --audio names nothing (leaving it out means automatic), and a misspelt
        // REEL_AUDIO_DEVICE is refused rather than passed over.
        let empty = try ProcessRunner.run(
            Paths.reelBinary.path, ["play", clip.path, "--no-window", "--audio", ""], timeout: 60, environment: environment)
        #expect(empty.status != 0 && empty.standardError.contains("--audio ''"), "\(empty.standardError)")
        let variable = try ProcessRunner.run(
            Paths.reelBinary.path, ["play", clip.path, "--no-window", "--for", "0.2"], timeout: 60,
            environment: environment.merging(["REEL_AUDIO_DEVICE": "puls"]) { $1 })
        #expect(
            variable.status != 0 && variable.standardError.contains("REEL_AUDIO_DEVICE=puls")
                && variable.standardError.split(separator: "\n").count == 1,
            "\(variable.standardError)")
    }
}

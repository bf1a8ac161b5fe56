import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Rows of docs/porting-from-avfoundation.md ("Composition and export") that no other test
/// called directly (issue 15: every row checked against a call): the audio mix, cancelling
/// an export and the HEVC preset, each checked in the exported file.
@Suite struct PortingTableCompositionTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-porting-composition")
    }

    /// A 2 s clip, 64x48 at 25 fps, with a 440 Hz tone.
    private func clip(seconds: Int = 2) throws -> Asset {
        let url = directory.appendingPathComponent("tone-\(seconds).mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=\(seconds)",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
                                  "-shortest", url.path])
        return try Asset(url: url)
    }

    /// The composition seeds build: one video and one audio `CompositionTrack` holding the clip.
    private func composition(of asset: Asset) throws -> (MutableComposition, audio: CompositionTrack) {
        let composition = MutableComposition()
        let range = MediaTimeRange(start: .zero, duration: asset.duration)
        let video: CompositionTrack = try #require(composition.addMutableTrack(withMediaType: .video,
                                                                               preferredTrackID: kCMPersistentTrackID_Invalid))
        try video.insertTimeRange(range, of: try #require(asset.tracks(withMediaType: .video).first), at: .zero)
        let audio: CompositionTrack = try #require(composition.addMutableTrack(withMediaType: .audio,
                                                                               preferredTrackID: kCMPersistentTrackID_Invalid))
        try audio.insertTimeRange(range, of: try #require(asset.tracks(withMediaType: .audio).first), at: .zero)
        return (composition, audio)
    }

    /// The mean volume (dB) of `url`'s sound from `start` for `duration` seconds, as ffmpeg's volumedetect measures it.
    private func meanVolume(_ url: URL, from start: Double, for duration: Double) throws -> Double {
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-ss", String(start), "-t", String(duration), "-i", url.path,
                                                      "-af", "volumedetect", "-vn", "-f", "null", "-"])
        let line = try #require(result.standardError.split(separator: "\n").first { $0.contains("mean_volume:") })
        let text = line.split(separator: ":").last?.replacingOccurrences(of: "dB", with: "").trimmingCharacters(in: .whitespaces)
        return try #require(text.flatMap { Double($0) }, "\(line)")
    }

    /// `AudioMix`, `AudioMixInputParameters(trackID:)`, `setVolumeRamp`: the sound fades as ramped.
    @Test func anAudioMixVolumeRampFadesTheExportedSound() async throws {
        let asset = try clip()
        let (composition, audio) = try composition(of: asset)
        var parameters = AudioMixInputParameters(trackID: audio.trackID)
        parameters.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: MediaTimeRange(
            start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 2)))
        let mix = AudioMix(inputParameters: [parameters])
        let out = directory.appendingPathComponent("faded.mp4")
        let session = ExportSession(composition: composition, preset: .mediumQuality)
        session.outputURL = out
        session.audioMix = mix
        try await session.export()
        let loud = try meanVolume(out, from: 0.2, for: 0.6)
        let quiet = try meanVolume(out, from: 1.6, for: 0.3)
        #expect(loud > -30, "before the ramp: \(loud) dB")
        #expect(quiet < loud - 40, "after the ramp to 0: \(quiet) dB against \(loud) dB")

        let plain = directory.appendingPathComponent("plain.mp4")
        let unmixed = ExportSession(composition: composition, preset: .mediumQuality)
        unmixed.outputURL = plain
        try await unmixed.export()
        #expect(abs(try meanVolume(plain, from: 1.6, for: 0.3) - loud) < 3, "without the mix the sound is not faded")
    }

    /// `cancelExport()`: the export ends cancelled and writes nothing under the output's name.
    @Test func cancelExportLeavesNoOutput() async throws {
        let asset = try clip(seconds: 20)
        let (composition, _) = try composition(of: asset)
        let out = directory.appendingPathComponent("cancelled.mp4")
        let session = ExportSession(composition: composition, preset: .highestQuality)
        session.outputURL = out
        // Cancelled from the progress handler, on the export's own thread, once it has begun:
        // a test task waiting for its turn on a busy pool could otherwise see it finish first.
        try? await session.export { value in if value > 0.02 { session.cancelExport() } }
        #expect(session.status == .cancelled, "\(session.status)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains("cancelled") })
    }

    /// `ExportPreset.hevcHighestQuality` writes HEVC that ffprobe reads with every frame.
    @Test func theHEVCPresetWritesHEVC() async throws {
        let asset = try clip(seconds: 1)
        let (composition, _) = try composition(of: asset)
        let out = directory.appendingPathComponent("hevc.mp4")
        let session = ExportSession(composition: composition, preset: .hevcHighestQuality)
        session.outputURL = out
        try await session.export()
        let video = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
        #expect(video.codecName == "hevc", "\(video.codecName)")
        #expect(try FFprobe.countFrames(out) == 25)
    }

    /// An export whose output is one of its sources (by path or a hard link) is refused and
    /// leaves the source as it was; AVFoundation refuses any existing file. (A test once
    /// exported over its own clip and then read the export back as the clip.)
    @Test func anExportNeverReplacesItsSource() async throws {
        let asset = try clip(seconds: 1)
        let source = asset.url
        let link = directory.appendingPathComponent("link.mp4")
        try FileManager.default.linkItem(at: source, to: link)
        let before = try Data(contentsOf: source)
        let (composition, _) = try composition(of: asset)
        for output in [source, link] {
            let session = ExportSession(composition: composition, preset: .mediumQuality)
            session.outputURL = output
            await #expect(throws: ReelError.self) { try await session.export() }
            #expect(session.status == .failed)
            #expect(session.error?.description.contains("source of track") == true, "\(String(describing: session.error))")
            #expect(try Data(contentsOf: source) == before, "the source was replaced")
        }
    }
}

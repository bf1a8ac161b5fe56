import Dispatch
import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// Rows of docs/porting-from-avfoundation.md ("Assets", "Reading and writing") that no
/// other test called (issue 15: every row checked against a call), each called as a
/// port would call it and checked where a user would see it.
@Suite struct PortingTableAssetTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-porting-asset")
    }

    /// `loadTracks(withMediaType:)`, `estimatedDataRate`, `languageCode`: what ffprobe says.
    @Test func loadTracksAndTheTrackPropertiesMatchFFprobe() async throws {
        let url = directory.appendingPathComponent("tagged.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "200k", "-pix_fmt", "yuv420p",
                                  "-c:a", "aac", "-metadata:s:a:0", "language=fra", url.path])
        let asset = try Asset(url: url)
        let video = try await asset.loadTracks(withMediaType: .video)
        let audio = try await asset.loadTracks(withMediaType: .audio)
        #expect(video.count == 1 && audio.count == 1)
        #expect(video.map(\.trackID) == asset.tracks(withMediaType: .video).map(\.trackID))
        #expect(audio.first?.languageCode == "fra", "\(String(describing: audio.first?.languageCode))")
        let probed = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate",
                                                       "-of", "csv=p=0", url.path])
        let bitRate = try #require(Int(probed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        let estimated = try #require(video.first?.estimatedDataRate)
        // bits per second, as AVFoundation gives it: ffprobe's figure within a tenth.
        #expect(abs(estimated - Double(bitRate)) <= Double(bitRate) / 10, "estimated \(estimated), ffprobe \(bitRate)")
    }

    /// `requestMediaDataWhenReady(on:using:)` pulls until `markAsFinished()`; `.m4v` is written.
    @Test func requestMediaDataWhenReadyWritesEveryFrameUntilMarkedFinished() async throws {
        let url = directory.appendingPathComponent("pulled.m4v")
        let writer = try AssetWriter(outputURL: url, fileType: .m4v)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            width: 64, height: 48, quality: 0, preset: "ultrafast", expectedFrameRate: 25))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let picture = try PixelBuffer(width: 64, height: 48, pixelFormat: .yuv420p)
        picture.fill(planeValues: [128, 128, 128])
        final class Counter: @unchecked Sendable { var next = 0 }
        let counter = Counter()
        let done = AsyncStream<Void>.makeStream()
        input.requestMediaDataWhenReady(on: DispatchQueue(label: "pull")) {
            while input.isReadyForMoreMediaData {
                guard counter.next < 40 else {
                    input.markAsFinished()
                    done.continuation.finish()
                    return
                }
                try? input.append(SampleBuffer(pixelBuffer: picture, presentationTime: MediaTime(value: Int64(counter.next), timescale: 25),
                                               duration: MediaTime(value: 1, timescale: 25)))
                counter.next += 1
            }
        }
        for await _ in done.stream {}
        try await writer.finishWriting()
        #expect(try FFprobe.countFrames(url) == 40)
        #expect(try FFprobe.probe(url).formatName.contains("mp4"))
    }
}

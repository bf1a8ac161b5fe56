import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// An asset whose header has no duration gets its length, and each track's, from its packets.
@Suite struct AssetLiveFileDurationTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-asset-live")
    }

    @Test(arguments: ["webm", "matroska"])
    func durationsComeFromThePackets(format: String) throws {
        let url = try TestClips.live(format, seconds: 3, in: directory)
        let asset = try Asset(url: url)
        #expect(abs(asset.duration.seconds - 3) <= 0.03, "asset: \(asset.duration.seconds) s")
        let video = try #require(asset.tracks(withMediaType: .video).first)
        let audio = try #require(asset.tracks(withMediaType: .audio).first)
        #expect(abs(video.timeRange.duration.seconds - 3) <= 0.001, "video: \(video.timeRange)")
        #expect(abs(audio.timeRange.end.seconds - 3) <= 0.03, "audio: \(audio.timeRange)")
        #expect(video.frameCount == 75)

        // A reader over the asset's whole range reads every frame.
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: video)
        try reader.add(output)
        try reader.startReading()
        var frames = 0
        while try output.copyNextSampleBuffer() != nil { frames += 1 }
        #expect(frames == 75)
    }

    /// A streamed (fragmented, empty-moov) MP4 already has its fragments' lengths: nothing changes.
    @Test func fragmentedMP4KeepsItsLength() throws {
        let url = directory.appendingPathComponent("fragmented.mp4")
        let result = try ProcessRunner.run("sh", ["-c", "ffmpeg -nostdin -v error -f lavfi -i testsrc2=s=160x90:r=25:d=3 -c:v libx264 -preset ultrafast -g 25 -movflags frag_keyframe+empty_moov -f mp4 pipe:1 > \"$1\"", "sh", url.path])
        #expect(result.status == 0, "\(result.standardError)")
        let asset = try Asset(url: url)
        #expect(abs(asset.duration.seconds - 3) <= 0.001, "\(asset.duration.seconds) s")
    }
}

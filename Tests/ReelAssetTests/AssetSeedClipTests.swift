import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// Reel's view of the seed clips against ffprobe's.
@Suite(.enabled(if: Paths.seedClipsAvailable, Comment(rawValue: Paths.seedClipsMissing)))
struct AssetSeedClipTests {
    @Test(arguments: Paths.seedClipNames)
    func agreesWithFFprobe(name: String) throws {
        let url = Paths.seedClip(name)
        let asset = try Asset(url: url)
        let probe = try FFprobe.probe(url)
        let expectedDuration = try #require(probe.duration)
        #expect(abs(asset.duration.seconds - expectedDuration) < 0.001)
        #expect(asset.tracks.count == probe.streams.count)
        for (track, stream) in zip(asset.tracks, probe.streams) {
            #expect(track.streamIndex == stream.index)
            #expect(track.mediaType.rawValue == stream.codecType)
            #expect(track.codec == stream.codecName)
            if let duration = stream.duration {
                #expect(abs(track.timeRange.duration.seconds - duration) < 0.001, "\(name) #\(stream.index)")
            }
            if track.mediaType == .video {
                #expect(Int(track.naturalSize.width) == stream.width)
                #expect(Int(track.naturalSize.height) == stream.height)
                #expect(abs(track.nominalFrameRate - (stream.averageFrameRate ?? 0)) < 0.01)
                #expect(track.frameCount == stream.frameCount)
                #expect(track.rotation == 0)
            } else if track.mediaType == .audio {
                #expect(track.sampleRate == stream.sampleRate)
                #expect(track.channelCount == stream.channels)
            }
        }
    }

    @Test func tracksPerMediumMatchTheSeedREADME() throws {
        let nebula = try Asset(url: Paths.seedClip("01_nebula.mp4"))
        #expect(nebula.tracks(withMediaType: .video).count == 1)
        #expect(nebula.tracks(withMediaType: .audio).map(\.codec) == ["aac", "ac3"])
        #expect(try Asset(url: Paths.seedClip("03_nebula.mp4")).tracks(withMediaType: .audio).isEmpty)
        #expect(try Asset(url: Paths.seedClip("04_quasar.mp4")).tracks(withMediaType: .video).first?.naturalSize.width == 1276)
        let odd = try #require(try Asset(url: Paths.seedClip("05_blackhole.mp4")).tracks(withMediaType: .video).first)
        #expect(abs(odd.nominalFrameRate - 25.19) < 0.01)
        // r_frame_rate 90000/1 says nothing useful; the frames' own timestamps say 25 fps.
        #expect(abs(1 / odd.minFrameDuration.seconds - 25) < 0.5, "\(odd.minFrameDuration.seconds)")
    }

    @Test func readsContainerMetadata() throws {
        let asset = try Asset(url: Paths.seedClip("01_nebula.mp4"))
        let date = try #require(asset.metadata.creationDate)
        #expect(Int(date.timeIntervalSince1970) == 1_399_523_216) // 2014-05-08T04:26:56Z
        #expect(asset.metadata.encoder?.hasPrefix("HandBrake") == true)
    }
}

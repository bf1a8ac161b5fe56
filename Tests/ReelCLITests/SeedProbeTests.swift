import Foundation
import ReelTestSupport
import Testing

@Suite(.enabled(if: Paths.seedClipsAvailable, Comment(rawValue: Paths.seedClipsMissing)))
struct SeedProbeTests {
    @Test func probesAllFiveSeedClipsLikeFFprobe() throws {
        let paths = Paths.seedClipNames.map { Paths.seedClip($0).path }
        let result = try ProcessRunner.reel(["probe", "--json"] + paths)
        #expect(result.status == 0)
        let files = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(files.count == 5)
        for (file, path) in zip(files, paths) {
            let probe = try FFprobe.probe(URL(fileURLWithPath: path))
            #expect(abs((file["duration"] as? Double ?? 0) - (probe.duration ?? -1)) < 0.001)
            let tracks = file["tracks"] as? [[String: Any]] ?? []
            let types = tracks.compactMap { $0["mediaType"] as? String }
            #expect(types == probe.streams.map(\.codecType))
            let video = try #require(tracks.first)
            let size = video["naturalSize"] as? [String: Int]
            #expect(size?["width"] == probe.streams[0].width)
            #expect(abs((video["nominalFrameRate"] as? Double ?? 0) - (probe.streams[0].averageFrameRate ?? 0)) < 0.01)
        }
        let audioCounts = files.map { ($0["tracks"] as? [[String: Any]] ?? []).filter { $0["mediaType"] as? String == "audio" }.count }
        #expect(audioCounts == [2, 2, 0, 2, 0])
    }
}

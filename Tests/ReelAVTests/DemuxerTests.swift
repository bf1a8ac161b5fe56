import Foundation
import ReelAV
import ReelCore
import ReelTestSupport
import Testing

@Suite struct DemuxerTests {
    @Test func readsEveryPacketOfAGeneratedClip() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try TestClips.rotated(0, in: dir)
        let demuxer = try Demuxer(path: clip.path)
        #expect(demuxer.streams.map(\.mediaType) == [.video, .audio])
        let packet = try Packet()
        var videoPackets = 0
        while try demuxer.read(into: packet) {
            if packet.streamIndex == 0 { videoPackets += 1 }
        }
        #expect(videoPackets == 25)
    }

    @Test func failsWithFFmpegsMessage() {
        #expect {
            try Demuxer(path: "/nonexistent/clip.mp4")
        } throws: { error in
            let error = error as? ReelError
            return error?.code == .fileNotFound && error?.subject == "/nonexistent/clip.mp4"
        }
    }
}

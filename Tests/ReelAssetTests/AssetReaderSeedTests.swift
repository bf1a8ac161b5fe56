import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

@Suite(.enabled(if: Paths.seedClipsAvailable, Comment(rawValue: Paths.seedClipsMissing)))
struct AssetReaderSeedTests {
    /// Every frame ffmpeg decodes, in order. 03 and 05 hold 251 packets but their edit
    /// lists drop the last one, so 250 frames are shown.
    @Test(arguments: ["01_nebula.mp4", "03_nebula.mp4", "04_quasar.mp4", "05_blackhole.mp4"])
    func readsEveryVideoFrameInOrder(name: String) throws {
        let asset = try Asset(url: Paths.seedClip(name))
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        try reader.startReading()
        var times: [MediaTime] = []
        var total = MediaTime.zero
        while let sample = try output.copyNextSampleBuffer() {
            times.append(sample.presentationTime)
            total += sample.duration
            #expect(sample.pixelBuffer?.width == Int(track.naturalSize.width))
        }
        #expect(reader.status == .completed)
        #expect(times.count == (try FFprobe.countFrames(Paths.seedClip(name))))
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // Durations tile the track: first time plus their sum is the track's end, within a frame.
        let end = times[0] + total
        #expect(abs(end.seconds - track.timeRange.end.seconds) < 0.041)
    }

    @Test func readsBothAudioTracksOfNebula() throws {
        let asset = try Asset(url: Paths.seedClip("01_nebula.mp4"))
        let reader = try AssetReader(asset: asset)
        let outputs = asset.tracks(withMediaType: .audio).map {
            AssetReaderTrackOutput(track: $0, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar))
        }
        for output in outputs { try reader.add(output) }
        try reader.startReading()
        for (output, expected) in zip(outputs, [10.133, 10.112]) {
            var samples = 0
            while let sample = try output.copyNextSampleBuffer() {
                samples += sample.audioBuffer?.frameCount ?? 0
            }
            #expect(abs(Double(samples) / 48000 - expected) < 0.03, "\(output.track.codec)")
        }
    }

    @Test func timeRangeIsExactAtBothEnds() throws {
        let asset = try Asset(url: Paths.seedClip("02_blackhole.mp4"))
        let reader = try AssetReader(asset: asset)
        let range = MediaTimeRange(start: MediaTime(value: 3, timescale: 1), duration: MediaTime(value: 2, timescale: 1))
        reader.timeRange = range
        let video = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        let audio = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .audio).first),
                                           audioSettings: AudioOutputSettings(sampleFormat: .int16, sampleRate: 44100))
        try reader.add(video)
        try reader.add(audio)
        try reader.startReading()
        var frames: [SampleBuffer] = []
        while let sample = try video.copyNextSampleBuffer() { frames.append(sample) }
        let first = try #require(frames.first), last = try #require(frames.last)
        #expect(first.presentationTime <= range.start && first.timeRange.end > range.start)
        #expect(last.presentationTime < range.end && last.timeRange.end >= range.end)
        #expect(frames.count >= 50 && frames.count <= 51)
        var samples = 0
        var firstAudio: MediaTime?
        while let sample = try audio.copyNextSampleBuffer() {
            firstAudio = firstAudio ?? sample.presentationTime
            samples += sample.audioBuffer?.frameCount ?? 0
            #expect(sample.audioBuffer?.format.sampleRate == 44100)
        }
        #expect(abs((firstAudio ?? .invalid).seconds - 3) < 0.0001)
        #expect(abs(samples - 88200) <= 2)
    }

    @Test func cancelStopsReading() throws {
        let asset = try Asset(url: Paths.seedClip("03_nebula.mp4"))
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks[0])
        try reader.add(output)
        try reader.startReading()
        #expect(try output.copyNextSampleBuffer() != nil)
        reader.cancelReading()
        #expect(reader.status == .cancelled)
        #expect(try output.copyNextSampleBuffer() == nil)
    }
}

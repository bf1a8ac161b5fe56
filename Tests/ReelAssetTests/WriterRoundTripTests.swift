import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

@Suite struct WriterRoundTripTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-writer")
    }

    /// Writes `count` indexed frames at the given times with near-lossless H.264.
    private func writeIndexedClip(_ url: URL, times: [MediaTime], audio: AudioBuffer? = nil) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(mediaType: .video,
                                     outputSettings: VideoSettings(width: 320, height: 240, quality: 8, preset: "veryfast"))
        try writer.add(video)
        let adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: video, sourcePixelFormat: .yuv420p)
        var audioInput: AssetWriterInput?
        if audio != nil {
            let input = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: 1))
            try writer.add(input)
            audioInput = input
        }
        try writer.startWriting()
        writer.startSession(atSourceTime: times[0])
        for (index, time) in times.enumerated() {
            try adaptor.append(try TestPatterns.indexedFrame(index, pool: adaptor.pixelBufferPool), withPresentationTime: time)
        }
        if let audio, let audioInput {
            try audioInput.append(SampleBuffer(audioBuffer: audio, presentationTime: times[0]))
        }
        try await writer.finishWriting()
        #expect(writer.status == .completed)
    }

    @Test func indexedFramesComeBackOnceInOrderAtTheirTimes() async throws {
        // Variable frame rate: 33.3 ms and 50 ms steps, exact in a 90 kHz timescale.
        var times: [MediaTime] = []
        var ticks: Int64 = 0
        for index in 0..<60 {
            times.append(MediaTime(value: ticks, timescale: 90000))
            ticks += index % 2 == 0 ? 3000 : 4500
        }
        let url = directory.appendingPathComponent("indexed.mp4")
        try await writeIndexedClip(url, times: times)

        let asset = try Asset(url: url)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p))
        try reader.add(output)
        try reader.startReading()
        var indices: [Int] = []
        var readTimes: [MediaTime] = []
        while let sample = try output.copyNextSampleBuffer() {
            indices.append(TestPatterns.readIndex(try #require(sample.pixelBuffer)))
            readTimes.append(sample.presentationTime)
        }
        #expect(indices == Array(0..<60))
        #expect(readTimes == times)
        let probe = try FFprobe.probe(url)
        let stream = try #require(probe.streams(ofType: "video").first)
        #expect(stream.codecName == "h264" && stream.profile == "High" && stream.pixelFormat == "yuv420p")
        // Written duration within one frame of the last frame's end.
        let expectedEnd = (times[59] + MediaTime(value: 4500, timescale: 90000)).seconds
        #expect(abs((probe.duration ?? 0) - expectedEnd) <= 0.05)
    }

    @Test func sineToneKeepsFrequencyAndLength() async throws {
        let url = directory.appendingPathComponent("tone.mp4")
        let tone = try TestPatterns.sine(frequency: 1000, seconds: 2)
        let times = (0..<50).map { MediaTime(value: Int64($0), timescale: 25) }
        try await writeIndexedClip(url, times: times, audio: tone)

        let asset = try Asset(url: url)
        let track = try #require(asset.tracks(withMediaType: .audio).first)
        #expect(track.codec == "aac" && track.profile == "LC")
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar))
        try reader.add(output)
        try reader.startReading()
        var samples: [Float] = []
        while let sample = try output.copyNextSampleBuffer() {
            samples += sample.audioBuffer?.floatSamples(channel: 0) ?? []
        }
        #expect(abs(samples.count - tone.frameCount) <= 1024, "read \(samples.count) of \(tone.frameCount) samples")
        let middle = Array(samples[4800..<(samples.count - 4800)])
        #expect(abs(TestPatterns.frequency(of: middle, sampleRate: 48000) - 1000) < 1)
        let probe = try FFprobe.probe(url)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 2) < 0.03)
    }

    @Test func writesTheTransformAsTheDisplayMatrix() async throws {
        let url = directory.appendingPathComponent("portrait.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240, preset: "ultrafast"))
        input.transform = Orientation.right.transform(for: Size(width: 320, height: 240))
        try writer.add(input)
        writer.metadata = AssetMetadata(creationDate: Date(timeIntervalSince1970: 1_700_000_000),
                                        location: .init(latitude: 48.8577, longitude: 2.295), title: "Round trip")
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for index in 0..<10 {
            try input.append(SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index),
                                          presentationTime: MediaTime(value: Int64(index), timescale: 10),
                                          duration: MediaTime(value: 1, timescale: 10)))
        }
        try await writer.finishWriting()
        let probe = try FFprobe.probe(url)
        #expect(probe.streams(ofType: "video").first?.rotation == -90) // ffprobe's sign for an iPhone portrait clip
        let asset = try Asset(url: url)
        #expect(asset.tracks(withMediaType: .video).first?.rotation == 90)
        #expect(asset.metadata.title == "Round trip")
        #expect(asset.metadata.creationDate.map { Int($0.timeIntervalSince1970) } == 1_700_000_000)
        #expect(asset.metadata.location.map { abs($0.latitude - 48.8577) < 0.001 } == true)
        #expect(abs((probe.duration ?? 0) - 1.0) < 0.1)
    }

    @Test func moovComesFirstByDefaultAndNoTemporaryFileRemains() async throws {
        let url = directory.appendingPathComponent("fast.mp4")
        try await writeIndexedClip(url, times: (0..<5).map { MediaTime(value: Int64($0), timescale: 25) })
        let boxes = try topLevelBoxes(url)
        let moov = try #require(boxes.firstIndex(of: "moov"))
        let mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("reel-") }
        #expect(leftovers.isEmpty)
    }

    private func topLevelBoxes(_ url: URL) throws -> [String] {
        let data = try Data(contentsOf: url)
        var offset = 0
        var names: [String] = []
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            names.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return names
    }
}

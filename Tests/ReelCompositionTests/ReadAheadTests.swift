import Foundation
import ReelAsset
@testable import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Decoding ahead on threads of their own changes when frames are decoded, never which:
/// the composed frames, the written file and the errors are those of decoding in line.
@Suite struct ReadAheadTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-read-ahead")
    }

    /// Moving test patterns with B-frames, of two sizes, so that sources are scaled, reordered
    /// and overlap in transitions.
    private func clips() throws -> [Asset] {
        try [("a", "testsrc2", "320x180"), ("b", "smptehdbars", "320x180"), ("c", "mandelbrot", "256x192")]
            .map { name, source, size in
                let url = directory.appendingPathComponent("\(name).mp4")
                try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "\(source)=size=\(size):rate=25", "-t", "3",
                                          "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-pix_fmt", "yuv420p", url.path])
                return try Asset(url: url)
            }
    }

    private func sequence(_ assets: [Asset]) throws -> ClipSequence {
        let one = MediaTime(value: 1, timescale: 1)
        return try ClipSequence(assets: assets, transitions: [.dissolve(duration: one), .push(duration: one, direction: .left)],
                                renderSize: Size(width: 320, height: 180))
    }

    /// Every plane's bytes, row by row, so that two frames compare exactly.
    private func bytes(_ frame: PixelBuffer) -> [UInt8] {
        var all: [UInt8] = []
        for plane in 0..<frame.planes.count {
            let rows = frame.planes[plane].height, width = frame.planes[plane].width
            frame.withPlane(plane) { base, stride in
                for row in 0..<rows {
                    all += UnsafeRawBufferPointer(start: base + row * stride, count: width)
                }
            }
        }
        return all
    }

    @Test func composedFramesAreTheSameDecodedAheadOrInLine() throws {
        let sequence = try sequence(try clips())
        let video = sequence.videoComposition
        let inline = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 320,
                                       outputHeight: 180)
        let ahead = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 320,
                                      outputHeight: 180, readAhead: 4)
        defer {
            inline.close()
            ahead.close()
        }
        let end = sequence.composition.duration
        var index: Int64 = 0
        var compared = 0
        while true {
            let time = video.frameDuration * index
            guard time < end else { break }
            let expected = bytes(try inline.frame(at: time))
            let actual = bytes(try ahead.frame(at: time))
            let later = time + video.frameDuration * 4
            if later < end { try ahead.prepare(at: later) }  // as the export does
            #expect(expected == actual, "frame \(index) at \(time.seconds) s differs")
            compared += 1
            index += 1
        }
        #expect(compared == 175)  // 3 + 3 + 3 - 1 - 1 seconds at 25 fps
    }

    /// The luma plane's bytes, row by row.
    private func luma(_ frame: PixelBuffer) -> [UInt8] {
        var all: [UInt8] = []
        let rows = frame.planes[0].height, width = frame.planes[0].width
        frame.withPlane(0) { base, stride in
            for row in 0..<rows { all += UnsafeRawBufferPointer(start: base + row * stride, count: width) }
        }
        return all
    }

    /// Peak signal-to-noise ratio of two lumas, in dB (infinite when equal).
    private func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var squared = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for i in 0..<a.count {
                    let d = Int(a[i]) - Int(b[i])
                    squared += d * d
                }
            }
        }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (Double(squared) / Double(a.count)))
    }

    /// Each decoded frame of `url` with its time.
    private func decodedLumas(_ url: URL) throws -> [(time: MediaTime, luma: [UInt8])] {
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first),
                                            videoSettings: VideoOutputSettings(pixelFormat: .yuv420p))
        try reader.add(output)
        try reader.startReading()
        var frames: [(time: MediaTime, luma: [UInt8])] = []
        while let sample = try output.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
            frames.append((sample.presentationTime, luma(picture)))
        }
        return frames
    }

    /// Decoding ahead writes the same pictures at the same times as decoding in line. x264
    /// need not encode the same pictures into the same bits twice (its threads may decide a
    /// macroblock differently on a busy machine, and its lookahead carries that on), so each
    /// export is judged against the composition rendered exactly, in line: every decoded
    /// frame is at its frame's time, close to its own composed frame, and closer to it than
    /// to the composed frames beside it (a frame taken from the wrong source time would not be).
    @Test func exportedFileIsTheSameDecodedAheadOrInLine() async throws {
        let sequence = try sequence(try clips())
        let video = sequence.videoComposition
        let renderer = try VideoRenderer(composition: sequence.composition, videoComposition: video, outputWidth: 320,
                                         outputHeight: 180)
        var composed: [[UInt8]] = []
        while video.frameDuration * Int64(composed.count) < sequence.composition.duration {
            composed.append(luma(try renderer.frame(at: video.frameDuration * Int64(composed.count))))
        }
        renderer.close()
        #expect(composed.count == 175)  // 3 + 3 + 3 - 1 - 1 seconds at 25 fps
        var durations: [Double?] = []
        for readAhead in [0, 8] {
            let url = directory.appendingPathComponent("out-\(readAhead).mp4")
            let session = sequence.exportSession(preset: .preset640x480, to: url, fileType: .mp4)
            session.readAhead = readAhead
            try await session.export()
            #expect(session.status == .completed)
            let frames = try decodedLumas(url)
            #expect(frames.count == composed.count, "read ahead \(readAhead): \(frames.count) frames")
            var worst = Double.infinity
            for (index, frame) in frames.enumerated() where index < composed.count {
                #expect(frame.time == video.frameDuration * Int64(index), "read ahead \(readAhead): frame \(index) at \(frame.time.seconds) s")
                let own = psnr(frame.luma, composed[index])
                worst = min(worst, own)
                #expect(own >= 33, "read ahead \(readAhead): frame \(index) is \(own) dB from its composed frame")
                for neighbour in [index - 1, index + 1] where composed.indices.contains(neighbour) {
                    // Neighbours that look alike (the still bars) cannot tell frames apart.
                    guard psnr(composed[neighbour], composed[index]) < 40 else { continue }
                    let other = psnr(frame.luma, composed[neighbour])
                    #expect(own > other, "read ahead \(readAhead): frame \(index) looks like composed frame \(neighbour) (\(other) dB) more than its own (\(own) dB)")
                }
            }
            print("read ahead \(readAhead): \(frames.count) frames, worst \(String(format: "%.1f", worst)) dB from the composition")
            durations.append(try FFprobe.probe(url).duration)
        }
        #expect(durations[0] == durations[1])
    }

    /// A clip whose header and first frames are sound but whose later pictures are noise, so
    /// that it opens as an asset and fails only once decoding reaches the damage.
    private func damagedClip() throws -> URL {
        let url = directory.appendingPathComponent("damaged.mp4")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=8", "-c:v", "libx264",
                                  "-preset", "ultrafast", "-g", "1000", "-bf", "0", "-pix_fmt", "yuv420p",
                                  "-movflags", "+faststart", url.path])
        var data = try Data(contentsOf: url)
        let mdat = try #require(data.range(of: Data("mdat".utf8)))
        let payload = mdat.upperBound
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in (payload + (data.count - payload) / 8)..<data.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            data[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
        try data.write(to: url)
        return url
    }

    @Test func aFailingDecoderThreadSurfacesAsOneErrorAndLeavesNothing() async throws {
        let damaged = try damagedClip()
        let good = try clips()[0]
        let sequence = try ClipSequence(assets: [good, try Asset(url: damaged)],
                                        transitions: [.dissolve(duration: MediaTime(value: 1, timescale: 1))],
                                        renderSize: Size(width: 320, height: 180))
        var errors: [ReelError] = []
        for readAhead in [0, 8] {
            let output = directory.appendingPathComponent("broken-\(readAhead).mp4")
            let session = sequence.exportSession(preset: .preset640x480, to: output, fileType: .mp4)
            session.readAhead = readAhead
            do throws(ReelError) {
                try await session.export()
                Issue.record("the export of a damaged clip succeeded (read ahead \(readAhead))")
            } catch {
                errors.append(error)
            }
            #expect(session.status == .failed)
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".reel-") }
        #expect(left.isEmpty, "temporary files left: \(left)")
        try #require(errors.count == 2)
        #expect(errors[1].code == errors[0].code && errors[1].subject == errors[0].subject)
        #expect(errors[1].subject == damaged.path, "\(errors[1])")
        #expect(errors[1].code == .invalidData, "\(errors[1])")
    }

    /// A reader of `track`'s decoded pictures, started: what a read-ahead lane opens.
    static func reading(_ track: AssetTrack, of asset: Asset) throws(ReelError) -> ReadAhead.Reading {
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings())
        try reader.add(output)
        try reader.startReading()
        return ReadAhead.Reading(reader: reader, output: output)
    }

    @Test func readAheadStopsAtItsCapacityAndClosesPromptly() throws {
        let asset = try clips()[0]
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let opened = PosixMutex(0)
        let ahead = ReadAhead(capacity: 3, name: "test") { () throws(ReelError) in
            opened.withLock { $0 += 1 }
            return try Self.reading(track, of: asset)
        }
        var times: [MediaTime] = []
        while let sample = try ahead.next() { times.append(sample.presentationTime) }
        #expect(times.count == 75 && times == times.sorted())
        #expect(try ahead.next() == nil)
        ahead.close()
        #expect(opened.withLock { $0 } == 1)
        // Closing one that is full and waiting ends its thread.
        let waiting = ReadAhead(capacity: 2, name: "test") { () throws(ReelError) in
            try Self.reading(track, of: asset)
        }
        _ = try waiting.next()
        waiting.close()
        #expect(try waiting.next() == nil)
    }

    /// What was taken is the caller's alone: the queue keeps no picture it has handed out, so
    /// memory stays at `capacity` pictures however long the source runs.
    @Test func handedOutPicturesAreNotKept() throws {
        let asset = try clips()[0]
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let ahead = ReadAhead(capacity: 4, name: "test") { () throws(ReelError) in
            try Self.reading(track, of: asset)
        }
        defer { ahead.close() }
        final class Watch { weak var picture: PixelBuffer? }
        // Taken in a function of its own, so that no temporary of the test outlives it.
        func take(_ count: Int) throws -> [Watch] {
            try (0..<count).map { _ in
                let watch = Watch()
                watch.picture = try #require(try ahead.next()?.pixelBuffer)
                return watch
            }
        }
        // The thread may still be letting go of the very last one it handed over; of those
        // before it, none may be held.
        let watches = try take(61).dropLast()
        let alive = watches.indices.filter { watches[$0].picture != nil }
        #expect(alive.isEmpty, "handed-out pictures \(alive) of 0..<60 are still held")
    }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// One folder of PNG pictures opened as two assets in one process, at 10 and at 25 frames a
/// second: each asset keeps its own rate (its duration, its readers' timestamps, the movie a
/// composition of it exports), whichever is opened first and when both are read at once.
/// The rate was a table per pattern, shared by the whole process: the asset opened last set
/// it for the readers of both.
@Suite struct ImageSequenceRateTests {
    let directory: URL
    let pattern: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-sequence-rate")
        // Ten opaque 64x36 frames numbered from 1, frame n at level 100 + 10 n, so a picture
        // tells which frame it is.
        let frames = directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "color=white:s=64x36:r=10:d=1,format=rgba,geq=r='100+10*N':g='100+10*N':b='100+10*N':a=255",
            "-start_number", "1", frames.appendingPathComponent("f-%04d.png").path,
        ])
        pattern = frames.appendingPathComponent("f-%04d.png")
    }

    /// What a reader of the asset's video track delivers: each picture's time and its level
    /// (the red of its middle pixel).
    private func read(_ asset: Asset) throws -> [(time: Double, level: Int)] {
        let track = try #require(asset.tracks(withMediaType: .video).first)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .rgba))
        try reader.add(output)
        try reader.startReading()
        var pictures: [(time: Double, level: Int)] = []
        while let sample = try output.copyNextSampleBuffer() {
            guard case .video(let picture) = sample.content else { continue }
            let level = picture.withPlane(0) { base, stride in
                Int(base.load(fromByteOffset: (picture.height / 2) * stride + 4 * (picture.width / 2), as: UInt8.self))
            }
            pictures.append((sample.presentationTime.seconds, level))
        }
        return pictures
    }

    /// Asserts `asset` is the ten frames at `fps`: its duration and frame count, and a reader's
    /// ten pictures in order at n / fps.
    private func expectTimed(_ asset: Asset, fps: Double, _ note: String) throws {
        #expect(asset.imageSequenceFrameRate == fps, "\(note): \(String(describing: asset.imageSequenceFrameRate))")
        #expect(abs(asset.duration.seconds - 10 / fps) < 1e-6, "\(note): \(asset.duration.seconds) s at \(fps) fps")
        #expect(asset.tracks(withMediaType: .video).first?.frameCount == 10, "\(note)")
        let pictures = try read(asset)
        #expect(pictures.count == 10, "\(note): \(pictures.count) pictures")
        for (n, picture) in pictures.enumerated() {
            #expect(abs(picture.time - Double(n) / fps) < 1e-6, "\(note): picture \(n) at \(picture.time) s, \(fps) fps")
            #expect(abs(picture.level - (100 + 10 * n)) <= 2, "\(note): picture \(n) level \(picture.level)")
        }
    }

    /// Opened 10 then 25, and 25 then 10, each asset read after both exist: 1 s and 0.4 s.
    @Test func twoAssetsOfOnePatternKeepTheirRatesInEitherOrder() throws {
        for order in [[10.0, 25.0], [25.0, 10.0]] {
            let assets = try order.map { try Asset(imageSequence: pattern, frameRate: $0) }
            for (asset, fps) in zip(assets, order) { try expectTimed(asset, fps: fps, "opened \(order)") }
        }
        // A pattern opened by URL alone plays at 25, whatever rates were given before.
        let plain = try Asset(url: pattern)
        try expectTimed(plain, fps: 25, "init(url:) after 10 and 25")
    }

    /// Eight assets, 10 and 25 in turn, opened and read on eight threads at once.
    @Test func twoAssetsOfOnePatternKeepTheirRatesWhenReadAtOnce() throws {
        let rates = (0..<8).map { $0 % 2 == 0 ? 10.0 : 25.0 }
        let results = PosixMutex([Int: String]())
        DispatchQueue.concurrentPerform(iterations: rates.count) { index in
            let fps = rates[index]
            var verdict = "ok"
            do {
                let asset = try Asset(imageSequence: pattern, frameRate: fps)
                let times = try read(asset).map(\.time)
                let wanted = (0..<10).map { Double($0) / fps }
                if abs(asset.duration.seconds - 10 / fps) > 1e-6 || times.count != 10
                    || zip(times, wanted).contains(where: { abs($0 - $1) > 1e-6 })
                {
                    verdict = "\(fps) fps: \(asset.duration.seconds) s, pictures at \(times)"
                }
            } catch {
                verdict = "\(fps) fps: \(error)"
            }
            results.withLock { $0[index] = verdict }
        }
        let verdicts = results.withLock { $0 }
        #expect(verdicts.count == 8)
        for (index, verdict) in verdicts.sorted(by: { $0.key < $1.key }) {
            #expect(verdict == "ok", "thread \(index): \(verdict)")
        }
    }

    /// A composition of each asset exported in this process, both at once, after both assets
    /// were opened (10 then 25, and 25 then 10): ffprobe finds ten frames lasting 1 s in the
    /// 10 fps one and 0.4 s in the 25 fps one, and frame 5 of each is picture 5 (level 150).
    @Test func compositionsOfEachRateExportTheirOwnTiming() async throws {
        @Sendable func export(_ asset: Asset, to name: String) async throws -> URL {
            let source = try #require(asset.tracks(withMediaType: .video).first)
            let composition = MutableComposition()
            let track = try #require(composition.addMutableTrack(withMediaType: .video))
            try track.insertTimeRange(MediaTimeRange(start: .zero, duration: asset.duration), of: source, at: .zero)
            let out = directory.appendingPathComponent("\(name).mp4")
            let session = ExportSession(composition: composition, preset: .highestQuality)
            session.outputURL = out
            try await session.export()
            return out
        }
        for order in [[10.0, 25.0], [25.0, 10.0]] {
            let assets = try order.map { try Asset(imageSequence: pattern, frameRate: $0) }
            let names = order.map { "opened-\(Int(order[0]))-first-at-\(Int($0))" }
            async let first = export(assets[0], to: names[0])
            async let second = export(assets[1], to: names[1])
            for (out, fps) in zip([try await first, try await second], order) {
                let video = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
                #expect(try FFprobe.countFrames(out) == 10, "\(out.lastPathComponent)")
                #expect(abs((video.duration ?? 0) - 10 / fps) < 0.011, "\(out.lastPathComponent): \(video.duration ?? 0) s")
                #expect(
                    abs((video.averageFrameRate ?? 0) - fps) < 0.01, "\(out.lastPathComponent): \(video.averageFrameRate ?? 0)")
                let raw = out.deletingPathExtension().appendingPathExtension("gray")
                try ProcessRunner.ffmpeg([
                    "-y", "-i", out.path, "-vf", "select=eq(n\\,5)", "-frames:v", "1", "-f", "rawvideo",
                    "-pix_fmt", "gray", raw.path,
                ])
                let bytes = [UInt8](try Data(contentsOf: raw))
                try #require(bytes.count == 64 * 36, "\(bytes.count) bytes")
                #expect(abs(Int(bytes[18 * 64 + 32]) - 150) <= 4, "\(out.lastPathComponent) frame 5: \(bytes[18 * 64 + 32])")
            }
        }
    }

    /// A spec using the folder as two clips, at 10 then 25 fps (refused before, as one pattern
    /// had one rate): 25 + 10 output frames at 25 fps, 1.4 s, the first clip's pictures each
    /// held 2.5 frames and the second's one a frame.
    @Test func aSpecPlaysOneFolderAtTwoRates() throws {
        let spec = directory.appendingPathComponent("two.json")
        try """
        {"frameRate": 25, "renderSize": {"width": 64, "height": 36},
         "clips": [{"file": "frames/f-%04d.png", "fps": 10}, {"file": "frames/f-%04d.png", "fps": 25}]}
        """.write(to: spec, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("two.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
        try #require(result.status == 0, "\(result.standardError)")
        #expect(try FFprobe.countFrames(out) == 35)
        let duration = try #require(try FFprobe.probe(out).streams(ofType: "video").first?.duration)
        #expect(abs(duration - 1.4) < 0.011, "\(duration) s")
        let raw = directory.appendingPathComponent("two.gray")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        try #require(bytes.count == 35 * 64 * 36, "\(bytes.count) bytes")
        func level(_ frame: Int) -> Int { Int(bytes[frame * 64 * 36 + 18 * 64 + 32]) }
        // Output frame k of the first clip (0.04 k s) shows picture floor(0.4 k); of the second, picture k - 25.
        for (frame, shown) in [(0, 0), (6, 2), (24, 9), (25, 0), (28, 3), (34, 9)] {
            #expect(
                abs(level(frame) - (100 + 10 * shown)) <= 4, "output frame \(frame): \(level(frame)), wanted picture \(shown)")
        }
    }

    /// A sequence clip at 10 fps reversed, and steadied: each is copied into a movie first
    /// (`reel compose` does), at the clip's rate: 25 output frames, 1 s, the reversed one from
    /// picture 9 to picture 0 and the steadied one from 0 to 9. The copies were made at 25 fps
    /// and then refused, as a movie with an `fps`.
    @Test func aReversedOrSteadiedSequenceClipKeepsItsRate() throws {
        for (name, option, first, last) in [("reversed", #""reverse": true"#, 9, 0), ("steadied", #""stabilize": 0.5"#, 0, 9)] {
            let spec = directory.appendingPathComponent("\(name).json")
            try """
            {"frameRate": 25, "renderSize": {"width": 64, "height": 36},
             "clips": [{"file": "frames/f-%04d.png", "fps": 10, \(option)}]}
            """.write(to: spec, atomically: true, encoding: .utf8)
            let out = directory.appendingPathComponent("\(name).mp4")
            let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path], timeout: 600)
            try #require(result.status == 0, "\(name): \(result.standardError)")
            #expect(try FFprobe.countFrames(out) == 25, "\(name)")
            let raw = directory.appendingPathComponent("\(name).gray")
            try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
            let bytes = [UInt8](try Data(contentsOf: raw))
            try #require(bytes.count == 25 * 64 * 36, "\(name): \(bytes.count) bytes")
            func level(_ frame: Int) -> Int { Int(bytes[frame * 64 * 36 + 18 * 64 + 32]) }
            #expect(abs(level(0) - (100 + 10 * first)) <= 4, "\(name) frame 0: \(level(0))")
            #expect(abs(level(24) - (100 + 10 * last)) <= 4, "\(name) frame 24: \(level(24))")
        }
    }
}

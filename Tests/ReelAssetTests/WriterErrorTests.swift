import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// Each misuse gets a clear error, leaves no partial file, and spares an existing destination.
@Suite struct WriterErrorTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-writer-errors")
    }

    private func startedWriter(_ url: URL, fileType: FileType = .mp4) throws -> (AssetWriter, AssetWriterInput) {
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240, preset: "ultrafast"))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        return (writer, input)
    }

    private func frame(_ index: Int, at seconds: Int64, _ timescale: Int32 = 25) throws -> SampleBuffer {
        SampleBuffer(pixelBuffer: try TestPatterns.indexedFrame(index),
                     presentationTime: MediaTime(value: seconds, timescale: timescale), duration: .invalid)
    }

    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    }

    private func expectReelError(_ code: ReelError.Code, containing text: String, _ body: () throws -> Void) {
        #expect {
            try body()
        } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == code && error.description.contains(text)
        }
    }

    @Test func wrongSizeAndPixelFormat() throws {
        let url = directory.appendingPathComponent("size.mp4")
        let (writer, input) = try startedWriter(url)
        try input.append(try frame(0, at: 0))
        let small = try PixelBuffer(width: 160, height: 120, pixelFormat: .yuv420p)
        expectReelError(.invalidArgument, containing: "160x120 but this input writes 320x240") {
            try input.append(SampleBuffer(pixelBuffer: small, presentationTime: MediaTime(value: 1, timescale: 25), duration: .invalid))
        }
        let rgba = try PixelBuffer(width: 320, height: 240, pixelFormat: .rgba)
        expectReelError(.invalidArgument, containing: "rgba but this input takes yuv420p") {
            try input.append(SampleBuffer(pixelBuffer: rgba, presentationTime: MediaTime(value: 1, timescale: 25), duration: .invalid))
        }
        writer.cancelWriting()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try leftovers().isEmpty)
    }

    @Test func timestampsMustIncrease() throws {
        let url = directory.appendingPathComponent("time.mp4")
        let (writer, input) = try startedWriter(url)
        try input.append(try frame(0, at: 2))
        expectReelError(.invalidArgument, containing: "is not after the previous sample's 0.08 s") {
            try input.append(try frame(1, at: 2))
        }
        expectReelError(.invalidArgument, containing: "is not after") { try input.append(try frame(1, at: 1)) }
        writer.cancelWriting()
        #expect(try leftovers().isEmpty)
    }

    @Test func appendingAfterFinishFails() throws {
        let url = directory.appendingPathComponent("late.mp4")
        let (writer, input) = try startedWriter(url)
        try input.append(try frame(0, at: 0))
        try writer.finishSynchronously()
        expectReelError(.invalidState, containing: "completed") { try input.append(try frame(1, at: 1)) }
        expectReelError(.invalidState, containing: "cannot finish") { try writer.finishSynchronously() }
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func appendingBeforeTheSessionFails() throws {
        let writer = try AssetWriter(outputURL: directory.appendingPathComponent("early.mp4"), fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 320, height: 240))
        try writer.add(input)
        expectReelError(.invalidState, containing: "not started") { try input.append(try frame(0, at: 0)) }
        try writer.startWriting()
        expectReelError(.invalidState, containing: "startSession") { try input.append(try frame(0, at: 0)) }
        writer.cancelWriting()
    }

    @Test func missingFolder() {
        expectReelError(.fileNotFound, containing: "does not exist") {
            _ = try AssetWriter(outputURL: directory.appendingPathComponent("no/such/folder/out.mp4"), fileType: .mp4)
        }
    }

    @Test(.enabled(if: SmallDisk.canMount, "needs root to mount a read-only tmpfs"))
    func readOnlyFolder() throws {
        let disk = try SmallDisk(kilobytes: 64, readOnly: true)
        expectReelError(.permissionDenied, containing: "cannot write in") {
            _ = try AssetWriter(outputURL: disk.url.appendingPathComponent("out.mp4"), fileType: .mp4)
        }
    }

    @Test func incompatibleSettingsAreRefusedWhenAdded() throws {
        let writer = try AssetWriter(outputURL: directory.appendingPathComponent("odd.mp4"), fileType: .mp4)
        let odd = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 321, height: 240))
        #expect(!writer.canAdd(odd))
        expectReelError(.unsupported, containing: "even width and height") { try writer.add(odd) }
        let prores = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(codec: .proRes422, width: 320, height: 240))
        expectReelError(.unsupported, containing: "ProRes goes only in .mov") { try writer.add(prores) }
        expectReelError(.unsupported, containing: "not '.avi'") {
            _ = try AssetWriter(outputURL: directory.appendingPathComponent("x.avi"))
        }
    }

    @Test(.enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
    func fullDiskFailsCleanlyAndSparesTheDestination() async throws {
        let disk = try SmallDisk(kilobytes: 400)
        let url = disk.url.appendingPathComponent("clip.mp4")
        let previous = Data("the previous take".utf8)
        try previous.write(to: url)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .video,
                                     outputSettings: VideoSettings(width: 320, height: 240, quality: 0, preset: "ultrafast"))
        try writer.add(input)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        var generator = SystemRandomNumberGenerator()
        var appendError: ReelError?
        for index in 0..<200 {
            // Noise does not compress: 200 frames need megabytes.
            let noise = try PixelBuffer(width: 320, height: 240, pixelFormat: .yuv420p)
            noise.withUnsafeMutableBytes(ofPlane: 0) { bytes in
                for i in stride(from: 0, to: bytes.count, by: 8) { bytes.storeBytes(of: generator.next(), toByteOffset: i, as: UInt64.self) }
            }
            do {
                try input.append(SampleBuffer(pixelBuffer: noise, presentationTime: MediaTime(value: Int64(index), timescale: 25),
                                              duration: .invalid))
            } catch {
                appendError = error
                break
            }
        }
        var finishError: ReelError?
        do { try await writer.finishWriting() } catch { finishError = error }
        let error = try #require(finishError ?? appendError)
        #expect(error.code == .diskFull, "\(error)")
        #expect(error.description.contains("No space left on device"))
        #expect(writer.status == .failed)
        #expect(try Data(contentsOf: url) == previous)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path) == ["clip.mp4"])
    }
}

import Foundation
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

@Suite struct PhotoOutputTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-photo")
    }

    /// What exiftool, the outside judge, reads from a file.
    func exif(_ url: URL) throws -> [String: String] {
        let result = try ProcessRunner.run("/usr/bin/exiftool", ["-s", "-s", "-Make", "-Model", "-Orientation", "-Flash",
                                                                 "-ExifImageWidth", "-ExifImageHeight", "-DateTimeOriginal",
                                                                 "-ImageWidth", "-ImageHeight", "-FileType", url.path])
        var values: [String: String] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    func session(camera id: String? = nil) throws -> (CaptureSession, PhotoOutput) {
        let session = CaptureSession()
        session.sessionPreset = .vga640x480
        // A camera of its own, its exposure held, so that only the flash changes the light.
        let own = CaptureDevice.testCamera(name: "Reel Virtual Camera")
        own.exposureMode = .locked
        let camera = try id.map { (id) throws(ReelError) in try CaptureDevice.device(withUniqueID: id) } ?? own
        try session.add(try CaptureDeviceInput(device: camera))
        let output = PhotoOutput()
        try session.add(output)
        return (session, output)
    }

    func meanLuma(_ picture: PixelBuffer) -> Double {
        let grid = SubjectAreaMonitor.grid(of: picture)
        return grid.reduce(0, +) / Double(grid.count)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/exiftool"), "needs exiftool (make deps)"))
    func jpegAndPNGCarrySizeFormatAndMetadata() async throws {
        let (session, output) = try session()
        session.startRunning()
        defer { session.stopRunning() }
        try await Task.sleep(nanoseconds: 200_000_000)
        let plain = try await output.capturePhoto(with: PhotoSettings(codec: .jpeg(quality: 0.9)))
        let flashed = try await output.capturePhoto(with: PhotoSettings(codec: .jpeg(quality: 0.9), flashMode: .on,
                                                                        orientation: .right))
        let small = try await output.capturePhoto(with: PhotoSettings(codec: .png, maxPhotoDimensions: Size(width: 320, height: 320)))
        #expect(plain.width == 640 && plain.height == 480 && small.width == 320 && small.height == 240)
        #expect(plain.fileDataRepresentation().prefix(2) == Data([0xFF, 0xD8]))
        #expect(small.fileDataRepresentation().prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // A flash lights the scene (unless either frame was the camera's own white flash).
        if meanLuma(plain.pixelBuffer) < 225 && meanLuma(flashed.pixelBuffer) < 225 {
            #expect(meanLuma(flashed.pixelBuffer) > meanLuma(plain.pixelBuffer) + 15)
        }
        let jpeg = directory.appendingPathComponent("flash.\(flashed.fileExtension)")
        let png = directory.appendingPathComponent("small.\(small.fileExtension)")
        try flashed.write(to: jpeg)
        try small.write(to: png)
        let tags = try exif(jpeg)
        #expect(tags["FileType"] == "JPEG" && tags["ImageWidth"] == "640" && tags["ImageHeight"] == "480")
        #expect(tags["Make"] == "Reel" && tags["Model"] == "Reel Virtual Camera")
        #expect(tags["Orientation"] == "Rotate 90 CW")
        #expect(tags["Flash"]?.hasPrefix("On, Fired") == true, "\(tags)")
        #expect(tags["ExifImageWidth"] == "640" && tags["ExifImageHeight"] == "480")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(tags["DateTimeOriginal"]?.hasPrefix("\(year):") == true, "\(tags)")
        let pngTags = try exif(png)
        #expect(pngTags["FileType"] == "PNG" && pngTags["ImageWidth"] == "320" && pngTags["Orientation"] == "Horizontal (normal)")
        #expect(pngTags["Flash"] == "Off, Did not fire", "\(pngTags)")
        // ffprobe, too, decodes both.
        #expect(try FFprobe.probe(jpeg).streams(ofType: "video").first?.width == 640)
        #expect(try FFprobe.probe(png).streams(ofType: "video").first?.width == 320)
    }

    @Test func badRequestsSayWhy() async throws {
        let (stopped, output) = try session()
        await #expect { try await output.capturePhoto(with: PhotoSettings()) } throws: {
            ($0 as? ReelError)?.message.contains("start the session") == true
        }
        _ = stopped
        let clip = directory.appendingPathComponent("clip.mp4")
        try ProcessRunner.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1", "-pix_fmt", "yuv420p",
                                  clip.path])
        let (session, fileOutput) = try session(camera: "file:\(clip.path)")
        #expect(fileOutput.supportedFlashModes == [.off])
        session.startRunning()
        defer { session.stopRunning() }
        // A flash the camera lacks falls back to none (issue 15), as a switch to a flashless camera needs.
        let unlit = try await fileOutput.capturePhoto(with: PhotoSettings(flashMode: .on))
        #expect(!unlit.metadata.flashFired && unlit.settings.flashMode == .off)
        await #expect { try await fileOutput.capturePhoto(with: PhotoSettings(codec: .jpeg(quality: 2))) } throws: {
            ($0 as? ReelError)?.code == .invalidArgument
        }
        let photo = try await fileOutput.capturePhoto(with: PhotoSettings(codec: .png))
        #expect(photo.width == 640 && photo.height == 480 && photo.metadata.model == "File clip.mp4")
    }
}

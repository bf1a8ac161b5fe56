import Dispatch
import Foundation
import ReelCapture
import ReelCore

/// `reel photo -o FILE`: one photo from a camera, with flash and EXIF.
struct PhotoCommand: Command {
    let spec = CommandSpec(
        name: "photo",
        abstract: "Take a photo from a camera (JPEG or PNG, with EXIF).",
        usage: "-o FILE [--device ID] [--flash on|off|auto] [--format jpeg|png] [--size WxH] [--quality Q] [--filter NAME] [--orientation HELD]",
        positionals: 0...0,
        options: [
            .value("output", short: "o", "FILE", help: "The photo (.jpg, .jpeg or .png)."),
            .value("device", short: "d", "ID", help: "The camera (default virtual:camera)."),
            .value("flash", "MODE", help: "on, off (default) or auto (fires in a dark scene)."),
            .value("format", "NAME", help: "jpeg or png (default: from the extension)."),
            .value("size", "WxH", help: "Fit the photo within this size (default 1920x1080)."),
            .value("quality", "Q", help: "JPEG quality from 0 to 1 (default 0.9)."),
            .value("filter", short: "f", "CHAIN", help: "A filter chain ('reel filters' lists them)."),
            ConnectionOptions.orientation,
        ],
        discussion: "The camera runs for a moment first, so focus and exposure settle.")

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let path = arguments.value("output") else { throw UsageError("'photo' needs -o FILE", command: spec.name) }
        let url = URL(fileURLWithPath: path)
        let formatName = arguments.value("format") ?? (["jpg", "jpeg"].contains(url.pathExtension.lowercased()) ? "jpeg"
            : url.pathExtension.lowercased())
        guard formatName == "jpeg" || formatName == "png" else {
            throw UsageError("--format is jpeg or png, and -o ends in .jpg, .jpeg or .png, not '\(path)'", command: spec.name)
        }
        let flashName = arguments.value("flash") ?? "off"
        guard let flash = CaptureDevice.FlashMode(rawValue: flashName) else {
            throw UsageError("--flash is on, off or auto, not '\(flashName)'", command: spec.name)
        }
        let quality = try arguments.double("quality", in: 0...1) ?? 0.9
        let size = try arguments.size("size")
        let preset: CaptureSession.Preset = (size?.width ?? 0) > 1920 || (size?.height ?? 0) > 1080 ? .hd4K3840x2160 : .hd1920x1080
        let (session, camera) = try CaptureSetup.session(arguments, command: spec.name, defaultPreset: preset, microphone: false)
        let output = PhotoOutput()
        try session.add(output)
        try ConnectionOptions.apply(arguments, to: output.connection(with: .video), command: spec.name, console: console)
        session.startRunning()
        defer { session.stopRunning() }
        // Let auto focus and auto exposure settle (at most a second and a half).
        let deadline = Date().addingTimeInterval(1.5)
        try await Task.sleep(nanoseconds: 300_000_000)
        while camera.isAdjustingFocus || camera.isAdjustingExposure, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let settings = PhotoSettings(codec: formatName == "png" ? .png : .jpeg(quality: quality), flashMode: flash,
                                     maxPhotoDimensions: size.map { Size(width: Double($0.width), height: Double($0.height)) })
        let photo = try await output.capturePhoto(with: settings)
        try photo.write(to: url)
        console.printError("wrote \(path): \(photo.width)x\(photo.height) \(formatName.uppercased())"
                           + (photo.metadata.flashFired ? ", flash fired" : ""))
        return 0
    }
}

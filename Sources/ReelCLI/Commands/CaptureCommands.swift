import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelCore
import ReelFilters

/// `reel devices [--json]`: the capture devices and their formats.
struct DevicesCommand: Command {
    let spec = CommandSpec(name: "devices", abstract: "List capture devices and their formats.", usage: "[--json]",
                           positionals: 0...0, options: [.flag("json", help: "Print a JSON list.")],
                           discussion: "file:PATH also works as a camera: it plays the file as a live source, looping.")

    struct Entry: Encodable {
        var id: String
        var name: String
        var mediaType: String
        var position: String
        var formats: [CaptureDevice.Format]
    }

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let entries = CaptureDevice.devices.map {
            Entry(id: $0.uniqueID, name: $0.localizedName, mediaType: $0.mediaType.rawValue, position: $0.position.rawValue,
                  formats: $0.formats)
        }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            console.print(String(decoding: try encoder.encode(entries), as: UTF8.self))
        } else {
            for entry in entries {
                console.print("\(entry.id)  \(entry.name) (\(entry.mediaType), \(entry.position))")
                for format in entry.formats {
                    console.print("    \(format.width)x\(format.height) \(format.pixelFormat) \(Format.number(format.minFrameRate))-\(Format.number(format.maxFrameRate)) fps")
                }
            }
        }
        return 0
    }
}

/// `reel record -o FILE`: the camera (and microphone) to a file, with a live filter.
struct RecordCommand: Command {
    let spec = CommandSpec(
        name: "record",
        abstract: "Record from a camera and microphone, with a live filter.",
        usage: "-o FILE [--device ID] [--mic ID|none] [--preset 1280x720] [--fps N] [--filter NAME] [--max-duration S]",
        positionals: 0...0,
        options: [
            .value("output", short: "o", "FILE", help: "The recording (.mp4, .mov)."),
            .value("device", short: "d", "ID", help: "The camera (default virtual:camera; file:PATH plays a file)."),
            .value("mic", "ID", help: "The microphone, or none (default virtual:microphone)."),
            .value("preset", "NAME", help: "640x480, 1280x720 (default), 1920x1080, 3840x2160, high, medium, low."),
            .value("fps", "N", help: "Frames per second (default 30)."),
            .value("filter", short: "f", "CHAIN", help: "A live filter chain ('reel filters' lists them)."),
            .value("max-duration", "S", help: "Stop after S seconds (default: until Ctrl-C)."),
        ],
        discussion: "Ctrl-C or SIGTERM stops and finishes the file. Until then it is NAME.partial.EXT, playable up to the last second.")

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let path = arguments.value("output") else { throw UsageError("'record' needs -o FILE", command: spec.name) }
        let url = URL(fileURLWithPath: path)
        guard let type = FileType(pathExtension: url.pathExtension), [.mp4, .mov, .m4v].contains(type) else {
            throw UsageError("-o must end in .mp4, .mov or .m4v, not '\(path)'", command: spec.name)
        }
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: arguments.value("device") ?? "virtual:camera")
        let presetName = arguments.value("preset") ?? "1280x720"
        guard let preset = CaptureSession.Preset.allCases.first(where: { $0.rawValue == presetName }) else {
            throw UsageError("--preset is one of \(CaptureSession.Preset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(presetName)'",
                             command: spec.name)
        }
        try camera.setFrameRate(try arguments.double("fps", in: 1...240) ?? 30)
        try session.addInput(try CaptureDeviceInput(device: camera))
        if arguments.value("mic") != "none" {
            let mic = try CaptureDevice.device(withUniqueID: arguments.value("mic") ?? "virtual:microphone")
            try session.addInput(try CaptureDeviceInput(device: mic))
        }
        guard session.canSetSessionPreset(preset) else {
            throw ReelError(.unsupported, "the camera has no format for the \(preset.rawValue) preset", subject: camera.uniqueID)
        }
        session.sessionPreset = preset
        if let chain = arguments.value("filter") {
            do {
                session.videoFilter = try FilterChain(spec: chain)
            } catch {
                throw UsageError("--filter: \(error.message)", command: spec.name)
            }
        }
        let movie = MovieFileOutput()
        if let limit = try arguments.double("max-duration", in: 0.1...86_400) {
            movie.maxRecordedDuration = MediaTime(seconds: limit, preferredTimescale: 1000)
        }
        try session.addOutput(movie)
        let done = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        try movie.startRecording(to: url, fileType: type) { _, error in
            done.continuation.yield(error)
            done.continuation.finish()
        }
        SignalHandling.onInterrupt { movie.stopRecording() }
        // A dispatch source must be resumed before it is released, so it always runs; it only
        // draws on a terminal.
        let status = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "reel.record.status"))
        let terminal = console.errorIsTerminal
        status.schedule(deadline: .now() + 0.5, repeating: 0.5)
        status.setEventHandler {
            guard terminal else { return }
            console.writeError("\rrecording \(Format.timecode(movie.recordedDuration.seconds))  \(movie.recordedFrames) frames  "
                               + "\(session.droppedFrames) dropped ")
        }
        status.resume()
        var failure: ReelError?
        for await error in done.stream { failure = error }
        status.cancel()
        session.stopRunning()
        SignalHandling.onInterrupt(nil)
        if console.errorIsTerminal { console.writeError("\n") }
        if let failure { throw failure }
        console.printError("wrote \(path): \(Format.seconds(movie.recordedDuration)), \(movie.recordedFrames) frames, \(session.droppedFrames) dropped")
        return 0
    }
}

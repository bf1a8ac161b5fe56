import Foundation
import ReelCapture
import ReelCore
import ReelStudio

/// `reel studio`: the camera app as a local web app.
struct StudioCommand: Command {
    let spec = CommandSpec(
        name: "studio",
        abstract: "Reel Studio: the camera, gallery and compose pages as a local web app.",
        usage: "[--host 127.0.0.1] [--port 8080] [--camera ID] [--mic ID|none] [--library DIR] [--orientation HELD] [--replay-buffer S]",
        positionals: 0...0,
        options: [
            .value("host", "ADDR", help: "Where to listen (default 127.0.0.1). Any other address needs the printed access token."),
            .value("port", "N", help: "The port (default 8080; 0 picks a free one)."),
            .value("camera", "ID", help: "The camera (default virtual:camera; file:PATH plays a file)."),
            .value("mic", "ID", help: "The microphone, or none (default virtual:microphone)."),
            .value("library", "DIR", help: "Where photos and videos go (default: the XDG pictures and videos folders, in Reel)."),
            ConnectionOptions.orientation,
            .value("replay-buffer", "S", help: "Keep the last S seconds (1-3600) on disk; the camera page's Save replay button "
                + "(or POST /api/replay) saves them to the videos without stopping."),
        ],
        discussion: """
        Open the printed address in a browser. Ctrl-C stops the studio.

        Example (reach it from a phone on the same network):
          reel studio --host 0.0.0.0 --port 8080
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let host = arguments.value("host") ?? "127.0.0.1"
        guard !host.isEmpty else { throw UsageError("--host needs an address", command: spec.name) }
        let port = try arguments.int("port", in: 0...65535) ?? 8080
        let library = arguments.value("library").map { URL(fileURLWithPath: $0, isDirectory: true) }
        let (held, sensor) = try ConnectionOptions.held(arguments, command: spec.name, console: console)
        var configuration = StudioConfiguration(
            host: host, port: port, cameraID: arguments.value("camera"), microphoneID: arguments.value("mic"), library: library)
        configuration.heldOrientation = held
        configuration.orientationSource = sensor
        configuration.replaySeconds = try arguments.double("replay-buffer", in: 1...3600)
        // A server with a thread per connection: keep glibc from holding on to what they free.
        AllocatorTuning.boundRetainedMemory()
        let studio = try StudioServer(configuration: configuration)
        try studio.start()
        let folders = studio.libraryFolders
        console.print("Reel Studio: \(studio.accessURL)")
        if studio.accessToken != nil {
            console.print("(listening on \(host): every request needs the token in that address; keep it private)")
        }
        console.print(folders.photos == folders.videos ? "library: \(folders.photos.path)"
                      : "library: photos in \(folders.photos.path), videos in \(folders.videos.path)")
        let stopped = AsyncStream<Void>.makeStream()
        SignalHandling.onInterrupt {
            stopped.continuation.yield()
            stopped.continuation.finish()
        }
        for await _ in stopped.stream {}
        studio.stop()
        console.printError("Reel Studio stopped")
        return 0
    }
}

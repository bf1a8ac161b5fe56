import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelComposition
import ReelCore
import ReelFilters

/// `reel record -o FILE`: the camera (and microphone) to a file, with a live filter.
struct RecordCommand: Command {
    let spec = CommandSpec(
        name: "record",
        abstract: "Record from a camera and microphone, with a live filter.",
        usage: "-o FILE [--device ID] [--mic ID|none] [--preset 1280x720] [--fps N] [--filter NAME] [--max-duration S] [--orientation HELD] [--stabilization MODE] [--playback-fps N] [--replay-buffer S [--replay-folder DIR]]",
        positionals: 0...0,
        options: [
            .value("output", short: "o", "FILE", help: "The recording (.mp4, .mov)."),
            .value("device", short: "d", "ID", help: "The camera (default virtual:camera; file:PATH plays a file)."),
            .value("mic", "ID", help: "The microphone, or none (default virtual:microphone)."),
            .value("preset", "NAME", help: "640x480, 1280x720 (default), 1920x1080, 3840x2160, high, medium, low."),
            .value("fps", "N", help: "Frames per second (default 30)."),
            .value("filter", short: "f", "CHAIN", help: "A live filter chain ('reel filters' lists them)."),
            .value("max-duration", "S", help: "Stop after S seconds (default: until Ctrl-C)."),
            ConnectionOptions.orientation,
            ConnectionOptions.stabilization,
            .value("playback-fps", "N", help: "Slow motion: a high-rate recording written to play at N frames a second "
                + "(--fps 240 --playback-fps 30 plays 8 times slower, the sound stretched with its pitch kept)."),
            .flag("stats", help: "Print the pipeline's time per frame, the drops and the CPU used, as JSON."),
            .value("rtmp", "URL", help: "Also stream live to rtmp://HOST[:PORT]/APP/STREAM; a lost connection reconnects "
                + "(0.25-2 s back-off) and never stops the recording."),
            .value("srt", "URL", help: "Also stream live to srt://HOST:PORT (MPEG-TS), reconnecting as --rtmp does."),
            .value("hls", "DIR", help: "Also write a live HLS playlist (DIR/playlist.m3u8, 2 s fMP4 segments) that grows "
                + "while recording; DIR must be new or empty."),
            .value("replay-buffer", "S", help: "Keep the last S seconds (1-3600) on disk in 1 s segments; SIGUSR1, or s or "
                + "Enter typed on the terminal, saves them to replay-YYYY-MM-DD-HH.MM.SS.mp4 without stopping."),
            .value("replay-folder", "DIR", help: "Where replays are saved (default: beside the recording)."),
        ],
        discussion: "Ctrl-C or SIGTERM stops and finishes the file. Until then it is NAME.partial.EXT, playable up to the last second.")

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let path = arguments.value("output") else { throw UsageError("'record' needs -o FILE", command: spec.name) }
        var url = URL(fileURLWithPath: path)
        guard let type = FileType(pathExtension: url.pathExtension), [.mp4, .mov, .m4v].contains(type) else {
            throw UsageError("-o must end in .mp4, .mov or .m4v, not '\(path)'", command: spec.name)
        }
        let (session, _) = try CaptureSetup.session(arguments, command: spec.name)
        // Slow motion: recorded at the camera's rate under a temporary name, then copied with
        // its timestamps stretched to play at the given rate.
        var slowMotion: (final: URL, rate: Double)?
        if let playback = try arguments.double("playback-fps", in: 1...240) {
            let rate = playback / session.frameRate
            guard rate >= 1.0 / 16, rate < 1 else {
                throw UsageError("--playback-fps must be below the recording's \(Format.number(session.frameRate)) fps "
                                 + "and at least a sixteenth of it, not \(Format.number(playback))", command: spec.name)
            }
            slowMotion = (url, rate)
            url = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).hfr.\(url.pathExtension)")
        }
        let movie = MovieFileOutput()
        let limit = try arguments.double("max-duration", in: 0.1...86_400)
        if let limit {
            movie.maxRecordedDuration = MediaTime(seconds: limit, preferredTimescale: 1000)
        }
        try session.add(movie)
        try ConnectionOptions.apply(arguments, to: movie.connection(with: .video), command: spec.name, console: console)
        var streamers: [LiveStreamer] = []
        var addresses: [URL] = []
        if let text = arguments.value("rtmp") { addresses.append(try LiveStreamer.check(text, command: spec.name)) }
        if let text = arguments.value("srt") { addresses.append(try LiveStreamer.checkSRT(text, command: spec.name)) }
        var live: [LiveStreamer] = []
        let withAudio = arguments.value("mic") != "none"
        var hls: SegmentFolderWriter?
        if let text = arguments.value("hls") {
            let folder = URL(fileURLWithPath: text).standardizedFileURL
            try AdaptivePackage.checkDestination(folder)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            } catch let error as CocoaError where error.code == .fileWriteFileExists {
                // An empty folder, as checked.
            }
            // Low-Latency HLS parts of 0.5 s beside the segments.
            hls = try SegmentFolderWriter(folder: folder, live: true, window: nil, parts: MediaTime(value: 1, timescale: 2))
        }
        live += addresses.map { url in
            LiveStreamer(url: url, withAudio: withAudio, frameRate: session.frameRate) { line in console.printError(line) }
        }
        var replay: ReplayBuffer?
        if let seconds = try arguments.double("replay-buffer", in: 1...3600) {
            let saves: URL
            if let text = arguments.value("replay-folder") {
                saves = URL(fileURLWithPath: text).standardizedFileURL
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: saves.path, isDirectory: &isFolder), isFolder.boolValue,
                    FileManager.default.isWritableFile(atPath: saves.path)
                else {
                    throw UsageError("--replay-folder '\(text)' is not a folder that can be written", command: spec.name)
                }
            } else {
                saves = url.standardizedFileURL.deletingLastPathComponent()
            }
            // With --hls too, the live playlist's segments serve the buffer: one encoder for both.
            replay = try ReplayBuffer(seconds: seconds, beside: url.standardizedFileURL, destination: saves, sharing: hls) {
                line in console.printError(line)
            }
        } else if arguments.value("replay-folder") != nil {
            throw UsageError("--replay-folder needs --replay-buffer", command: spec.name)
        }
        if hls != nil || replay != nil {
            live.append(LiveStreamer(hls: hls, replay: replay, withAudio: withAudio, frameRate: session.frameRate) { line in
                console.printError(line)
            })
        }
        // A recording that fails to start leaves no buffer behind (finish is idempotent).
        defer { replay?.finish() }
        if !live.isEmpty {
            let live = live
            let pictures = VideoDataOutput()
            pictures.setSampleBufferHandler(queue: DispatchQueue(label: "reel.record.stream-video")) { sample in
                // The pictures the file took, no more, no fewer: the movie output, before this one
                // in the session, has decided on each before this handler sees it.
                guard let range = movie.recordedTimeRange, sample.presentationTime >= range.start,
                    sample.presentationTime < range.end
                else { return }
                for streamer in live { streamer.appendVideo(sample) }
            }
            try session.add(pictures)
            if withAudio {
                let sound = AudioDataOutput()
                sound.setSampleBufferHandler(queue: DispatchQueue(label: "reel.record.stream-audio")) { sample in
                    // Nothing after the file's end once it has stopped (the streamers' own first
                    // picture starts their sound).
                    if !movie.isRecording, let range = movie.recordedTimeRange, sample.presentationTime >= range.end { return }
                    for streamer in live { streamer.appendAudio(sample) }
                }
                try session.add(sound)
            }
            streamers = live
        }
        let done = AsyncStream<ReelError?>.makeStream()
        let started = Date()
        session.startRunning()
        // Ctrl-C from here on finishes the file, even while the recording is being opened.
        let interrupted = Interruption()
        SignalHandling.onInterrupt {
            interrupted.happen()
            movie.stopRecording()
        }
        try movie.startRecording(to: url, fileType: type) { _, error in
            done.continuation.yield(error)
            done.continuation.finish()
        }
        if interrupted.happened { movie.stopRecording() }
        // The replay buffer saves on SIGUSR1 and on s or Enter from a terminal (raw mode, put
        // back at the end); stdin that is not a terminal is left alone.
        var keys: Terminal?
        if let replay {
            SignalHandling.onUser1 { replay.save() }
            if isatty(STDIN_FILENO) != 0 {
                let terminal = Terminal()
                keys = terminal
                let reader = Thread {
                    while let key = terminal.readKey(), key != 4 {
                        if key == UInt8(ascii: "s") || key == UInt8(ascii: "S") || key == 10 || key == 13 { replay.save() }
                    }
                }
                reader.name = "reel.record.keys"
                reader.start()
                console.printError("replay buffer: the last \(Format.number(replay.length.seconds)) s; press s or Enter, "
                                   + "or send SIGUSR1, to save them")
            }
        }
        // A dispatch source must be resumed before it is released, so it always runs; it only
        // draws on a terminal.
        let status = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "reel.record.status"))
        let terminal = console.errorIsTerminal
        status.schedule(deadline: .now() + 0.5, repeating: 0.5)
        status.setEventHandler {
            guard terminal else { return }
            let elapsed = movie.recordedDuration.seconds
            let remaining = limit.map { "  \(Format.timecode(max(0, $0 - elapsed))) left" } ?? ""
            console.writeError("\rrecording \(Format.timecode(elapsed))\(remaining)  \(movie.recordedFrames) frames  "
                               + "\(session.droppedFrames) dropped ")
        }
        status.resume()
        var failure: ReelError?
        for await error in done.stream { failure = error }
        status.cancel()
        session.stopRunning()
        SignalHandling.onUser1(nil)
        keys?.restore()
        for streamer in streamers {
            // The segments end where the file does.
            streamer.stop(endingAt: movie.recordedTimeRange?.end)
            let (connections, frames, soundDropped) = streamer.statistics
            if soundDropped > 0 {
                let name = streamer.url.isFileURL ? streamer.url.path : streamer.url.absoluteString
                console.printError("\(name): the writer fell behind and missed \(soundDropped) buffers of sound")
            }
            if let folder = streamer.folder {
                console.printError("wrote \(frames) frames to \(streamer.url.path) in \(folder.segments.count) segments")
            }
            if let replay = streamer.replay {
                let kept = replay.statistics
                console.printError("replay buffer: \(kept.saved) saved, \(kept.failed) failed; at most \(kept.mostFiles) "
                                   + "segments, \(kept.mostBytes) bytes kept")
            }
            if streamer.folder != nil || streamer.replay != nil { continue }
            console.printError("streamed \(frames) frames to \(streamer.url.absoluteString) over \(connections) connection\(connections == 1 ? "" : "s")")
        }
        SignalHandling.onInterrupt(nil)
        if console.errorIsTerminal { console.writeError("\n") }
        if let failure { throw failure }
        if let (final, rate) = slowMotion {
            defer { try? FileManager.default.removeItem(at: url) }
            try StretchedCopy.write(try Asset(url: url), rate: rate, to: final, fileType: type)
            console.printError("wrote \(final.path): slow motion, \(Format.number(1 / rate))x slower, "
                               + "\(movie.recordedFrames) frames, \(session.droppedFrames) dropped")
            return 0
        }
        console.printError("wrote \(path): \(Format.seconds(movie.recordedDuration)), \(movie.recordedFrames) frames, \(session.droppedFrames) dropped")
        if arguments.flag("stats") {
            // For `make bench`: the pipeline's cost per frame and the whole process's CPU.
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            let wall = Date().timeIntervalSince(started)
            console.print("{\"frames\": \(movie.recordedFrames), \"dropped\": \(session.droppedFrames), "
                          + "\"frameMilliseconds\": \(Format.number(session.averageFrameTime * 1000)), "
                          + "\"cpuSeconds\": \(Format.number(cpu)), \"wallSeconds\": \(Format.number(wall)), "
                          + "\"cores\": \(Format.number(cpu / max(wall, 0.001)))}")
        }
        return 0
    }
}

/// Whether a Ctrl-C has come, for the moment before the recording it should stop exists.
private final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var happened: Bool { lock.withLock { value } }
    func happen() { lock.withLock { value = true } }
}

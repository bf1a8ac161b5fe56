import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelCore

/// `reel shoot -o FILE`: the short-video recorder in a terminal.
struct ShootCommand: Command {
    let spec = CommandSpec(
        name: "shoot",
        abstract: "Record a short video in segments from the terminal, up to 15 s.",
        usage: "-o FILE [--device ID] [--mic ID|none] [--preset 1280x720] [--filter NAME] [--limit S]",
        positionals: 0...0,
        options: [
            .value("output", short: "o", "FILE", help: "The merged video (.mp4, .mov)."),
            .value("device", short: "d", "ID", help: "The camera (default virtual:camera)."),
            .value("mic", "ID", help: "The microphone, or none (default virtual:microphone)."),
            .value("preset", "NAME", help: "640x480, 1280x720 (default), 1920x1080, …"),
            .value("fps", "N", help: "Frames per second (default 30)."),
            .value("filter", short: "f", "CHAIN", help: "A live filter chain."),
            .value("limit", "S", help: "The total length (default 15)."),
        ],
        discussion: "Keys: space starts and pauses a segment, u removes the last segment, s saves (merging the segments), "
            + "r resets, q quits without saving. Reaching the limit saves. Keys can be piped in too.")

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        guard let path = arguments.value("output") else { throw UsageError("'shoot' needs -o FILE", command: spec.name) }
        let url = URL(fileURLWithPath: path)
        guard let type = FileType(pathExtension: url.pathExtension), [.mp4, .mov, .m4v].contains(type) else {
            throw UsageError("-o must end in .mp4, .mov or .m4v, not '\(path)'", command: spec.name)
        }
        let limit = try arguments.double("limit", in: 0.5...600) ?? 15
        let (session, _) = try CaptureSetup.session(arguments, command: spec.name)
        let segments = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent).segments-\(getpid())")
        let recorder = try SegmentedRecorder(session: session, directory: segments, outputURL: url,
                                             maximumDuration: MediaTime(seconds: limit, preferredTimescale: 1000))
        defer { try? FileManager.default.removeItem(at: segments) }
        let done = AsyncStream<Result<MediaTime, ReelError>>.makeStream()
        let bar = ShootStatus(console: console, limit: limit)
        recorder.setEventHandler { event in
            switch event {
            case .progress(let recorded, _): bar.update(recorded: recorded.seconds, recording: recorder.isRecording,
                                                        segments: recorder.segments.count)
            case .saved(_, let duration): done.continuation.yield(.success(duration))
            case .failed(let error): done.continuation.yield(.failure(error))
            default: break
            }
        }
        session.startRunning()
        defer { session.stopRunning() }
        let terminal = Terminal()
        defer { terminal.restore() }
        SignalHandling.onInterrupt { done.continuation.yield(.failure(ReelError(.cancelled, "stopped; nothing saved"))) }
        defer { SignalHandling.onInterrupt(nil) }
        // The keys are for a person; keys from a pipe need no legend, and a failure stays one line.
        if terminal.isInteractive { console.printError("space: record/pause  u: undo  s: save  r: reset  q: quit") }
        // Keys are read on a thread of their own, as reading blocks.
        Thread.detachNewThread {
            while let key = terminal.readKey() {
                switch key {
                case UInt8(ascii: " "):
                    if recorder.isRecording { recorder.pauseSegment() } else {
                        do throws(ReelError) { try recorder.startSegment() } catch { console.printError("\nreel shoot: \(error)") }
                    }
                case UInt8(ascii: "u"): recorder.removeLastSegment()
                case UInt8(ascii: "r"): recorder.reset()
                case UInt8(ascii: "s"):
                    do throws(ReelError) { try recorder.save() } catch { done.continuation.yield(.failure(error)) }
                    return
                case UInt8(ascii: "q"):
                    done.continuation.yield(.failure(ReelError(.cancelled, "quit; nothing saved")))
                    return
                default: continue
                }
                bar.update(recorded: recorder.recordedDuration.seconds, recording: recorder.isRecording,
                           segments: recorder.segments.count)
            }
            done.continuation.yield(.failure(ReelError(.cancelled, "the input ended; nothing saved")))
        }
        var outcome: Result<MediaTime, ReelError>?
        for await result in done.stream {
            outcome = result
            break
        }
        recorder.waitUntilIdle()
        bar.finish()
        switch outcome {
        case .success(let duration)?:
            console.printError("wrote \(path): \(Format.seconds(duration)) from \(recorder.segments.count) segments")
            return 0
        case .failure(let error)?:
            if error.code == .cancelled {
                console.printError("reel shoot: \(error.message)")
                return 1
            }
            throw error
        case nil:
            return 1
        }
    }
}

/// The progress bar: `[██████------] 7.3 / 15.0 s  3 segments  ● REC`, redrawn in place on a terminal.
final class ShootStatus: @unchecked Sendable {
    private let console: Console
    private let limit: Double
    private let lock = NSLock()

    init(console: Console, limit: Double) {
        self.console = console
        self.limit = limit
    }

    func update(recorded: Double, recording: Bool, segments: Int) {
        guard console.errorIsTerminal else { return }
        let width = 30, filled = min(width, Int(recorded / limit * Double(width)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "-", count: width - filled)
        let tenths = { (value: Double) in "\(Int(value))." + "\(Int((value * 10).rounded()) % 10)" }
        lock.withLock {
            console.writeError("\r[\(bar)] \(tenths(recorded)) / \(tenths(limit)) s  \(segments) segments  "
                               + (recording ? "● REC " : "      "))
        }
    }

    func finish() { if console.errorIsTerminal { console.writeError("\n") } }
}

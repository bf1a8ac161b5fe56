import Dispatch
import Foundation
import ReelComposition
import ReelCore

/// The compose page's preview: the composition being built, rendered small and fast into a
/// file the page's `<video>` element plays, with its sound, before anything is exported.
///
/// Why a file and not a stream: a finished MP4 (its index in front, a keyframe every half
/// second) served with byte ranges lets the browser's own player do what a preview needs
/// (play with sound in step, pause, seek exactly to the frame under the playhead, any
/// number of times) with nothing of Reel's in the page but a play button and a scrubber.
/// A fragmented MP4 written as it is rendered would start sooner on a long composition but
/// cannot be sought past what has been written, and frames and sound on separate channels
/// would leave the page to keep them together. The render starts as soon as the page's
/// composition changes (not when play is pressed), at 640x360 at most with the encoder's
/// fastest setting, so a short composition is ready well before the user reaches play.
///
/// A preview is named by a digest of what it was made from (the request and each source
/// file's size and modification time), and only the preview of the composition asked for
/// last is served: a changed composition never gets an old picture.
final class ComposePreview: Sendable {
    /// What the page learns of a preview (the `preview` event and the API's answer).
    struct Preview: Codable, Sendable, Equatable {
        enum State: String, Codable, Sendable { case rendering, ready, failed }
        var key: String
        var state: State
        /// Where the file is served once ready.
        var url: String
        var duration: Double
        var width: Int
        var height: Int
        /// Seconds a frame lasts, for the scrubber's step.
        var frameDuration: Double
        var error: String?
        /// How long the render took, once ready.
        var renderSeconds: Double?
    }

    /// One state per lock: nothing yet, the one render under way, the one preview ready,
    /// the last one failed, or closed with the studio.
    private enum State {
        case idle
        case rendering(Preview, ExportSession, file: URL)
        case ready(Preview, file: URL)
        case failed(Preview)
        case closed

        var preview: Preview? {
            switch self {
            case .rendering(let preview, _, _), .ready(let preview, _), .failed(let preview): preview
            case .idle, .closed: nil
            }
        }
    }

    /// The preview's picture fits this preset (640x360, the encoder's quickest setting).
    static let preset = ExportPreset.lowQuality
    /// Frames between keyframes: a seek decodes at most this many.
    static let keyFrameInterval = 15

    private let machine = PosixMutex<State>(.idle)
    private let events: EventHub
    private let folder: URL

    init(events: EventHub) {
        self.events = events
        let temporary = FileManager.default.temporaryDirectory
        folder = temporary.appendingPathComponent("\(Self.folderPrefix)\(getpid())-\(UUID().uuidString)")
        Self.removeOrphans(in: temporary)
    }

    /// What every preview folder's name starts with; the studio's process ID follows.
    static let folderPrefix = "reel-studio-preview-"

    /// Removes the preview folders of studios that ended without closing (killed, or
    /// crashed): those whose process ID names no running process.
    /// - Parameter temporary: The folder the previews are made in.
    static func removeOrphans(in temporary: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(folderPrefix) {
            let rest = name.dropFirst(folderPrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            if kill(pid, 0) == -1, errno == ESRCH {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
    }

    /// The preview of `plan`: the one already made or being made if nothing it comes from
    /// has changed, else a new render (the one under way for another composition is stopped
    /// and its file removed).
    /// - Parameters:
    ///   - plan: What the request makes (``ComposeDesk/plan(_:)``).
    ///   - request: The page's request, part of the preview's name.
    /// - Returns: The preview, rendering or ready.
    /// - Throws: ``ReelError`` `.invalidState` once the studio has stopped, `.io` when the
    ///   folder for previews cannot be made.
    func prepare(_ plan: ComposeDesk.Plan, request: ComposeDesk.Request) throws(ReelError) -> Preview {
        let key = Self.key(plan, request: request)
        let session = plan.sequence.exportSession(
            preset: Self.preset, to: folder.appendingPathComponent("\(key).mp4"),
            fileType: .mp4)
        session.videoComposition = plan.video
        session.keyFrameInterval = Self.keyFrameInterval
        session.encoderSpeed = "ultrafast"
        let size = session.outputSize
        let preview = Preview(
            key: key, state: .rendering, url: "/api/compose/preview/\(key).mp4",
            duration: plan.sequence.composition.duration.seconds, width: size.width, height: size.height,
            frameDuration: plan.video.frameDuration.seconds)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ReelError(.io, "cannot make the folder for previews: \(error.localizedDescription)", subject: folder.path)
        }
        enum Outcome { case current(Preview), started(old: (ExportSession?, URL?)), closed }
        let outcome = machine.withLock { state -> Outcome in
            switch state {
            case .closed:
                return .closed
            case .rendering(let current, _, _) where current.key == key, .ready(let current, _) where current.key == key:
                return .current(current)
            case .rendering(_, let old, let file):
                state = .rendering(preview, session, file: session.outputURL ?? file)
                return .started(old: (old, file))
            case .ready(_, let file):
                state = .rendering(preview, session, file: session.outputURL ?? file)
                return .started(old: (nil, file))
            case .idle, .failed:
                state = .rendering(preview, session, file: session.outputURL ?? folder)
                return .started(old: (nil, nil))
            }
        }
        switch outcome {
        case .closed:
            throw ReelError(.invalidState, "the studio is stopping")
        case .current(let current):
            return current
        case .started(let old):
            // The old render's thread removes its own file when it sees it is no longer wanted.
            old.0?.cancelExport()
            if old.0 == nil, let file = old.1 { try? FileManager.default.removeItem(at: file) }
            let started = Date()
            Thread.detachNewThread { [self] in render(session, preview: preview, started: started) }
            return preview
        }
    }

    private func render(_ session: ExportSession, preview: Preview, started: Date) {
        var finished = preview
        do throws(ReelError) {
            try session.exportSynchronously()
            finished.state = .ready
            finished.renderSeconds = Date().timeIntervalSince(started)
        } catch {
            finished.state = .failed
            finished.error = "the preview failed: \(StudioResponse.words(error))"
        }
        let file = session.outputURL
        let kept = machine.withLock { state -> Bool in
            guard case .rendering(let current, _, _) = state, current.key == preview.key else { return false }
            if let file, finished.state == .ready {
                state = .ready(finished, file: file)
            } else {
                state = .failed(finished)
            }
            return true
        }
        guard kept else {
            if let file { try? FileManager.default.removeItem(at: file) }
            return
        }
        if finished.state == .failed, let file { try? FileManager.default.removeItem(at: file) }
        events.publish("preview", finished)
    }

    /// The preview the page asked for last, in any state.
    var current: Preview? { machine.withLock { $0.preview } }

    /// The file of the preview named `key`, when it is the current one and ready.
    /// - Returns: The file, or why not: `rendering` while it is made, `unknown` for a name
    ///   that is not the current composition's (it changed).
    func file(key: String) -> Result<URL, Refusal> {
        machine.withLock { state in
            switch state {
            case .ready(let preview, let file) where preview.key == key: .success(file)
            case .rendering(let preview, _, _) where preview.key == key: .failure(.rendering)
            default: .failure(.unknown)
            }
        }
    }

    enum Refusal: Error { case rendering, unknown }

    /// Stops a render under way and removes every preview file.
    func close() {
        let session = machine.withLock { state -> ExportSession? in
            defer { state = .closed }
            if case .rendering(_, let session, _) = state { return session }
            return nil
        }
        session?.cancelExport()
        try? FileManager.default.removeItem(at: folder)
    }

    /// A digest (FNV-1a, 64 bits) of the request and of each source's path, size and
    /// modification time: the same composition of the same files has the same name.
    static func key(_ plan: ComposeDesk.Plan, request: ComposeDesk.Request) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var text = (try? encoder.encode(request)).map { String(decoding: $0, as: UTF8.self) } ?? "\(request)"
        for url in plan.sources {
            var status = stat()
            if stat(url.path, &status) == 0 {
                text += "|\(url.path)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
            } else {
                text += "|\(url.path)|?"
            }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

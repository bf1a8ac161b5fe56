import Dispatch
import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// The compose page's work: library clips in order, with transitions and an
/// optional sticker, exported through ``ExportSession`` into the library, one
/// export at a time, with progress as events.
final class ComposeDesk: @unchecked Sendable {
    struct Request: Codable, Sendable {
        var clips: [String]
        var transition: String?
        var preset: String?
        var sticker: Sticker?
    }

    struct Sticker: Codable, Sendable {
        /// `none`, `square` (the seed's yellow square), `text` or `photo`.
        var kind: String
        var text: String?
        /// A library photo's name, for `photo`.
        var photo: String?
    }

    struct Job: Codable, Sendable {
        enum State: String, Codable, Sendable { case exporting, completed, failed }
        var id: Int
        var state: State
        var progress: Double
        var result: MediaLibrary.Item?
        var error: String?
        /// What was asked for, so that a page opened later shows the same choices.
        var request: Request?
    }

    static let presets: [ExportPreset] = [.preset640x480, .preset960x540, .preset1280x720, .preset1920x1080]
    static let transitions = ["none", "dissolve", "push-left", "push-right", "slide-left", "slide-up", "wipe-left", "fade", "zoom"]

    private let library: MediaLibrary
    private let events: EventHub
    /// The page's preview of the composition it is building (``ComposePreview``).
    let preview: ComposePreview
    private let lock = NSLock()
    private var job: Job?
    private var session: ExportSession?
    private var counter = 0

    init(library: MediaLibrary, events: EventHub) {
        self.library = library
        self.events = events
        preview = ComposePreview(events: events)
    }

    var current: Job? { lock.withLock { job } }

    /// What a request makes: the clips in order with their transitions, the picture's
    /// composition (with the sticker) and the preset; the export and the preview share it.
    struct Plan {
        var sequence: ClipSequence
        var video: VideoComposition
        var preset: ExportPreset
        /// The library files the clips come from, in order.
        var sources: [URL]
    }

    /// Checks the request and builds what it asks for.
    /// - Throws: ``ReelError`` naming the clip, transition, preset or sticker that is wrong.
    func plan(_ request: Request) throws(ReelError) -> Plan {
        guard !request.clips.isEmpty else { throw ReelError(.invalidArgument, "choose at least one clip", subject: "clips") }
        guard request.clips.count <= 20 else { throw ReelError(.invalidArgument, "at most 20 clips", subject: "clips") }
        var assets: [Asset] = []
        var sources: [URL] = []
        for (index, name) in request.clips.enumerated() {
            guard MediaLibrary.kind(ofName: name) == .video, let url = library.file(named: name) else {
                throw ReelError(.fileNotFound, "the library has no such video", subject: "clips[\(index)] \(name)")
            }
            do throws(ReelError) {
                assets.append(try Asset(url: url))
            } catch {
                throw error.about("clips[\(index)] \(name)")
            }
            sources.append(url)
        }
        let transitionText = request.transition ?? "none"
        guard let transition = Transition(spec: transitionText) else {
            throw ReelError(.invalidArgument, "not a transition (dissolve:1, push-left:1, none…)", subject: transitionText)
        }
        let presetName = request.preset ?? ExportPreset.preset1280x720.rawValue
        guard let preset = Self.presets.first(where: { $0.rawValue == presetName }) else {
            throw ReelError(.invalidArgument, "the presets are \(Self.presets.map(\.rawValue).joined(separator: ", "))",
                            subject: presetName)
        }
        let sequence = try ClipSequence(assets: assets, transitions: [transition])
        var video = sequence.videoComposition
        if let sticker = request.sticker, sticker.kind != "none" {
            video.animationTool = try stickerLayer(sticker, size: video.renderSize, duration: sequence.composition.duration.seconds)
        }
        return Plan(sequence: sequence, video: video, preset: preset, sources: sources)
    }

    /// Checks the request, then exports on a thread of its own.
    /// - Throws: ``ReelError`` naming the clip, transition, preset or sticker that is wrong,
    ///   or `.invalidState` while another export runs.
    func start(_ request: Request) throws(ReelError) -> Job {
        let plan = try plan(request)
        let (sequence, video, preset) = (plan.sequence, plan.video, plan.preset)
        let output = library.newFile(kind: .video, prefix: "Composition", extension: "mp4")
        let export = sequence.exportSession(preset: preset, to: output, fileType: .mp4)
        export.videoComposition = video
        lock.lock()
        if job?.state == .exporting {
            lock.unlock()
            throw ReelError(.invalidState, "an export is already running")
        }
        counter += 1
        let started = Job(id: counter, state: .exporting, progress: 0, request: request)
        job = started
        session = export
        lock.unlock()
        events.publish("compose", started)
        Thread.detachNewThread { [self] in run(export, id: started.id, output: output) }
        return started
    }

    private func run(_ export: ExportSession, id: Int, output: URL) {
        do throws(ReelError) {
            try export.exportSynchronously { [self] fraction in
                let update = lock.withLock { () -> Job? in
                    guard var current = job, current.id == id, fraction - current.progress >= 0.02 else { return nil }
                    current.progress = fraction
                    job = current
                    return current
                }
                if let update { events.publish("compose", update) }
            }
            let item = library.item(at: output)
            // Ahead of the gallery's request, which makes it again if this fails.
            if item != nil { _ = try? library.thumbnail(for: output) }
            if let item { events.publish("library", ["added": item.name]) }
            finish(id: id) {
                $0.state = .completed
                $0.progress = 1
                $0.result = item
            }
        } catch {
            finish(id: id) {
                $0.state = .failed
                $0.error = "the export failed: \(StudioResponse.words(error))"
            }
        }
    }

    private func finish(id: Int, _ change: (inout Job) -> Void) {
        let done = lock.withLock { () -> Job? in
            guard var current = job, current.id == id else { return nil }
            change(&current)
            job = current
            session = nil
            return current
        }
        if let done { events.publish("compose", done) }
    }

    /// Stops the export under way; it ends as failed, and leaves no file.
    func cancel() { lock.withLock { session }?.cancelExport() }

    /// With the studio: stops the export and the preview under way, and removes the previews.
    func close() {
        cancel()
        preview.close()
    }

    /// The sticker over the whole composition: it fades in over the first second and
    /// out over the last, in the top-left corner like the seed's.
    private func stickerLayer(_ sticker: Sticker, size: Size, duration: Double) throws(ReelError) -> OverlayLayer {
        let side = max(40, size.height / 6)
        let content: OverlayLayer.Content
        var frame = Rect(x: size.width * 0.04, y: size.height * 0.05, width: side, height: side)
        switch sticker.kind {
        case "square":
            content = .color(red: 1, green: 0.85, blue: 0)
        case "text":
            let text = (sticker.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= 40 else {
                throw ReelError(.invalidArgument, "a text sticker needs 1 to 40 characters", subject: "sticker.text")
            }
            let fontSize = Int(side * 0.6)
            content = .text(text, fontSize: fontSize, color: "#FFD60A")
            frame.size = Size(width: min(size.width * 0.9, Double(text.count) * Double(fontSize) * 0.65 + 20), height: side)
        case "photo":
            guard let name = sticker.photo, MediaLibrary.kind(ofName: name) == .photo, let url = library.file(named: name) else {
                throw ReelError(.fileNotFound, "the library has no such photo", subject: "sticker.photo \(sticker.photo ?? "")")
            }
            let generator = ImageGenerator(asset: try Asset(url: url))
            generator.maximumSize = Size(width: side * 2, height: side * 2)
            let picture = try generator.image(at: .zero).image
            content = .image(picture)
            frame.size = Size(width: side * Double(picture.width) / Double(max(1, picture.height)), height: side)
        default:
            throw ReelError(.invalidArgument, "a sticker is none, square, text or photo", subject: "sticker.kind \(sticker.kind)")
        }
        let root = OverlayLayer(frame: Rect(origin: .zero, size: size))
        let layer = OverlayLayer(content: content, frame: frame, opacity: 0)
        let fade = min(1, duration / 4) / max(duration, 0.001)
        layer.add(KeyframeAnimation(keyPath: .opacity, values: [0, 1, 1, 0], keyTimes: [0, fade, 1 - fade, 1], beginTime: 0,
                                    duration: duration, isRemovedOnCompletion: false))
        root.addSublayer(layer)
        return root
    }
}

import Dispatch
public import Foundation
public import ReelCore
import ReelHTTP

/// Reel Studio: the camera app as a local web app. It serves its embedded pages,
/// the live preview (MJPEG), status (server-sent events) and a JSON API over the same
/// ``CaptureSession``, recorders and ``ExportSession`` the CLI uses.
///
/// ```swift
/// let studio = try StudioServer(configuration: StudioConfiguration(port: 0))
/// try studio.start()
/// print(studio.accessURL)   // http://127.0.0.1:PORT/
/// ```
public final class StudioServer: @unchecked Sendable {
    public let configuration: StudioConfiguration
    /// The token every request needs when the host is not loopback; nil on loopback.
    public let accessToken: String?
    let guardian: AccessGuard
    let library: MediaLibrary
    let feed = PreviewFeed()
    let events = EventHub()
    let camera: LiveCamera
    let compose: ComposeDesk
    let photos: PhotoDesk
    let shortVideo: ShortVideoDesk
    let panel: DeviceControlPanel
    /// The replay buffer, with `--replay-buffer`.
    let replay: ReplayDesk?
    private var http: HTTPServer?
    private let lock = NSLock()
    private var ticker: (any DispatchSourceTimer)?
    private var errors: [String] = []
    /// The state last pushed to the pages, to push only changes; one push at a time.
    private let pushing = NSLock()
    private var pushed: Data?
    private var ticks = 0

    /// Opens the devices and the library; nothing listens until ``start()``.
    /// - Throws: ``ReelError`` naming a device that does not exist or a library folder that cannot be made.
    public init(configuration: StudioConfiguration) throws(ReelError) {
        self.configuration = configuration
        accessToken = AccessGuard.isLoopback(host: configuration.host)
            ? nil : (configuration.accessToken ?? AccessGuard.makeToken())
        guardian = AccessGuard(token: accessToken)
        // The devices first: a wrong ID should not leave library folders behind.
        camera = try LiveCamera(cameraID: configuration.cameraID, microphoneID: configuration.microphoneID, feed: feed)
        library = try MediaLibrary(folder: configuration.library)
        compose = ComposeDesk(library: library, events: events)
        photos = PhotoDesk(camera: camera, library: library)
        shortVideo = try ShortVideoDesk(camera: camera, library: library, events: events)
        panel = DeviceControlPanel(camera: camera, photos: photos, shortVideo: shortVideo)
        let reports = ReportRelay()
        if let seconds = configuration.replaySeconds {
            replay = try ReplayDesk(seconds: seconds, camera: camera, folder: library.videoFolder, events: events) { line in
                reports.send(line)
            }
        } else {
            replay = nil
        }
        // Once every output is in the session, so the recordings' connections get it too.
        if let source = configuration.orientationSource {
            camera.follow(source)
        } else if let held = configuration.heldOrientation {
            camera.hold(held)
        }
        camera.soundStream.onFailure { [weak self] message in self?.report(message) }
        reports.connect { [weak self] message in self?.report(message) }
        // A page that goes away mid-recording (closed, reloaded, lost) lets go of its press.
        events.onPageLeft { [weak self] page in
            guard let self else { return }
            shortVideo.pageLeft(page)
            publishState()
        }
    }

    deinit { stop() }

    /// Starts the camera and listens.
    /// - Throws: ``ReelError`` `.io` when the address cannot be listened on (the port is taken, say).
    public func start() throws(ReelError) {
        var settings = HTTPServer.Configuration(host: configuration.host, port: configuration.port)
        settings.maximumBodyBytes = Self.maximumBodyBytes
        let server = HTTPServer(configuration: settings) { [weak self] request in
            guard let self else { return .text("the studio has stopped\n", status: 503) }
            return self.respond(to: request)
        }
        try server.start()
        lock.withLock { http = server }
        camera.start()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "reel.studio.status"))
        timer.schedule(deadline: .now() + 0.1, repeating: 0.1)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        lock.withLock { ticker = timer }
    }

    /// Stops the camera, ends every stream and closes the server.
    public func stop() {
        let (server, timer) = lock.withLock { () -> (HTTPServer?, (any DispatchSourceTimer)?) in
            defer {
                http = nil
                ticker = nil
            }
            return (http, ticker)
        }
        timer?.cancel()
        feed.close()
        camera.soundStream.close()
        events.close()
        compose.close()
        shortVideo.pause()
        server?.stop()
        camera.stop()
        replay?.close()
    }

    /// The largest request body the studio takes (JSON commands are far smaller).
    static let maximumBodyBytes = 64 * 1024

    /// The port it listens on.
    public var port: Int { lock.withLock { http?.port ?? 0 } }

    /// The address to open, with `?token=` when one is needed.
    public var accessURL: String {
        let host = configuration.host.contains(":") && !configuration.host.hasPrefix("[")
            ? "[\(configuration.host)]" : configuration.host
        let base = "http://\(host):\(port)/"
        return accessToken.map { "\(base)?token=\($0)" } ?? base
    }

    /// The library's folders, for the start-up message.
    public var libraryFolders: (photos: URL, videos: URL) { (library.photoFolder, library.videoFolder) }

    /// Records an error in words for the status line and the event stream.
    func report(_ message: String) {
        lock.withLock {
            errors.append(message)
            if errors.count > 5 { errors.removeFirst() }
        }
        events.publish("error", ["message": message])
    }

    var recentErrors: [String] { lock.withLock { errors } }

    /// Ten times a second: the state to every page when it has changed (a zoom ramp, a
    /// change from the command line or another page), and the status line five times a
    /// second, ten while recording (the recording page's stream is written to often, so
    /// that its closing is noticed at once).
    private func tick() {
        guard events.subscriberCount > 0 else { return }
        publishState()
        ticks &+= 1
        if ticks % 2 == 0 || shortVideo.progress.recording { events.publish("status", status()) }
    }

    /// Pushes the state (without the status line) to every page if it differs from the last push.
    func publishState() {
        pushing.withLock {
            var snapshot = state()
            snapshot.status = nil
            guard let json = EventHub.encode(snapshot), json != pushed else { return }
            pushed = json
            events.publish("state", json: json)
        }
    }
}

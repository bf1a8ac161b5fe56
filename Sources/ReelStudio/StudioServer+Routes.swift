import Foundation
import ReelCore
import ReelHTTP

/// The router: the guard first, then the pages, the live feeds, the API and the library.
extension StudioServer {
    func respond(to request: HTTPRequest) -> HTTPResponse {
        if let refusal = guardian.refusal(for: request) { return refusal }
        var response = route(request)
        response.setHeader("X-Content-Type-Options", "nosniff")
        if response.header("Cache-Control") == nil { response.setHeader("Cache-Control", "no-cache") }
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.path
        let reading = request.method == "GET" || request.method == "HEAD"
        if reading, let asset = StudioAssets.asset(at: path) {
            var response = HTTPResponse.bytes(asset.bytes, type: asset.contentType)
            if path.hasPrefix("/assets/") { response.setHeader("Cache-Control", "no-cache") }
            return response
        }
        if path.hasPrefix("/library/") {
            guard reading else { return methodNotAllowed("GET") }
            return libraryFile(request)
        }
        guard path.hasPrefix("/api/") else { return StudioResponse.error("no such page", status: 404) }
        let route = String(path.dropFirst(5))
        if request.method == "DELETE", route.hasPrefix("library/") {
            return delete(String(route.dropFirst("library/".count)))
        }
        switch (request.method, route) {
        case ("GET", "state"), ("HEAD", "state"):
            return StudioResponse.json(state())
        case ("GET", "status"):
            return StudioResponse.json(status())
        case ("GET", "preview.mjpg"):
            var response = HTTPResponse(status: 200, body: .stream(feed.makeStream()))
            response.setHeader("Content-Type", MJPEGStream.contentType)
            response.setHeader("Cache-Control", "no-store")
            return response
        case ("GET", "preview.jpg"):
            guard let frame = feed.current ?? waitForFirstFrame() else {
                return StudioResponse.error("the camera has not delivered a picture yet", status: 503)
            }
            var response = HTTPResponse.bytes(frame.jpeg, type: "image/jpeg")
            response.setHeader("X-Frame", String(frame.frameIndex))
            response.setHeader("Cache-Control", "no-store")
            return response
        case ("POST", "replay"):
            guard let replay else {
                return StudioResponse.error("no replay buffer: start reel studio with --replay-buffer SECONDS", status: 409)
            }
            replay.save()
            return StudioResponse.json(["saving": replay.seconds], status: 202)
        case ("GET", "live/init.mp4"), ("GET", "live/fragment"):
            return liveSound(request, route: route)
        case ("GET", "events"):
            let page = request.query["page"].flatMap(Self.pageID)
            var response = HTTPResponse(status: 200, body: .stream(events.makeStream(page: page)))
            response.setHeader("Content-Type", "text/event-stream")
            response.setHeader("Cache-Control", "no-store")
            return response
        case ("POST", "camera"):
            return command(request) { (body: Choice) throws(ReelError) in try camera.use(cameraID: body.id) }
        case ("POST", "microphone"):
            return command(request) { (body: Choice) throws(ReelError) in try camera.use(microphoneID: body.id) }
        case ("POST", "preset"):
            return command(request) { (body: Choice) throws(ReelError) in try camera.use(preset: body.id) }
        case ("POST", "filter"):
            return command(request) { (body: Choice) throws(ReelError) in try camera.use(filter: body.id) }
        case ("POST", "filter/random"):
            do throws(ReelError) {
                _ = try camera.useRandomFilter()
                return StudioResponse.json(state())
            } catch {
                return StudioResponse.error(error, status: 400)
            }
        case ("POST", "photo"):
            do throws(ReelError) {
                let taken = try photos.take()
                events.publish("library", ["added": taken.item.name])
                return StudioResponse.json(taken)
            } catch {
                report("the photo failed: \(StudioResponse.words(error))")
                return StudioResponse.error(error, status: 500)
            }
        case ("POST", "segments/start"):
            let press = Self.press(request)
            do throws(ReelError) {
                try shortVideo.start(page: press.page, press: press.number)
                publishState()
                return StudioResponse.json(status())
            } catch {
                return StudioResponse.error(error, status: 409)
            }
        case ("POST", "segments/pause"):
            let press = Self.press(request)
            let release = shortVideo.pause(page: press.page, press: press.number, held: press.held, leaving: press.leaving == true)
            publishState()
            return StudioResponse.json(Released(release: release, status: status()))
        case ("POST", "segments/undo"):
            do throws(ReelError) {
                try shortVideo.undo()
                return StudioResponse.json(status())
            } catch {
                return StudioResponse.error(error, status: 409)
            }
        case ("POST", "segments/reset"):
            shortVideo.reset()
            return StudioResponse.json(status())
        case ("POST", "segments/save"):
            do throws(ReelError) {
                let item = try shortVideo.save()
                events.publish("library", ["added": item.name])
                events.publish("saved", ["name": item.name])
                return StudioResponse.json(Saved(item: item, status: status()))
            } catch {
                return StudioResponse.error(error, status: error.code == .invalidState ? 409 : 500)
            }
        case ("POST", "focus"):
            let body: Tap
            switch Self.decode(Tap.self, request, example: #"{"x": 0.5, "y": 0.5, "viewWidth": 960, "viewHeight": 540}"#) {
            case .success(let decoded): body = decoded
            case .failure(let refusal): return refusal.response
            }
            do throws(ReelError) {
                let point = try panel.focus(atViewX: body.x, y: body.y, viewWidth: body.viewWidth ?? 1, viewHeight: body.viewHeight ?? 1)
                return StudioResponse.json(["x": point.x, "y": point.y])
            } catch {
                return StudioResponse.error(error, status: error.code == .unsupported ? 409 : 400)
            }
        case ("POST", "control"):
            return command(request) { (body: ControlChange) throws(ReelError) in
                try panel.set(body.id, value: body.value, option: body.option)
            }
        case ("GET", "library"):
            return StudioResponse.json(library.items())
        case ("POST", "library/restore"):
            let body: Choice
            switch Self.decode(Choice.self, request, example: #"{"id": "Reel Photo 2026-01-01 12.00.00.jpg"}"#) {
            case .success(let decoded): body = decoded
            case .failure(let refusal): return refusal.response
            }
            do throws(ReelError) {
                try library.restore(named: body.id)
                events.publish("library", ["added": body.id])
                return StudioResponse.json(library.items())
            } catch {
                return StudioResponse.error(error, status: error.code == .invalidState ? 409 : 404)
            }
        case ("GET", "compose"):
            return StudioResponse.json(ComposeOptions())
        case ("POST", "compose"):
            let body: ComposeDesk.Request
            switch Self.decode(ComposeDesk.Request.self, request, example: #"{"clips": ["A.mp4", "B.mp4"], "transition": "dissolve:1"}"#) {
            case .success(let decoded): body = decoded
            case .failure(let refusal): return refusal.response
            }
            do throws(ReelError) {
                let job = try compose.start(body)
                publishState()
                return StudioResponse.json(job, status: 202)
            } catch {
                return StudioResponse.error(error, status: error.code == .invalidState ? 409 : 400)
            }
        case (_, let route) where route.hasPrefix("compose/preview"):
            return composePreview(request, route: route)
        case ("GET", "compose/job"):
            guard let job = compose.current else { return StudioResponse.error("no export has run", status: 404) }
            return StudioResponse.json(job)
        case (_, let route) where knownRoutes.contains(String(route.split(separator: "/").first ?? "")):
            return methodNotAllowed(nil)
        default:
            return StudioResponse.error("no such page", status: 404)
        }
    }

    private func delete(_ name: String) -> HTTPResponse {
        do throws(ReelError) {
            try library.delete(named: name)
            events.publish("library", ["deleted": name])
            return StudioResponse.json(library.items())
        } catch {
            return StudioResponse.error(error, status: error.code == .fileNotFound ? 404 : 500)
        }
    }

    private var knownRoutes: Set<String> {
        ["state", "status", "preview.mjpg", "preview.jpg", "live", "replay", "events", "camera", "microphone", "preset", "filter", "library",
         "compose", "photo", "segments", "focus", "control"]
    }

    private func methodNotAllowed(_ allowed: String?) -> HTTPResponse {
        var response = StudioResponse.error("this method is not allowed here", status: 405)
        if let allowed { response.setHeader("Allow", allowed) }
        return response
    }

    /// `{"id": …}`, the body of the choosing commands.
    struct Choice: Decodable { var id: String }

    /// A tap on the preview: `x`, `y` from 0 to 1 of the picture shown `viewWidth`×`viewHeight`.
    struct Tap: Decodable {
        var x: Double
        var y: Double
        var viewWidth: Double?
        var viewHeight: Double?
    }

    struct ControlChange: Decodable {
        var id: String
        var value: Double?
        var option: String?
    }

    struct Saved: Encodable {
        var item: MediaLibrary.Item
        var status: StudioStatus
    }

    /// The answer to a release: the status after it, with `release` saying what it did.
    struct Released: Encodable {
        var release: ShortVideoDesk.Release
        var status: StudioStatus

        private enum Keys: String, CodingKey { case release }

        func encode(to encoder: any Encoder) throws {
            try status.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(release, forKey: .release)
        }
    }

    /// The page's ID and the press's number from a start or pause body (`{"page": ID, "press": N}`);
    /// both nil for an API client's empty body.
    struct Press: Decodable {
        var page: String?
        var press: Int?
        /// The page is going away (its `pagehide`): stop at once.
        var leaving: Bool?
        /// Seconds the button was down, as the page measured it (from its input events).
        var held: Double?
        var number: Int? { press }
    }

    static func press(_ request: HTTPRequest) -> Press {
        guard let press = try? JSONDecoder().decode(Press.self, from: request.body) else { return Press() }
        return Press(page: press.page.flatMap(pageID), press: press.press, leaving: press.leaving,
                     held: press.held.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil })
    }

    /// A page's ID as it names itself: 1 to 64 letters, digits, `-` and `_`; nil otherwise.
    static func pageID(_ text: String) -> String? {
        guard (1...64).contains(text.count),
              text.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "_" })
        else { return nil }
        return text
    }

    /// Decodes the body as `Body`, runs `change`, and answers with the new state (400 with the reason when it fails).
    private func command<Body: Decodable>(_ request: HTTPRequest, _ change: (Body) throws(ReelError) -> Void) -> HTTPResponse {
        let body: Body
        switch Self.decode(Body.self, request, example: #"{"id": "…"}"#) {
        case .success(let decoded): body = decoded
        case .failure(let refusal): return refusal.response
        }
        do throws(ReelError) {
            try change(body)
            publishState()
            return StudioResponse.json(state())
        } catch {
            return StudioResponse.error(error, status: error.code == .invalidState ? 409 : 400)
        }
    }

    struct Refusal: Error {
        let response: HTTPResponse
    }

    /// The body as `Body`, or a 400 that names the field that is missing or wrong.
    static func decode<Body: Decodable>(_ type: Body.Type, _ request: HTTPRequest, example: String) -> Result<Body, Refusal> {
        do {
            return .success(try JSONDecoder().decode(Body.self, from: request.body))
        } catch let error as DecodingError {
            func path(_ keys: [any CodingKey]) -> String {
                keys.enumerated().map { index, key in
                    key.intValue.map { "[\($0)]" } ?? (index == 0 ? key.stringValue : ".\(key.stringValue)")
                }.joined()
            }
            let reason: String
            switch error {
            case .keyNotFound(let key, let context): reason = "the body has no '\(path(context.codingPath + [key]))'"
            case .typeMismatch(_, let context), .valueNotFound(_, let context):
                reason = context.codingPath.isEmpty ? "the body is not an object" : "the body's '\(path(context.codingPath))' has the wrong type"
            default: reason = "the body is not JSON"
            }
            return .failure(Refusal(response: StudioResponse.error("\(reason); send JSON such as \(example)", status: 400)))
        } catch {
            return .failure(Refusal(response: StudioResponse.error("the body is not JSON; send JSON such as \(example)", status: 400)))
        }
    }

    private func waitForFirstFrame() -> PreviewFeed.Frame? {
        // The one-picture route counts as a viewer while it waits, so the camera encodes.
        let stream = feed.makeStream()
        defer { stream.closed() }
        return feed.frame(after: 0, timeout: 3) { false }
    }

    /// What the compose page may choose from.
    struct ComposeOptions: Encodable {
        var transitions = ComposeDesk.transitions
        var presets = ComposeDesk.presets.map(\.rawValue)
        var stickers = ["none", "square", "text", "photo"]
    }

    func state() -> StudioState {
        let camera = self.camera
        let presets = camera.presets
        return StudioState(
            cameras: camera.cameras.map { StudioState.Device(id: $0.uniqueID, name: $0.localizedName) },
            microphones: camera.microphones.map { StudioState.Device(id: $0.uniqueID, name: $0.localizedName) }
                + [StudioState.Device(id: "none", name: "No sound")],
            camera: camera.currentCamera.uniqueID, microphone: camera.currentMicrophone?.uniqueID ?? "none",
            presets: presets.map(\.rawValue),
            presetChoices: presets.map { StudioState.Preset(id: $0.rawValue, label: LiveCamera.label(of: $0)) },
            preset: camera.session.sessionPreset.rawValue,
            filters: ["none"] + LiveCamera.filterNames, filter: camera.filterName,
            controls: panel.controls(), focus: panel.focus, segmentLimit: ShortVideoDesk.limitSeconds,
            shortestPress: ShortVideoDesk.shortestPress, replaySeconds: replay?.seconds, compose: compose.current,
            status: status())
    }

    func status() -> StudioStatus {
        let statistics = camera.statistics
        let short = shortVideo.progress
        let level = camera.meter.level
        return StudioStatus(running: camera.session.isRunning, frameRate: statistics.frameRate, width: statistics.width,
                            height: statistics.height, deliveredFrames: statistics.deliveredFrames,
                            droppedFrames: statistics.droppedFrames,
                            captureFrameIndex: max(0, statistics.deliveredFrames + statistics.droppedFrames - 1),
                            previewFrames: statistics.previewFrames,
                            previewDrops: statistics.previewDrops, previewViewers: feed.viewers,
                            encodeMilliseconds: statistics.encodeMilliseconds, previewFrameIndex: feed.current?.frameIndex,
                            recording: short.recording, recordingPage: short.recordingPage,
                            recordedSeconds: short.recordedSeconds, segments: short.segments,
                            segmentEnds: short.segmentEnds, progress: short.progress,
                            microphoneLevel: level?.average, microphonePeak: level?.peak,
                            errors: recentErrors + [statistics.lastError].compactMap { $0 })
    }
}

import Foundation
import ReelCore
import ReelHTTP

/// The compose page's preview over HTTP: `POST /api/compose/preview` with the composition
/// (the export's body) starts or finds its preview; `GET /api/compose/preview` is the current
/// one; `GET /api/compose/preview/KEY.mp4` is its file, with byte ranges, once ready.
extension StudioServer {
    func composePreview(_ request: HTTPRequest, route: String) -> HTTPResponse {
        let reading = request.method == "GET" || request.method == "HEAD"
        if route == "compose/preview" {
            if reading {
                guard let preview = compose.preview.current else { return StudioResponse.error("no preview yet", status: 404) }
                return StudioResponse.json(preview)
            }
            guard request.method == "POST" else {
                var response = StudioResponse.error("this method is not allowed here", status: 405)
                response.setHeader("Allow", "GET, POST")
                return response
            }
            let body: ComposeDesk.Request
            switch Self.decode(
                ComposeDesk.Request.self, request, example: #"{"clips": ["A.mp4", "B.mp4"], "transition": "dissolve:1"}"#)
            {
            case .success(let decoded): body = decoded
            case .failure(let refusal): return refusal.response
            }
            do throws(ReelError) {
                let plan = try compose.plan(body)
                return StudioResponse.json(try compose.preview.prepare(plan, request: body))
            } catch {
                return StudioResponse.error(error, status: error.code == .invalidState ? 503 : 400)
            }
        }
        let name = route.dropFirst("compose/preview/".count)
        guard reading, route.hasPrefix("compose/preview/"), name.hasSuffix(".mp4") else {
            return StudioResponse.error("no such page", status: 404)
        }
        switch compose.preview.file(key: String(name.dropLast(4))) {
        case .success(let file):
            var response = fileResponse(file, type: "video/mp4", request: request, download: nil)
            // The name changes with the composition, so a ready preview never changes.
            response.setHeader("Cache-Control", "private, max-age=3600")
            return response
        case .failure(.rendering):
            return StudioResponse.error("the preview is still being made", status: 409)
        case .failure(.unknown):
            return StudioResponse.error("no preview of that composition: it has changed since", status: 404)
        }
    }
}

/// The camera page's preview with sound (``LiveSoundStream``) over HTTP:
/// `GET /api/live/init.mp4` is the initialization segment (it starts the stream; the
/// `X-Reel-Stream` header names the stream, `X-Reel-Type` the Media Source type);
/// `GET /api/live/fragment?stream=G&after=N` is the next fragment after N (the newest for
/// none), waiting up to 2 s for it: 200 with its number, start and capture time in
/// `X-Reel-Fragment`, `X-Reel-Start` (seconds on the stream's timeline) and `X-Reel-Captured`
/// (seconds since 1970); 204 when none came; 409 when the stream restarted.
extension StudioServer {
    func liveSound(_ request: HTTPRequest, route: String) -> HTTPResponse {
        let stream = camera.soundStream
        if route == "live/init.mp4" {
            guard let initialization = stream.initialization(timeout: 5) else {
                return StudioResponse.error("the camera has not delivered a picture to stream", status: 503)
            }
            var response = HTTPResponse.bytes(initialization.data, type: "video/mp4")
            response.setHeader("X-Reel-Stream", String(initialization.generation))
            response.setHeader("X-Reel-Type", initialization.type)
            response.setHeader("Cache-Control", "no-store")
            return response
        }
        guard let generation = request.query["stream"].flatMap({ Int($0) }) else {
            return StudioResponse.error("stream=G (the X-Reel-Stream of /api/live/init.mp4) is missing or not a number", status: 400)
        }
        let after = request.query["after"].flatMap { Int($0) } ?? -1
        switch stream.fragment(generation: generation, after: after, timeout: 2) {
        case .fragment(let fragment):
            var response = HTTPResponse.bytes(fragment.data, type: "video/mp4")
            response.setHeader("X-Reel-Fragment", String(fragment.number))
            response.setHeader("X-Reel-Start", String(format: "%.6f", fragment.start))
            response.setHeader("X-Reel-Duration", String(format: "%.6f", fragment.duration))
            response.setHeader("X-Reel-Captured", String(format: "%.3f", fragment.captured))
            response.setHeader("Cache-Control", "no-store")
            return response
        case .none:
            var response = HTTPResponse(status: 204, body: .data(Data()))
            response.setHeader("Cache-Control", "no-store")
            return response
        case .restarted:
            return StudioResponse.error("the stream has restarted: fetch /api/live/init.mp4 again", status: 409)
        }
    }
}

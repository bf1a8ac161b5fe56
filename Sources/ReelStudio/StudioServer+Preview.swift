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

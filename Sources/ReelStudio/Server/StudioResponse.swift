import Foundation
import ReelCore
import ReelHTTP

/// The studio's responses: JSON for the API, errors in words.
enum StudioResponse {
    static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return error("the answer could not be encoded", status: 500)
        }
        var response = HTTPResponse.bytes(data, type: "application/json", status: status)
        response.setHeader("Cache-Control", "no-store")
        return response
    }

    /// `{"error": message}` with `status`.
    static func error(_ message: String, status: Int) -> HTTPResponse {
        json(["error": message], status: status)
    }

    /// A ReelError in words: its message and what it is about.
    static func error(_ error: ReelError, status: Int = 500) -> HTTPResponse {
        self.error(StudioResponse.words(error), status: status)
    }

    /// A ReelError in words for people: a path in the subject becomes the file's name, and
    /// one inside a hidden folder (the library's `.segments`, `.thumbnails`) is left out.
    static func words(_ error: ReelError) -> String {
        guard let subject = error.subject else { return error.message }
        guard subject.hasPrefix("/") else { return "\(subject): \(error.message)" }
        let parts = subject.split(separator: "/")
        if parts.dropLast().contains(where: { $0.hasPrefix(".") }) { return error.message }
        return parts.last.map { "\($0): \(error.message)" } ?? error.message
    }

    static func unauthorized() -> HTTPResponse {
        let page = """
        <!doctype html><meta charset="utf-8"><title>Reel Studio: access token needed</title>
        <body style="font: 18px system-ui, sans-serif; margin: 3em; background: #111; color: #eee">
        <h1>Reel Studio needs its access token</h1>
        <p>Open the address that <code>reel studio</code> printed when it started (it ends in <code>?token=…</code>).</p>
        """
        var response = HTTPResponse.bytes(Data(page.utf8), type: "text/html; charset=utf-8", status: 401)
        response.setHeader("Cache-Control", "no-store")
        return response
    }
}

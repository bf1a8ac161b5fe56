import Foundation
import ReelHTTP

/// The studio's door: what every request passes before any route sees it.
///
/// - A path with a `..` segment, an empty segment (`//etc/passwd`), a backslash or a
///   NUL is 404: files come only from the embedded assets and the library, by name.
/// - Bound to loopback, the Host header must name loopback too (a page on another
///   site cannot reach the studio through a DNS name that points at 127.0.0.1).
/// - Bound to any other address, every request needs the access token: a visit with
///   `?token=` sets an HttpOnly cookie and redirects to the same page without it.
///   Loopback clients get no exemption. The cookie is SameSite=Lax, so that the link
///   works when opened from another app (a chat, a QR reader); the Origin check below
///   is what keeps other sites from changing anything.
/// - A request that changes state (anything but GET, HEAD, OPTIONS) from a browser
///   must come from the studio's own origin: a foreign or `null` Origin, or
///   `Sec-Fetch-Site: cross-site`, is 403.
struct AccessGuard: Sendable {
    static let cookieName = "reel_studio_token"

    /// nil when bound to loopback: no token is needed then.
    let token: String?

    /// A random 128-bit token in hex.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }

    /// Whether `host` (as given to `--host`) is a loopback address.
    static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// The response that refuses `request`, or nil to let it through.
    func refusal(for request: HTTPRequest) -> HTTPResponse? {
        if !Self.isSafePath(request.path) {
            return StudioResponse.error("no such page", status: 404)
        }
        if token == nil, let host = request.header("host"), !Self.isLoopback(host: Self.hostName(host)) {
            return StudioResponse.error("this studio answers only to localhost, not '\(host)'", status: 403)
        }
        if let token {
            if let offered = request.query["token"] {
                guard Self.constantTimeEqual(offered, token) else {
                    return StudioResponse.unauthorized()
                }
                var response = HTTPResponse(status: 303)
                response.setHeader("Location", request.path)
                response.setHeader("Set-Cookie", "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Lax")
                response.setHeader("Cache-Control", "no-store")
                return response
            }
            guard let cookie = request.cookies[Self.cookieName], Self.constantTimeEqual(cookie, token) else {
                return StudioResponse.unauthorized()
            }
        }
        if !["GET", "HEAD", "OPTIONS"].contains(request.method) {
            if request.header("sec-fetch-site") == "cross-site" {
                return StudioResponse.error("a request from another site may not change the studio", status: 403)
            }
            if let origin = request.header("origin") {
                let expected = request.header("host").map { "http://\($0)" }
                guard origin != "null", origin == expected else {
                    return StudioResponse.error("a request from \(origin) may not change the studio", status: 403)
                }
            }
        }
        return nil
    }

    /// False for a path that could step outside what the studio serves.
    static func isSafePath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0") else { return false }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            if segment == ".." || segment == "." { return false }
            // Only the last segment may be empty (a trailing slash, or "/" itself).
            if segment.isEmpty, index != segments.count - 1 { return false }
        }
        return true
    }

    /// `127.0.0.1` from `127.0.0.1:8080`, `::1` from `[::1]:8080`.
    static func hostName(_ header: String) -> String {
        if header.hasPrefix("["), let close = header.firstIndex(of: "]") {
            return String(header[header.index(after: header.startIndex)..<close])
        }
        return String(header.split(separator: ":", maxSplits: 1).first ?? "")
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

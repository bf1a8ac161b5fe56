import Foundation
import ReelTestSupport
import Testing

/// The studio's door, tried with raw requests against the real binary; after each
/// refusal the server must still answer the next request.
@Suite struct SecurityTests {
    private func stillServing(_ studio: StudioProcess, headers: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let next = try RawHTTP.get("/api/status", port: studio.port, headers: headers)
        #expect(next.status == 200, "the next request after a refusal", sourceLocation: sourceLocation)
        #expect(studio.isRunning, sourceLocation: sourceLocation)
    }

    @Test func anyOtherHostNeedsTheTokenEvenFromLoopback() throws {
        let studio = try StudioProcess(arguments: ["--host", "0.0.0.0"])
        let token = try #require(studio.token, "the printed address carries a token: \(studio.standardOutput)")
        #expect(token.count == 32)
        for target in ["/", "/api/state", "/api/preview.jpg", "/assets/studio.css", "/library/x.jpg"] {
            #expect(try RawHTTP.get(target, port: studio.port).status == 401, "\(target) without the token")
        }
        #expect(try RawHTTP.get("/?token=wrong\(token.prefix(27))", port: studio.port).status == 401)
        #expect(try RawHTTP.get("/api/status", port: studio.port, headers: ["Cookie: reel_studio_token=nope"]).status == 401)
        // A visit with the token sets the cookie and goes to the page without it.
        let visit = try RawHTTP.get("/?token=\(token)", port: studio.port)
        #expect(visit.status == 303)
        #expect(visit.headers["location"] == "/")
        let cookie = try #require(visit.headers["set-cookie"])
        #expect(cookie.hasPrefix("reel_studio_token=\(token);") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
        let page = try RawHTTP.get("/", port: studio.port, headers: ["Cookie: reel_studio_token=\(token)"])
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("Reel Studio"))
        try stillServing(studio, headers: ["Cookie: reel_studio_token=\(token)"])
    }

    @Test func loopbackNeedsNoTokenButOnlyAnswersToLoopbackNames() throws {
        let studio = try StudioProcess()
        #expect(studio.token == nil && studio.accessURL == "http://127.0.0.1:\(studio.port)/")
        #expect(try RawHTTP.get("/", port: studio.port).status == 200)
        for host in ["localhost:\(studio.port)", "[::1]:\(studio.port)"] {
            let lines = ["GET /api/status HTTP/1.1", "Host: \(host)", "Connection: close"]
            #expect(try RawHTTP.send(lines.joined(separator: "\r\n") + "\r\n\r\n", port: studio.port).status == 200, "\(host)")
        }
        // A DNS name pointed at 127.0.0.1 by another site is refused.
        let rebound = ["GET /api/state HTTP/1.1", "Host: evil.example:\(studio.port)", "Connection: close"]
        #expect(try RawHTTP.send(rebound.joined(separator: "\r\n") + "\r\n\r\n", port: studio.port).status == 403)
        try stillServing(studio)
    }

    @Test func traversalAndAbsolutePathsAre404() throws {
        let library = try Paths.temporaryDirectory("reel-studio-traversal")
        let secret = library.deletingLastPathComponent().appendingPathComponent("reel-secret-\(UUID().uuidString.prefix(6)).jpg")
        try Data("secret".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let studio = try StudioProcess(library: library)
        let targets = [
            "/../../../../etc/passwd", "/library/../../../../etc/passwd", "/library/%2e%2e/%2e%2e/etc/passwd",
            "/library/..%2f..%2fetc%2fpasswd", "/library//etc/passwd", "/library/%2Fetc%2Fpasswd", "//etc/passwd",
            "/library/../\(secret.lastPathComponent)", "/library/%2e%2e%2f\(secret.lastPathComponent)",
            "/library/thumbnails/../../\(secret.lastPathComponent)", "/assets/../assets/studio.css", "/etc/passwd",
            "/library/\(secret.path)", "/library/.thumbnails", "/library/%00.jpg", "/assets/..\\studio.css",
        ]
        for target in targets {
            let response = try RawHTTP.get(target, port: studio.port)
            #expect(response.status == 404, "\(target) gave \(response.status)")
            #expect(!String(decoding: response.body, as: UTF8.self).contains("root:"), "\(target)")
            #expect(!String(decoding: response.body, as: UTF8.self).contains("secret"), "\(target)")
        }
        try stillServing(studio)
    }

    @Test func crossOriginChangesAre403() throws {
        let studio = try StudioProcess()
        let port = studio.port
        let body = #"{"id": "PhotoEffectMono"}"#
        for headers in [["Origin: http://evil.example"], ["Origin: null"], ["Origin: http://127.0.0.1:\(port + 1)"],
                        ["Origin: https://127.0.0.1:\(port)"], ["Sec-Fetch-Site: cross-site"]] {
            let response = try RawHTTP.post("/api/filter", body: body, port: port, headers: headers)
            #expect(response.status == 403, "\(headers)")
            try stillServing(studio)
        }
        let refused = try RawHTTP.send(["DELETE /api/library/x.jpg HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: http://evil.example",
                                        "Connection: close"].joined(separator: "\r\n") + "\r\n\r\n", port: port)
        #expect(refused.status == 403)
        // Nothing changed: the filter is still none.
        #expect(String(decoding: try RawHTTP.get("/api/state", port: port).body, as: UTF8.self).contains(#""filter":"none""#))
        // The studio's own origin may.
        let allowed = try RawHTTP.post("/api/filter", body: body, port: port, headers: ["Origin: http://127.0.0.1:\(port)"])
        #expect(allowed.status == 200)
        #expect(String(decoding: allowed.body, as: UTF8.self).contains(#""filter":"PhotoEffectMono""#))
    }

    @Test func oversizedRequestsAre413() throws {
        let studio = try StudioProcess()
        let port = studio.port
        // Declared too large: refused before the body is sent.
        let declared = try RawHTTP.send(["POST /api/filter HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Type: application/json",
                                         "Content-Length: 104857600", "Connection: close"].joined(separator: "\r\n") + "\r\n\r\n",
                                        port: port)
        #expect(declared.status == 413)
        try stillServing(studio)
        // Sent too large, in chunks with no length.
        let chunk = String(repeating: "x", count: 30_000)
        let chunked = (0..<4).map { _ in "7530\r\n\(chunk)\r\n" }.joined() + "0\r\n\r\n"
        let streamed = try RawHTTP.send(["POST /api/filter HTTP/1.1", "Host: 127.0.0.1:\(port)", "Transfer-Encoding: chunked",
                                         "Connection: close"].joined(separator: "\r\n") + "\r\n\r\n" + chunked, port: port)
        #expect(streamed.status == 413)
        try stillServing(studio)
        // Headers beyond the connection's memory.
        let huge = try RawHTTP.get("/api/status", port: port, headers: ["X-Filler: " + String(repeating: "y", count: 100_000)])
        #expect([413, 431].contains(huge.status), "got \(huge.status)")
        try stillServing(studio)
        let longURL = try RawHTTP.get("/api/status?" + String(repeating: "z", count: 100_000), port: port)
        #expect([413, 414, 431].contains(longURL.status), "got \(longURL.status)")
        try stillServing(studio)
    }

    @Test func theTokenWorksFromABrowser() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--host", "0.0.0.0"])
        let result = try StudioBrowser.run("token", [studio.accessURL])
        #expect(result["preview"] as? Bool == true, "\(result)")
        #expect((result["url"] as? String)?.contains("token=") == false, "the token leaves the address bar: \(result)")
    }
}

import Foundation
import ReelCapture

/// The addresses `reel record --rtmp` and `--srt` take.
extension LiveStreamer {
    /// Checks a URL given to `--rtmp`.
    static func check(_ text: String, command: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), url.scheme?.lowercased() == "rtmp", let host = url.host, !host.isEmpty,
            url.path.split(separator: "/").count >= 2
        else {
            throw UsageError("--rtmp takes rtmp://HOST[:PORT]/APP/STREAM, not '\(text)'", command: command)
        }
        return url
    }

    /// Checks a URL given to `--srt`: `srt://HOST:PORT`, sent in 1316-byte packets (seven
    /// MPEG-TS packets, what SRT receivers expect) unless it says otherwise.
    static func checkSRT(_ text: String, command: String) throws(UsageError) -> URL {
        guard var parts = URLComponents(string: text), parts.scheme?.lowercased() == "srt", let host = parts.host, !host.isEmpty,
            let port = parts.port, (1...65_535).contains(port)
        else {
            throw UsageError("--srt takes srt://HOST:PORT[?OPTIONS], not '\(text)'", command: command)
        }
        if !(parts.queryItems ?? []).contains(where: { $0.name == "pkt_size" }) {
            parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: "pkt_size", value: "1316")]
        }
        guard let url = parts.url else { throw UsageError("--srt takes srt://HOST:PORT, not '\(text)'", command: command) }
        return url
    }
}

package import Foundation

/// What the server sends back: a status, headers and a body that is either bytes at
/// once or a stream produced while the client reads (MJPEG, server-sent events).
package struct HTTPResponse: Sendable {
    package enum Body: Sendable {
        case data(Data)
        /// Bytes pulled from the stream on the connection's own thread until it ends.
        case stream(any HTTPResponseStream)
        /// `length` bytes of the file at `path` from `offset`, sent by the kernel (sendfile).
        case file(path: String, offset: Int64, length: Int64)
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body

    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .data(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (any case), if set.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Sets header `name`, replacing any earlier value.
    package mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.append((name, value))
    }

    /// A body of bytes with its content type.
    package static func bytes(_ data: Data, type: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: .data(data))
    }

    /// Plain text, UTF-8.
    package static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        bytes(Data(text.utf8), type: "text/plain; charset=utf-8", status: status)
    }
}

import Foundation

/// Requests written byte for byte on a socket, so that tests can send what a browser
/// or curl would clean up first (`..` segments, odd headers, lying lengths).
enum RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// Sends `request` to 127.0.0.1:`port` and reads the answer until the server closes or
    /// the declared length has arrived.
    static func send(_ request: String, body: Data = Data(), port: Int, timeout: TimeInterval = 10) throws -> Response {
        // Close-on-exec: a daemon another suite spawns meanwhile must not hold the connection open.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw RawHTTPError("socket: \(errno)") }
        defer { close(socket) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RawHTTPError("connect to port \(port): \(errno)") }
        var bytes = Data(request.utf8)
        bytes.append(body)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if let parsed = parse(received), let length = parsed.headers["content-length"].flatMap(Int.init),
               parsed.body.count >= length { break }
        }
        guard let response = parse(received) else {
            throw RawHTTPError("no HTTP answer to \(request.prefix(60)): \(received.count) bytes")
        }
        return response
    }

    /// A GET with the usual headers, `extra` lines added.
    static func get(_ target: String, port: Int, headers extra: [String] = []) throws -> Response {
        let lines = ["GET \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + extra
        return try send(lines.joined(separator: "\r\n") + "\r\n\r\n", port: port)
    }

    /// A POST of `body` (JSON) with `extra` header lines.
    static func post(_ target: String, body: String, port: Int, headers extra: [String] = []) throws -> Response {
        let data = Data(body.utf8)
        let lines = ["POST \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close",
                     "Content-Type: application/json", "Content-Length: \(data.count)"] + extra
        return try send(lines.joined(separator: "\r\n") + "\r\n\r\n", body: data, port: port)
    }

    private static func parse(_ data: Data) -> Response? {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[data.startIndex..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data(data[end.upperBound...]))
    }
}

struct RawHTTPError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

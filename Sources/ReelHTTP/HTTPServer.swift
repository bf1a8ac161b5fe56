import CMicroHTTPD
import CMicroHTTPDShims
import Foundation
package import ReelCore

/// An HTTP/1.1 server on libmicrohttpd, one thread per connection, that hands each
/// complete request to a Swift handler and sends back its ``HTTPResponse``.
///
/// The server enforces the limits a local app needs before any handler runs: a body
/// over ``Configuration/maximumBodyBytes`` gets 413 (by its Content-Length, before it
/// is read, or as soon as it grows past), headers over the connection memory limit get
/// libmicrohttpd's own 431, and idle connections close after the timeout. No C pointer
/// leaves this file.
package final class HTTPServer: @unchecked Sendable {
    package struct Configuration: Sendable {
        /// A numeric address or a name to listen on.
        package var host = "127.0.0.1"
        /// 0 picks a free port; read it back from ``HTTPServer/port``.
        package var port = 8080
        package var maximumBodyBytes = 1 << 20
        /// Memory per connection for the request line and headers (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`).
        package var connectionMemoryLimit = 64 * 1024
        /// Seconds an idle connection stays open (`MHD_OPTION_CONNECTION_TIMEOUT`).
        package var connectionTimeout = 60
        /// Connections at once (`MHD_OPTION_CONNECTION_LIMIT`); each has a thread.
        package var connectionLimit = 64

        package init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// Called on the connection's thread with each complete request.
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    package let configuration: Configuration
    private let context: ServerContext
    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var retainedContext: Unmanaged<ServerContext>?
    private var boundPort = 0

    package init(configuration: Configuration, handler: @escaping Handler) {
        self.configuration = configuration
        context = ServerContext(handler: handler, maximumBodyBytes: configuration.maximumBodyBytes)
    }

    deinit { stop() }

    /// The port the server listens on (the chosen one when the configuration said 0).
    package var port: Int { lock.withLock { boundPort } }

    /// Opens the socket and starts serving.
    /// - Throws: ``ReelError`` `.io` with libmicrohttpd's reason (the port is taken, the
    ///   address is not this machine's) naming `host:port`.
    package func start() throws(ReelError) {
        lock.lock()
        defer { lock.unlock() }
        guard daemon == nil else { return }
        guard (0...65535).contains(configuration.port) else {
            throw ReelError(.invalidArgument, "the port must be 0...65535", subject: "\(configuration.port)")
        }
        // A viewer that goes away mid-response (a browser dropping a video range) must cost
        // that connection only: libmicrohttpd sends files with sendfile(), which raises
        // SIGPIPE on a closed socket, and its manual asks its host to handle the signal. A
        // handler that does nothing makes the write fail with EPIPE instead; unlike SIG_IGN,
        // it is not passed on to the programs this process starts. A host's own choice stays.
        if let previous = signal(SIGPIPE, { _ in }) { signal(SIGPIPE, previous) }
        let retained = Unmanaged.passRetained(context)
        let started = reel_mhd_start(configuration.host, UInt16(configuration.port), accessHandler, retained.toOpaque(),
                                     completedHandler, retained.toOpaque(), configuration.connectionMemoryLimit,
                                     UInt32(configuration.connectionTimeout), UInt32(configuration.connectionLimit))
        guard let started else {
            retained.release()
            let reason = String(cString: reel_mhd_last_error())
            throw ReelError(.io, reason.isEmpty ? "cannot start the HTTP server" : reason,
                            subject: "\(configuration.host):\(configuration.port)", operation: "MHD_start_daemon")
        }
        daemon = started
        retainedContext = retained
        boundPort = Int(reel_mhd_bound_port(started))
    }

    /// Ends every stream, closes the connections and the socket, and waits for the
    /// connection threads. Safe to call twice.
    package func stop() {
        let (daemon, retained) = lock.withLock { () -> (OpaquePointer?, Unmanaged<ServerContext>?) in
            defer {
                self.daemon = nil
                retainedContext = nil
            }
            return (self.daemon, retainedContext)
        }
        guard let daemon else { return }
        context.cancelStreams()
        MHD_stop_daemon(daemon)
        retained?.release()
    }
}

/// What the C callbacks reach through their closure pointer.
final class ServerContext: @unchecked Sendable {
    let handler: HTTPServer.Handler
    let maximumBodyBytes: Int
    private let lock = NSLock()
    private var streams: [ObjectIdentifier: StreamBox] = [:]
    private var stopping = false

    init(handler: @escaping HTTPServer.Handler, maximumBodyBytes: Int) {
        self.handler = handler
        self.maximumBodyBytes = maximumBodyBytes
    }

    func register(_ box: StreamBox) -> Bool {
        lock.withLock {
            guard !stopping else { return false }
            streams[ObjectIdentifier(box)] = box
            return true
        }
    }

    func unregister(_ box: StreamBox) { _ = lock.withLock { streams.removeValue(forKey: ObjectIdentifier(box)) } }

    func cancelStreams() {
        let open = lock.withLock { () -> [StreamBox] in
            stopping = true
            return Array(streams.values)
        }
        for box in open { box.stream.cancel() }
    }
}

/// A request while its headers and body arrive.
final class PendingRequest {
    var request: HTTPRequest
    var declaredTooLarge = false
    var grewTooLarge = false

    init(request: HTTPRequest) { self.request = request }
}

/// A streamed body between libmicrohttpd's reads: the stream and the part of its last
/// chunk that did not fit.
final class StreamBox: @unchecked Sendable {
    let stream: any HTTPResponseStream
    weak var context: ServerContext?
    private var pending = Data()
    private var offset = 0

    init(stream: any HTTPResponseStream, context: ServerContext) {
        self.stream = stream
        self.context = context
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, maximum: Int) -> Int {
        while offset >= pending.count {
            switch stream.next() {
            case .end:
                return reel_mhd_end_of_stream()
            case .bytes(let data):
                pending = data
                offset = 0
            }
        }
        let count = min(maximum, pending.count - offset)
        pending.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

// MARK: - C callbacks

private func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [String: String] {
    final class Collected { var values: [String: String] = [:] }
    let collected = Collected()
    let lowerCase = kind == MHD_ValueKind.HEADER_KIND
    withExtendedLifetime(collected) {
        let pointer = Unmanaged.passUnretained(collected).toOpaque()
        if lowerCase {
            MHD_get_connection_values(connection, kind, { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let box = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
                box.values[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
                return MHD_Result.YES
            }, pointer)
        } else {
            MHD_get_connection_values(connection, kind, { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let box = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
                box.values[String(cString: key)] = value.map { String(cString: $0) } ?? ""
                return MHD_Result.YES
            }, pointer)
        }
    }
    return collected.values
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: ServerContext) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .data(let data):
        var bytes = [UInt8](data)
        if bytes.isEmpty { bytes = [0] }
        made = bytes.withUnsafeMutableBytes { raw in
            MHD_create_response_from_buffer(data.count, raw.baseAddress, .RESPMEM_MUST_COPY)
        }
    case .file(let path, let offset, let length):
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return queue(.text("no such file\n", status: 404), on: connection, context: context)
        }
        // libmicrohttpd owns the descriptor now and closes it with the response.
        made = MHD_create_response_from_fd_at_offset64(UInt64(max(0, length)), descriptor, UInt64(max(0, offset)))
        if made == nil { close(descriptor) }
    case .stream(let stream):
        let socket = reel_mhd_connection_socket(connection)
        // A small send buffer keeps a live feed from queueing seconds of pictures in the kernel.
        if socket >= 0 { _ = reel_socket_tune_for_streaming(socket, 256 * 1024) }
        stream.attached(to: HTTPStreamConnection(socket: socket))
        let box = StreamBox(stream: stream, context: context)
        guard context.register(box) else {
            stream.closed()
            return queue(.text("the server is stopping\n", status: 503), on: connection, context: context)
        }
        let retained = Unmanaged.passRetained(box)
        made = MHD_create_response_from_callback(reel_mhd_size_unknown(), 32 * 1024, { cls, _, buffer, maximum in
            guard let cls, let buffer else { return reel_mhd_end_with_error() }
            return Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, maximum: maximum)
        }, retained.toOpaque(), { cls in
            guard let cls else { return }
            let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
            box.context?.unregister(box)
            box.stream.closed()
        })
        if made == nil {
            let box = retained.takeRetainedValue()
            context.unregister(box)
            box.stream.closed()
        }
    }
    guard let made else { return MHD_Result.NO }
    defer { MHD_destroy_response(made) }
    for header in response.headers { MHD_add_response_header(made, header.name, header.value) }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// Made when needed rather than kept: a 413 is rare, and a global `Data` kept for the
/// process is a leak to LeakSanitizer (its pointer hides in an enum's spare bits).
private var tooLarge: HTTPResponse { .text("the request is too large\n", status: 413) }

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, state in
    guard let cls, let connection, let uploadDataSize, let state else { return MHD_Result.NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let existing = state.pointee else {
        // First call: the headers are in.
        var address = [CChar](repeating: 0, count: 64)
        let client = reel_mhd_client_address(connection, &address, address.count) == 0
            ? String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let headers = values(of: connection, kind: MHD_ValueKind.HEADER_KIND)
        let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET",
                                  path: url.map { String(cString: $0) } ?? "/",
                                  query: values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND), headers: headers,
                                  cookies: values(of: connection, kind: MHD_ValueKind.COOKIE_KIND), clientAddress: client)
        let pending = PendingRequest(request: request)
        if let length = headers["content-length"].flatMap({ Int($0) }), length > context.maximumBodyBytes {
            pending.declaredTooLarge = true
        }
        state.pointee = Unmanaged.passRetained(pending).toOpaque()
        // A response now, before the body is read, makes libmicrohttpd drop the body and close.
        return pending.declaredTooLarge ? queue(tooLarge, on: connection, context: context) : MHD_Result.YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        if let uploadData, !pending.grewTooLarge {
            if pending.request.body.count + uploadDataSize.pointee > context.maximumBodyBytes {
                pending.grewTooLarge = true
                pending.request.body = Data()
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                    pending.request.body.append($0, count: uploadDataSize.pointee)
                }
            }
        }
        uploadDataSize.pointee = 0
        return MHD_Result.YES
    }
    if pending.declaredTooLarge { return MHD_Result.YES }
    if pending.grewTooLarge { return queue(tooLarge, on: connection, context: context) }
    return queue(context.handler(pending.request), on: connection, context: context)
}

private let completedHandler: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let existing = state.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(existing).release()
    state.pointee = nil
}

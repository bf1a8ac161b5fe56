package import Foundation

/// One HTTP request as the server received it: the method, the path (percent-decoded
/// by libmicrohttpd), the query, headers and cookies, the body and who sent it.
package struct HTTPRequest: Sendable {
    package var method: String
    /// The path without the query, decoded (`/library/a%20b.jpg` arrives as `/library/a b.jpg`).
    package var path: String
    package var query: [String: String]
    /// Header names in lower case.
    package var headers: [String: String]
    package var cookies: [String: String]
    package var body: Data
    /// The client's numeric address (`127.0.0.1`, `::1`).
    package var clientAddress: String

    package init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                 cookies: [String: String] = [:], body: Data = Data(), clientAddress: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The value of header `name` (any case).
    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

import Foundation
import ReelCore
import ReelHTTP

/// Library files over HTTP: `/library/NAME` (with byte ranges, so videos seek) and
/// `/library/thumbnails/NAME`; `?download=1` makes it an attachment.
extension StudioServer {
    func libraryFile(_ request: HTTPRequest) -> HTTPResponse {
        let rest = request.path.dropFirst("/library/".count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, parts[0] == "thumbnails" {
            guard let url = library.file(named: parts[1]) else { return StudioResponse.error("no such item", status: 404) }
            do throws(ReelError) {
                let thumbnail = try library.thumbnail(for: url)
                return fileResponse(thumbnail, type: "image/jpeg", request: request, download: nil)
            } catch {
                return StudioResponse.error(error, status: 500)
            }
        }
        guard parts.count == 1, let url = library.file(named: parts[0]) else {
            return StudioResponse.error("no such item", status: 404)
        }
        let download = request.query["download"] == "1" ? url.lastPathComponent : nil
        return fileResponse(url, type: Self.contentType(of: url), request: request, download: download)
    }

    static func contentType(of url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "mov": "video/quicktime"
        default: "video/mp4"
        }
    }

    /// The file, or the one byte range asked for (206), or 416 for a range outside it.
    func fileResponse(_ url: URL, type: String, request: HTTPRequest, download: String?) -> HTTPResponse {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value else {
            return StudioResponse.error("no such item", status: 404)
        }
        var response: HTTPResponse
        if let header = request.header("range") {
            guard let range = Self.byteRange(header, size: size) else {
                response = HTTPResponse(status: 416)
                response.setHeader("Content-Range", "bytes */\(size)")
                return response
            }
            response = HTTPResponse(status: 206, body: .file(path: url.path, offset: range.lowerBound,
                                                             length: range.upperBound - range.lowerBound + 1))
            response.setHeader("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")
        } else {
            response = HTTPResponse(status: 200, body: .file(path: url.path, offset: 0, length: size))
        }
        response.setHeader("Content-Type", type)
        response.setHeader("Accept-Ranges", "bytes")
        if let download {
            let safe = download.replacingOccurrences(of: "\"", with: "")
            response.setHeader("Content-Disposition", "attachment; filename=\"\(safe)\"")
        }
        return response
    }

    /// `bytes=A-B`, `bytes=A-` or `bytes=-N` as an inclusive range within `size`; nil when unsatisfiable.
    static func byteRange(_ header: String, size: Int64) -> ClosedRange<Int64>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return nil }
            return max(0, size - suffix)...(size - 1)
        }
        guard let start = Int64(first), start >= 0, start < size else { return nil }
        if last.isEmpty { return start...(size - 1) }
        guard let end = Int64(last), end >= start else { return nil }
        return start...min(end, size - 1)
    }
}

import Foundation
import ReelCore

/// What each part of a chunked export is doing, as one line per part in `JOB/state/`:
/// `chunk-0003`, `sound`, `join`, and `failed` (written by the failure job). Each line is
/// replaced whole (written under a temporary name and renamed), so a reader on another
/// node never sees half of one.
///
/// Lines: `running ATTEMPT HOST`, `done SECONDS HOST` (the render's wall time), `failed
/// ATTEMPT MESSAGE`.
struct ChunkJobState {
    enum Part: Equatable {
        case waiting
        case running(attempt: Int, host: String)
        case done(seconds: Double, host: String)
        case failed(attempt: Int, message: String)
    }

    let folder: URL

    init(job folder: URL) { self.folder = folder.appendingPathComponent("state") }

    static func chunkName(_ index: Int) -> String { String(format: "chunk-%04d", index) }

    func read(_ name: String) -> Part {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
              let text = String(data: data, encoding: .utf8) else { return .waiting }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        let words = line.split(separator: " ", maxSplits: 2).map(String.init)
        switch words.first {
        case "running": return .running(attempt: Int(words.count > 1 ? words[1] : "") ?? 1, host: words.count > 2 ? words[2] : "")
        case "done": return .done(seconds: Double(words.count > 1 ? words[1] : "") ?? 0, host: words.count > 2 ? words[2] : "")
        case "failed": return .failed(attempt: Int(words.count > 1 ? words[1] : "") ?? 1, message: words.count > 2 ? words[2] : "")
        default: return .waiting
        }
    }

    /// The failure job's line, if it ran.
    var failure: String? {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("failed").path) else { return nil }
        return String(data: data, encoding: .utf8)?.split(separator: "\n").first.map(String.init)
    }

    func write(_ name: String, _ part: Part) {
        let line: String
        switch part {
        case .waiting: line = "waiting"
        case .running(let attempt, let host): line = "running \(attempt) \(host)"
        case .done(let seconds, let host): line = String(format: "done %.3f %@", seconds, host)
        case .failed(let attempt, let message): line = "failed \(attempt) \(message.replacingOccurrences(of: "\n", with: " "))"
        }
        writeLine(name, line)
    }

    func writeLine(_ name: String, _ line: String) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString.prefix(8))")
        guard (try? Data((line + "\n").utf8).write(to: temporary)) != nil else { return }
        if rename(temporary.path, folder.appendingPathComponent(name).path) != 0 { try? FileManager.default.removeItem(at: temporary) }
    }

    static var host: String { ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "localhost" }
}

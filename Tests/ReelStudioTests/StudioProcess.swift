import Foundation
import ReelTestSupport

/// The real `reel studio` binary on a free port with a library of the test's own,
/// stopped with SIGINT (as Ctrl-C would) when the test is done.
final class StudioProcess {
    let process = Process()
    let library: URL
    /// The address it printed, with `?token=` when it needs one.
    private(set) var accessURL = ""
    private(set) var port = 0
    private let output: URL
    private let errors: URL

    /// Starts the studio and waits for its address.
    /// - Parameters:
    ///   - library: the `--library` folder; a fresh one when nil, none at all when `useXDG`.
    ///   - environment: extra variables for the studio (`HOME`, `XDG_…`).
    ///   - binary: the `reel` to run (the optimised one for a test whose pixel work a debug build cannot keep pace with).
    init(arguments extra: [String] = [], library: URL? = nil, useXDG: Bool = false, environment: [String: String] = [:],
         binary: URL = Paths.reelBinary) throws {
        self.library = try library ?? Paths.temporaryDirectory("reel-studio-library")
        output = FileManager.default.temporaryDirectory.appendingPathComponent("reel-studio-out-\(UUID().uuidString)")
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("reel-studio-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = binary
        process.arguments = ["studio", "--port", "0"] + (useXDG ? [] : ["--library", self.library.path]) + extra
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Reel Studio: ") }) {
                accessURL = String(line.dropFirst("Reel Studio: ".count))
                if let components = URLComponents(string: accessURL), let found = components.port { port = found }
                return
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        stop()
        throw TestFailure("reel studio did not start: \(standardError)")
    }

    /// `http://127.0.0.1:PORT` (the base without token).
    var base: String { "http://127.0.0.1:\(port)" }

    /// The token it printed, if any.
    var token: String? { URLComponents(string: accessURL)?.queryItems?.first { $0.name == "token" }?.value }

    var standardOutput: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// Whether it is still up.
    var isRunning: Bool { process.isRunning }

    /// SIGINT, then waits up to 10 s for it to finish (SIGKILL after).
    @discardableResult
    func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errors)
    }
}

/// Headless Chromium on the studio's pages, through `Tests/browser/studio.py`.
enum StudioBrowser {
    /// Runs `scenario` and returns its JSON answer.
    static func run(_ scenario: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> [String: Any] {
        try run(script: "studio.py", [scenario] + arguments, timeout: timeout)
    }

    /// Runs `Tests/browser/SCRIPT` with `arguments` and returns its last line's JSON.
    static func run(script name: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> [String: Any] {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/\(name)").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script] + arguments, timeout: timeout)
        guard result.status == 0, let line = result.standardOutput.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("\(name) \(arguments.first ?? ""): status \(result.status) \(result.standardError.suffix(2000))")
        }
        return json
    }

    /// Where screenshots are kept: `.build/artifacts/studio` in the package.
    static var artifacts: URL {
        Paths.packageRoot.appendingPathComponent(".build/artifacts/studio")
    }
}

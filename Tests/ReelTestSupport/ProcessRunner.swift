public import Foundation

/// The outcome of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
    /// True when the program was killed by the time limit.
    public var timedOut: Bool
    /// True when it died of a signal (a crash) rather than exiting.
    public var crashed: Bool
}

/// Runs programs for tests, with a time limit so that a hang fails instead of blocking.
public enum ProcessRunner {
    /// What `make sanitize` sets for every process of the run: where the sanitizers write
    /// their reports, what LeakSanitizer suppresses, and SDL's renderer (scripts/sanitize.sh
    /// says why). A test that gives a program an environment of its own keeps these, so a
    /// child's report still reaches the run's log instead of failing the child.
    static let sanitizerSettings = ["REEL_SANITIZER", "ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE",
                                    "SDL_RENDER_DRIVER", "SDL_FRAMEBUFFER_ACCELERATION"]

    static func withSanitizerSettings(_ environment: [String: String]) -> [String: String] {
        let own = ProcessInfo.processInfo.environment
        var environment = environment
        for key in sanitizerSettings where environment[key] == nil { environment[key] = own[key] }
        return environment
    }

    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120,
                           environment: [String: String]? = nil) throws -> ProcessResult {
        Paths.ignoreBrokenPipes()
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = withSanitizerSettings(environment) }
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("reel-out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("reel-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                process.terminate()
                usleep(200_000)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return ProcessResult(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
            timedOut: timedOut,
            crashed: process.terminationReason == .uncaughtSignal)
    }

    /// Runs `reel` with `arguments`. With `temporaryDirectory`, its TMPDIR is that folder
    /// (created if missing), so a test can look for the temporary files `reel` left without
    /// seeing those of the other tests running at the same time in the shared one.
    public static func reel(_ arguments: [String], timeout: TimeInterval = 120,
                            temporaryDirectory: URL? = nil) throws -> ProcessResult {
        guard let temporaryDirectory else { return try run(Paths.reelBinary.path, arguments, timeout: timeout) }
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporaryDirectory.path
        return try run(Paths.reelBinary.path, arguments, timeout: timeout, environment: environment)
    }

    /// Runs `jobs` (executable and arguments), at most `width` at a time, each with its own
    /// time limit; the results come back in the order of `jobs`.
    public static func runConcurrently(_ jobs: [(String, [String])], width: Int = 3,
                                       timeout: TimeInterval = 120) -> [Result<ProcessResult, any Error>] {
        final class Slots: @unchecked Sendable {
            var results: [Result<ProcessResult, any Error>?]
            let lock = NSLock()
            init(_ count: Int) { results = Array(repeating: nil, count: count) }
        }
        let slots = Slots(jobs.count)
        let gate = DispatchSemaphore(value: max(1, width))
        let group = DispatchGroup()
        for (index, job) in jobs.enumerated() {
            gate.wait()
            group.enter()
            // A thread of its own per job: the waiting blocks, and the shared pools are small.
            Thread.detachNewThread {
                let result = Result { try run(job.0, job.1, timeout: timeout) }
                slots.lock.withLock { slots.results[index] = result }
                gate.signal()
                group.leave()
            }
        }
        group.wait()
        return slots.results.map { $0 ?? .failure(TestFailure("job did not run")) }
    }

    /// Runs the ffmpeg CLI quietly, failing the caller when it fails.
    public static func ffmpeg(_ arguments: [String]) throws {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
        guard result.status == 0 else { throw TestFailure("ffmpeg \(arguments.joined(separator: " ")): \(result.standardError)") }
    }
}

/// A failure in test set-up, with what went wrong.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

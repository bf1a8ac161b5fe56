public import Foundation

/// Where things are for tests: the package root, the seed clips, the built `reel`.
public enum Paths {
    /// The package root, found from this file's path so tests work from any directory.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/media/seed-clips` beside the package.
    public static let seedClips: URL = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/media/seed-clips")

    /// Whether `REEL_TEST_NO_SHARED` is set: the tests behave as in a fresh clone, where
    /// `../shared` is absent, so that its fallbacks (generated media, skips) can be checked
    /// on a machine that has it.
    public static var sharedHidden: Bool { ProcessInfo.processInfo.environment["REEL_TEST_NO_SHARED"] != nil }

    /// Whether the seed clips are here. CI has them; a fresh clone does not.
    public static var seedClipsAvailable: Bool {
        !sharedHidden && FileManager.default.fileExists(atPath: seedClip("01_nebula.mp4").path)
    }

    /// The reason printed when a test that needs the seed clips is skipped.
    public static let seedClipsMissing = "needs ../shared/media/seed-clips beside the package (absent in a fresh clone)"

    public static func seedClip(_ name: String) -> URL { seedClips.appendingPathComponent(name) }

    /// The five seed clips' file names.
    public static let seedClipNames = ["01_nebula.mp4", "02_blackhole.mp4", "03_nebula.mp4", "04_quasar.mp4",
                                       "05_blackhole.mp4"]

    /// A `reel` named by `REEL_TEST_BINARY` (an absolute path): the CLI tests run against
    /// it instead of the one built here, e.g. an older build, to show that a test fails there.
    public static var overriddenReelBinary: URL? {
        ProcessInfo.processInfo.environment["REEL_TEST_BINARY"].map { URL(fileURLWithPath: $0) }
    }

    /// The `reel` binary `swift build` made beside the test bundle (or `REEL_TEST_BINARY`).
    public static var reelBinary: URL {
        if let overriddenReelBinary { return overriddenReelBinary }
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("reel") }
            + [packageRoot.appendingPathComponent(".build/debug/reel")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }

    /// The optimised `reel` that `make test` builds for the real-time tests (a debug build's
    /// pixel loops are too slow to keep up with a camera), if it is there.
    public static var releaseReelBinary: URL? {
        if let overriddenReelBinary { return overriddenReelBinary }
        let url = packageRoot.appendingPathComponent(".build/release/reel")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// The reason printed when a real-time test is skipped.
    public static let releaseBinaryMissing = "needs .build/release/reel (make test builds it)"

    /// Catches SIGPIPE in the test process, once, with a handler that does nothing: a write to
    /// a child or a socket that has gone away fails that test with EPIPE instead of killing
    /// every test in the process (a run here lost them all to signal 13 at load 34). Not
    /// SIG_IGN, which the programs the tests start would inherit: a shell's `printf` into a
    /// pipe `reel` has closed would then print "Broken pipe" instead of ending quietly.
    public static func ignoreBrokenPipes() { _ = brokenPipesCaught }
    private static let brokenPipesCaught: Void = { _ = signal(SIGPIPE, { _ in }) }()

    /// A fresh empty directory under the system temporary directory.
    public static func temporaryDirectory(_ label: String = "reel-test") throws -> URL {
        ignoreBrokenPipes()
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

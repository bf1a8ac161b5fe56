import Foundation

/// Which sanitizer the test run is built with, as `make sanitize` says in REEL_SANITIZER
/// (`thread` or `address`); nil for a plain run.
public enum Sanitizer {
    public static let active: String? = ProcessInfo.processInfo.environment["REEL_SANITIZER"]

    /// True under the thread sanitizer, which makes code 5 to 15 times slower: too slow for a
    /// test that needs real-time capture to keep every frame.
    public static var slowsRealTime: Bool { active == "thread" }
}

import Foundation

/// Which sanitizer the test run is built with, as `make sanitize` says in REEL_SANITIZER
/// (`thread` or `address`); nil for a plain run.
public enum Sanitizer {
    public static let active: String? = ProcessInfo.processInfo.environment["REEL_SANITIZER"]

    /// True under either sanitizer: the thread sanitizer makes code 5 to 15 times slower, the
    /// address sanitizer 2 to 3 times, which is too slow for a test that needs real-time
    /// capture to keep every frame while another test process shares the two cores.
    public static var slowsRealTime: Bool { active != nil }
}

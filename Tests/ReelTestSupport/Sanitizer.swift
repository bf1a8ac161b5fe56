import Foundation
public import Testing

/// Which sanitizer the test run is built with, as `make sanitize` says in REEL_SANITIZER
/// (`thread` or `address`); nil for a plain run.
public enum Sanitizer {
    public static let active: String? = ProcessInfo.processInfo.environment["REEL_SANITIZER"]

    /// True under either sanitizer: the thread sanitizer makes code 5 to 15 times slower, the
    /// address sanitizer 2 to 3 times, which is too slow for a test that needs real-time
    /// capture to keep every frame while another test process shares the two cores.
    public static var slowsRealTime: Bool { active != nil }
}

/// Runs expectations about real time (rates, latencies, deadlines, frames a real-time
/// capture must keep). In a plain run they are checked as usual; under a sanitizer, which
/// slows every instruction, a miss is recorded as a known issue, so that the path still runs
/// under the sanitizer's eye without its timing failing the run.
public func expectInRealTime(_ comment: Comment = "real time under a sanitizer",
                             sourceLocation: SourceLocation = #_sourceLocation, _ body: () -> Void) {
    withKnownIssue(comment, isIntermittent: true, sourceLocation: sourceLocation) {
        body()
    } when: {
        Sanitizer.slowsRealTime
    }
}

import ReelCore

/// Lines for the studio's error report from parts made before the server can take them:
/// kept from when ``connect(_:)`` is called (lines sent before are dropped).
final class ReportRelay: Sendable {
    private let target = PosixMutex<(@Sendable (String) -> Void)?>(nil)

    /// Sends every line from now on to `report`.
    func connect(_ report: @escaping @Sendable (String) -> Void) {
        target.withLock { $0 = report }
    }

    /// Passes `line` on, if anything is connected.
    func send(_ line: String) {
        target.withLock { $0 }?(line)
    }
}

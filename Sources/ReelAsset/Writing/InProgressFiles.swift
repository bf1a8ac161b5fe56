package import Foundation
import ReelCore

/// The temporary files writers are filling right now, so that a program stopped by
/// Ctrl-C or SIGTERM can remove them on the way out. Fragmented recordings are not
/// listed: they are kept on purpose.
public enum InProgressFiles {
    private static let urls = PosixMutex<Set<URL>>([])

    package static func add(_ url: URL) { urls.withLock { _ = $0.insert(url) } }
    package static func remove(_ url: URL) { urls.withLock { _ = $0.remove(url) } }

    /// Deletes every listed file. Call it from a signal handler's queue before exiting.
    public static func removeAll() {
        let doomed = urls.withLock { urls -> Set<URL> in
            defer { urls.removeAll() }
            return urls
        }
        for url in doomed { try? FileManager.default.removeItem(at: url) }
    }
}

package import Foundation

/// A file written under a hidden temporary name beside its destination (`.NAME.reel-XXXXXXXX.EXT`)
/// and renamed into place only when whole, so that a failed or stopped write never leaves a
/// half file under the user's name and never replaces what was there. The name, and the
/// index-first copy ``MovieIndex`` may write beside it, are listed in ``InProgressFiles`` until
/// ``release()``, so that a program stopped by a signal removes them on the way out.
package struct TemporaryOutput: Sendable {
    /// Where the file is written.
    package let url: URL
    /// The index-first copy that may be written beside it.
    package let indexCopy: URL

    /// Claims a fresh temporary name beside `destination` and lists it.
    /// - Parameter destination: the name the file is to have when whole.
    package init(beside destination: URL) {
        let name = ".\(destination.deletingPathExtension().lastPathComponent).reel-\(UUID().uuidString.prefix(8)).\(destination.pathExtension)"
        url = destination.deletingLastPathComponent().appendingPathComponent(name)
        indexCopy = URL(fileURLWithPath: url.path + ".index")
        InProgressFiles.add(url)
        InProgressFiles.add(indexCopy)
    }

    /// Takes the names off the list (once the file is in place, or discarded).
    package func release() {
        InProgressFiles.remove(url)
        InProgressFiles.remove(indexCopy)
    }

    /// Deletes what was written so far, after a failure.
    package func discard() {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(at: indexCopy)
    }
}

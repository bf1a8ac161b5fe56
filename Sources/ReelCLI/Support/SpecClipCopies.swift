import Foundation
import ReelAsset

/// The temporary copies that take the place of a spec's clips (``SpecReversal``,
/// ``SpecStabilization``): each registered in ``InProgressFiles`` when it is named, so an
/// interrupted run leaves none behind, and all removed together.
struct SpecClipCopies {
    /// The copies named so far, in order.
    private(set) var urls: [URL] = []

    /// Names a new temporary `.mov` for a clip and registers it as in progress.
    /// - Parameters:
    ///   - kind: What the copy is (`reverse`, `stabilize`), part of its name.
    ///   - index: The clip's index in the spec, part of its name.
    /// - Returns: The copy's URL; nothing is written there yet.
    mutating func make(_ kind: String, clip index: Int) -> URL {
        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("reel-\(kind)-\(UUID().uuidString.prefix(8))-\(index).mov")
        InProgressFiles.add(copy)
        urls.append(copy)
        return copy
    }

    /// Removes every copy and its in-progress registration.
    func removeAll() {
        for copy in urls {
            try? FileManager.default.removeItem(at: copy)
            InProgressFiles.remove(copy)
        }
    }
}

import Foundation
import ReelCore

/// What ``Asset`` has read from files in this process, keyed by path and checked against
/// the file's identity and change times, so that the several looks a composition, a merge
/// or an export takes at one source read its header (and probe its streams) once.
/// A file that was written to, truncated or replaced since is read afresh.
final class AssetCache: Sendable {
    static let shared = AssetCache(capacity: 64)

    struct Description: Sendable {
        let url: URL
        let duration: MediaTime
        let tracks: [AssetTrack]
        let metadata: AssetMetadata
        let formatName: String
        let fileSize: Int64
        let bitRate: Int64
    }

    private struct Entry: Sendable {
        let version: SourceFile.Version
        let description: Description
        var lastUse: UInt64
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let state = PosixMutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The description of `path` read earlier, if the file is still the one it was read from.
    func description(of path: String, version: SourceFile.Version) -> Description? {
        state.withLock { state in
            guard var entry = state.entries[path] else { return nil }
            guard entry.version == version else {
                state.entries[path] = nil
                return nil
            }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[path] = entry
            return entry.description
        }
    }

    func remember(_ description: Description, of path: String, version: SourceFile.Version) {
        state.withLock { state in
            state.clock += 1
            state.entries[path] = Entry(version: version, description: description, lastUse: state.clock)
            if state.entries.count > capacity,
               let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries[oldest] = nil
            }
        }
    }
}

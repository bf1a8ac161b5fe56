import Foundation

/// The claims of a Slurm job's workers on its parts: `JOB/slurm/claims/PART` holds the number
/// of the worker that renders it; `JOB/slurm/claims/given-up` says a part failed for good and
/// nothing more should start.
struct ChunkClaims {
    let folder: URL
    let worker: Int

    init(folder: URL, worker: Int) {
        self.folder = folder.appendingPathComponent("slurm").appendingPathComponent("claims")
        self.worker = worker
        try? FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
    }

    /// Claims `part` for this worker: true when it was free, or already this worker's (a
    /// requeued worker taking back what it had started).
    ///
    /// The claim is written whole under a temporary name and linked into place (`link` fails
    /// when the name exists), so a claim is never seen half written.
    func claim(_ part: String) -> Bool {
        let path = folder.appendingPathComponent(part).path
        let temporary = folder.appendingPathComponent(".\(part).\(worker).\(UUID().uuidString.prefix(8))")
        guard (try? Data("\(worker)\n".utf8).write(to: temporary)) != nil else { return false }
        let linked = link(temporary.path, path) == 0
        let failure = errno
        try? FileManager.default.removeItem(at: temporary)
        if linked { return true }
        guard failure == EEXIST, let data = FileManager.default.contents(atPath: path),
            let owner = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return false }
        return owner == worker
    }

    var givenUp: Bool { FileManager.default.fileExists(atPath: folder.appendingPathComponent("given-up").path) }

    func giveUp() {
        _ = FileManager.default.createFile(
            atPath: folder.appendingPathComponent("given-up").path, contents: Data("\(worker)\n".utf8))
    }
}

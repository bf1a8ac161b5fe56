public import Foundation

/// A tiny tmpfs mounted for a test (as root), to fill up or to make read-only.
public final class SmallDisk {
    public let url: URL

    /// Whether this process can mount filesystems (it is root).
    public static var canMount: Bool { getuid() == 0 }

    /// Mounts a tmpfs of `kilobytes`; `readOnly` mounts it read-only.
    public init(kilobytes: Int, readOnly: Bool = false) throws {
        url = try Paths.temporaryDirectory("reel-disk")
        let options = "size=\(kilobytes)k" + (readOnly ? ",ro" : "")
        let result = try ProcessRunner.run("mount", ["-t", "tmpfs", "-o", options, "tmpfs", url.path], timeout: 20)
        guard result.status == 0 else { throw TestFailure("mount tmpfs: \(result.standardError)") }
    }

    deinit {
        _ = try? ProcessRunner.run("umount", ["-l", url.path], timeout: 20)
        try? FileManager.default.removeItem(at: url)
    }
}

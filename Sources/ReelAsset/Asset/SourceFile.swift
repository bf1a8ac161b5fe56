import Foundation
import ReelAV
import ReelCore

/// Checks that a path names a readable, non-empty regular file before FFmpeg sees
/// it, so that the common mistakes get plain words instead of a demuxer's guess.
enum SourceFile {
    /// - Returns: the file's identity and version (device, inode, size, change times), which
    ///   tell a file already read from one changed or replaced since.
    /// - Throws: ``ReelError`` `.fileNotFound`, `.isDirectory`, `.emptyFile`,
    ///   `.permissionDenied`, or `.invalidArgument` for a FIFO, device or socket, about `path`.
    /// - Parameter frameRate: for an image sequence, the rate it plays at (part of its version:
    ///   the same frames at another rate are another asset); 25 when nil.
    @discardableResult
    static func check(_ path: String, frameRate: Double? = nil) throws(ReelError) -> Version {
        // A numbered PNG series: its folder is listed, every frame must be there.
        if let sequence = try ImageSequence(pattern: path) {
            let frames = try sequence.scan()
            return Version(frames, rate: ImageSequence.rational(frameRate))
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw ReelError(.fileNotFound, "no such file", subject: path)
            case EACCES: throw ReelError(.permissionDenied, "permission denied", subject: path)
            default: throw ReelError(.io, String(cString: strerror(code)), subject: path)
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw ReelError(.isDirectory, "is a directory, not a media file", subject: path)
        case S_IFREG:
            if status.st_size == 0 { throw ReelError(.emptyFile, "is empty (0 bytes)", subject: path) }
        case S_IFIFO:
            // Opening a pipe with no writer blocks forever; reading one is never what a media
            // file means here (a camera is `--device`, which does not come this way).
            throw ReelError(.invalidArgument, "is a named pipe (FIFO), not a regular file", subject: path)
        case S_IFCHR, S_IFBLK:
            throw ReelError(.invalidArgument, "is a device, not a regular file (cameras are given with --device)", subject: path)
        case S_IFSOCK:
            throw ReelError(.invalidArgument, "is a socket, not a regular file", subject: path)
        default:
            throw ReelError(.invalidArgument, "is not a regular file", subject: path)
        }
        guard access(path, R_OK) == 0 else {
            throw ReelError(.permissionDenied, "permission denied: this user cannot read the file", subject: path)
        }
        return Version(status)
    }

    /// What changes when a file is written to, truncated, or replaced by another.
    struct Version: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
        let changed: Int64
        /// For an image sequence: its numbers and the rate it plays at (a sequence read at
        /// another rate is another asset).
        var frames: ClosedRange<Int>?
        var rate: String?

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
        }

        init(_ sequence: ImageSequence.Frames, rate: Rational) {
            device = sequence.device
            inode = sequence.inode
            size = sequence.bytes
            modified = sequence.modified
            changed = sequence.changed
            frames = sequence.first...sequence.last
            self.rate = rate.description
        }
    }
}

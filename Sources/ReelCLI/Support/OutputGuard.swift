import Foundation
import ReelComposition
import ReelCore

/// Refuses an output that names one of the command's inputs: the same path, a symbolic
/// link to it, or a hard link (the same device and inode). A render never replaces what
/// it was made from: clips, the spec itself, a `.cube` file, an image or the music.
enum OutputGuard {
    /// - Parameters:
    ///   - output: the file the command would write.
    ///   - inputs: what the command reads, as a label for the message (`clips[2].file`,
    ///     `the spec`, `--filter ColorCube file`) and a path.
    /// - Throws: ``ReelError`` `.invalidArgument` naming the input the output would replace.
    static func refuse(output: URL, replacing inputs: [(label: String, path: String)]) throws(ReelError) {
        if let label = clash(output: output, with: inputs), let input = inputs.first(where: { $0.label == label }) {
            throw ReelError(.invalidArgument, "the output would overwrite the input (\(label)); choose another -o", subject: input.path)
        }
    }

    /// Refuses a picture sequence whose names would replace one of `inputs` (`frame-%04d.png`
    /// against an image overlay `frame-0003.png` in the same folder).
    /// - Throws: ``ReelError`` `.invalidArgument` naming the input the sequence would replace.
    static func refuse(sequence pattern: SequencePattern, replacing inputs: [(label: String, path: String)]) throws(ReelError) {
        let folder = pattern.folder.standardizedFileURL.resolvingSymlinksInPath().path
        for (label, path) in inputs {
            let input = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
            if input.deletingLastPathComponent().path == folder, pattern.matches(input.lastPathComponent) {
                throw ReelError(.invalidArgument, "the pictures would overwrite the input (\(label)); choose another -o", subject: path)
            }
        }
    }

    /// The label of the first of `inputs` that `output` names, or nil when it names none.
    static func clash(output: URL, with inputs: [(label: String, path: String)]) -> String? {
        let target = output.standardizedFileURL.resolvingSymlinksInPath().path
        let targetIdentity = identity(output.path)
        for (label, path) in inputs {
            let input = URL(fileURLWithPath: path)
            if input.standardizedFileURL.resolvingSymlinksInPath().path == target
                || (targetIdentity != nil && identity(path) == targetIdentity) {
                return label
            }
        }
        return nil
    }

    private struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    private static func identity(_ path: String) -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

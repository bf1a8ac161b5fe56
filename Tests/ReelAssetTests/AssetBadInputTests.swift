import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// Every kind of file that is not a readable clip gets an error naming the file and the cause.
@Suite struct AssetBadInputTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-bad")
    }

    private func expectError(_ path: String, code: ReelError.Code, containing text: String) {
        #expect {
            try Asset(path: path)
        } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == code && error.subject == path && error.description.contains(text)
                && !error.description.contains("\n")
        }
    }

    @Test func missingFile() {
        expectError(directory.appendingPathComponent("absent.mp4").path, code: .fileNotFound, containing: "no such file")
    }

    @Test func aDirectory() {
        expectError(directory.path, code: .isDirectory, containing: "is a directory")
    }

    @Test func zeroByteFile() throws {
        let path = directory.appendingPathComponent("empty.mp4").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        expectError(path, code: .emptyFile, containing: "empty")
    }

    @Test func textNamedMP4() throws {
        let path = directory.appendingPathComponent("notes.mp4").path
        try "These are notes, not a movie.\n".write(toFile: path, atomically: true, encoding: .utf8)
        expectError(path, code: .invalidData, containing: "not a media file")
    }

    @Test func mp4CutInHalfWithTheIndexAtTheEnd() throws {
        let whole = try TestClips.rotated(0, in: directory)
        let half = directory.appendingPathComponent("half-moov-last.mp4")
        try ProcessRunner.ffmpeg(["-i", whole.path, "-c", "copy", directory.appendingPathComponent("moov-last.mp4").path])
        let data = try Data(contentsOf: directory.appendingPathComponent("moov-last.mp4"))
        try data.prefix(data.count / 2).write(to: half)
        expectError(half.path, code: .invalidData, containing: "moov atom not found")
    }

    @Test func mp4CutInHalfWithTheIndexFirst() throws {
        let whole = try TestClips.rotated(0, in: directory)
        let fast = directory.appendingPathComponent("fast.mp4")
        try ProcessRunner.ffmpeg(["-i", whole.path, "-c", "copy", "-movflags", "+faststart", fast.path])
        let data = try Data(contentsOf: fast)
        let half = directory.appendingPathComponent("half-moov-first.mp4")
        try data.prefix(data.count / 2).write(to: half)
        expectError(half.path, code: .invalidData, containing: "truncated")
    }

    @Test(.enabled(if: getuid() != 0, "root reads every file; the CLI suite checks this as an unprivileged user"))
    func unreadableFile() throws {
        let path = try TestClips.rotated(0, in: directory).path
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path)
        expectError(path, code: .permissionDenied, containing: "permission denied")
    }
}

import Foundation
package import ReelCore

/// A numbered series of PNG pictures named by a pattern (`frames/f-%04d.png`), read as one
/// video track by FFmpeg's image2 demuxer at the frame rate its opener gives (each asset of
/// the pattern its own: the same frames can be one asset at 24 and another at 30).
///
/// A path is a pattern when it names no file and its last component holds a `%`. The
/// counter is `%d` (numbers without padding) or `%0Nd` (padded to N digits, N from 1 to 9);
/// any other `%` is refused, as are other extensions than `.png`, a folder with no matching
/// frame, a gap in the numbers and more than ``largestCount`` frames. FFmpeg itself would
/// stop quietly at the first gap and play a shorter clip.
package struct ImageSequence: Sendable, Hashable {
    /// The most frames a sequence may have (about 55 minutes at 30 frames a second).
    package static let largestCount = 100_000
    /// The rate of a pattern nobody gave one for: image2's own default.
    package static let defaultFrameRate = Rational(25, 1)

    /// The pattern as given.
    package let path: String
    /// The folder holding the frames.
    package let folder: String
    /// The file name before and after the counter.
    package let prefix: String
    package let suffix: String
    /// The counter's padding, 0 for `%d`.
    package let digits: Int

    /// What ``scan()`` found on disk.
    package struct Frames: Sendable, Hashable {
        /// The first and last number, and how many frames (last - first + 1).
        package let first: Int
        package let last: Int
        package var count: Int { last - first + 1 }
        /// The frames' total size and their latest change times (nanoseconds), for a cache to
        /// tell a sequence rewritten since it was read.
        package let bytes: Int64
        package let modified: Int64
        package let changed: Int64
        /// The folder's device and inode.
        package let device: UInt64
        package let inode: UInt64
    }

    /// The sequence `path` names, or nil when it is an ordinary path (an existing file, or a
    /// last component without `%`).
    /// - Parameter path: A file path or a pattern.
    /// - Throws: ``ReelError`` `.invalidArgument` about `path` for a `%` that is not a counter,
    ///   two counters, or frames that are not PNG.
    package init?(pattern path: String) throws(ReelError) {
        let name = (path as NSString).lastPathComponent
        guard name.contains("%"), !FileManager.default.fileExists(atPath: path) else { return nil }
        let characters = Array(name)
        guard let percent = characters.firstIndex(of: "%") else { return nil }
        var cursor = percent + 1
        var width = ""
        while cursor < characters.count, characters[cursor].isASCII, characters[cursor].isNumber {
            width.append(characters[cursor])
            cursor += 1
        }
        let counterForm = "a counter is %d or %0Nd with N from 1 to 9 (f-%04d.png)"
        // A missing movie with a % in its name (50%off.mp4) is a missing file, not a bad pattern.
        let pictureTypes: Set<String> = ["png", "jpg", "jpeg", "webp", "bmp", "tif", "tiff", "gif"]
        let picture = pictureTypes.contains((name as NSString).pathExtension.lowercased())
        guard cursor < characters.count, characters[cursor] == "d" else {
            guard picture else { return nil }
            throw ReelError(.invalidArgument, "the % is not a frame counter: \(counterForm)", subject: path)
        }
        var digits = 0
        if !width.isEmpty {
            guard width.count == 2, width.first == "0", let n = Int(width.dropFirst()), (1...9).contains(n) else {
                guard picture else { return nil }
                throw ReelError(.invalidArgument, "'%\(ReelError.quoted(width))d' is not a frame counter: \(counterForm)",
                                subject: path)
            }
            digits = n
        }
        let prefix = String(characters[..<percent]), suffix = String(characters[(cursor + 1)...])
        guard !suffix.contains("%") else {
            throw ReelError(.invalidArgument, "holds a second %: a sequence has one counter (\(counterForm))", subject: path)
        }
        guard suffix.lowercased().hasSuffix(".png") else {
            throw ReelError(.invalidArgument, "an image sequence is numbered PNG files (f-%04d.png), not '\(ReelError.quoted(suffix))'",
                            subject: path)
        }
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        self.folder = folder.isEmpty ? "." : folder
        self.prefix = prefix
        self.suffix = suffix
        self.digits = digits
    }

    /// The pattern as image2 takes it: a `%` in the folder's name doubled, so that only the
    /// counter counts.
    package var demuxerPath: String {
        (folder.replacingOccurrences(of: "%", with: "%%") as NSString).appendingPathComponent(prefix + counter + suffix)
    }

    /// The counter as written: `%d` or `%0Nd`.
    private var counter: String { digits == 0 ? "%d" : "%0\(digits)d" }

    /// The file name of frame `number`.
    /// - Parameter number: The frame's number.
    /// - Returns: The name, padded as the pattern says.
    package func name(of number: Int) -> String {
        let counter = String(number)
        let padding = max(0, digits - counter.count)
        return prefix + String(repeating: "0", count: padding) + counter + suffix
    }

    /// Lists the folder: the frames' numbers must run without a gap.
    /// - Returns: The first and last numbers, and the frames' size and change times.
    /// - Throws: ``ReelError`` about the pattern: `.fileNotFound` for a missing folder or no
    ///   matching frame, `.invalidData` for a gap, an empty frame or too many frames.
    package func scan() throws(ReelError) -> Frames {
        var folderStatus = stat()
        guard stat(folder, &folderStatus) == 0, folderStatus.st_mode & S_IFMT == S_IFDIR else {
            throw ReelError(.fileNotFound, "no such folder for the image sequence: \(folder)", subject: path)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ReelError(.permissionDenied, "cannot list the folder \(folder)", subject: path)
        }
        var numbers: [Int] = []
        for name in names where name.count > prefix.count + suffix.count && name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
            guard middle.count <= 9, middle.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(middle) else { continue }
            // %04d names frame 7 f-0007; %d names it f-7. Others are not this sequence's.
            guard self.name(of: number) == name else { continue }
            numbers.append(number)
        }
        guard let first = numbers.min(), let last = numbers.max() else {
            throw ReelError(.fileNotFound, "no frames match \((path as NSString).lastPathComponent) in \(folder)", subject: path)
        }
        guard numbers.count <= Self.largestCount else {
            throw ReelError(.invalidData, "holds \(numbers.count) frames; an image sequence has at most \(Self.largestCount)",
                            subject: path)
        }
        if numbers.count != last - first + 1 {
            let present = Set(numbers)
            let missing = (first...last).first { !present.contains($0) } ?? first
            throw ReelError(.invalidData,
                            "frame \(name(of: missing)) is missing: the frames from \(name(of: first)) to \(name(of: last)) must all be there",
                            subject: path)
        }
        var bytes: Int64 = 0, modified: Int64 = 0, changed: Int64 = 0
        for number in first...last {
            var status = stat()
            let file = (folder as NSString).appendingPathComponent(name(of: number))
            guard stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else {
                throw ReelError(.invalidData, "frame \(name(of: number)) is not a readable, non-empty file", subject: path)
            }
            bytes += Int64(status.st_size)
            modified = max(modified, Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
            changed = max(changed, Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec))
        }
        return Frames(first: first, last: last, bytes: bytes, modified: modified, changed: changed,
                      device: UInt64(folderStatus.st_dev), inode: UInt64(folderStatus.st_ino))
    }

    /// A rate as image2 takes it: whole numbers as they are, NTSC rates over 1001 (29.97 is
    /// 30000/1001), others in thousandths; ``defaultFrameRate`` for nil or a rate outside 1–240.
    /// - Parameter rate: Frames a second.
    /// - Returns: The rate as a fraction.
    package static func rational(_ rate: Double?) -> Rational {
        guard let rate, rate.isFinite, rate >= 1, rate <= 240 else { return defaultFrameRate }
        let whole = rate.rounded()
        if abs(rate - whole) < 1e-6 { return Rational(Int32(whole), 1) }
        let ntsc = (rate * 1.001).rounded()
        if abs(rate - ntsc / 1.001) < 0.002 { return Rational(Int32(ntsc * 1000), 1001) }
        return Rational(Int32((rate * 1000).rounded()), 1000)
    }
}

import Dispatch
package import Foundation
package import ReelAsset
import ReelComposition
package import ReelCore

/// `reel record --replay-buffer N`: the last N seconds of the recording kept on disk as
/// fMP4 segments (1 s each, a keyframe at each start) in a hidden folder beside the output,
/// the oldest deleted as each new one lands, so the folder holds about N + 2 seconds
/// whatever the length of the recording. ``save()`` (a key, SIGUSR1) waits for the segment
/// holding the newest frame to land, then joins the initialization segment and the newest
/// segments reaching back N seconds before that frame (segment starts are keyframes, so
/// the replay starts up to a segment earlier and ends up to a segment later: N to N + 2 s)
/// into one moov-first MP4 (`replay-YYYY-MM-DD-HH.MM.SS.mp4`),
/// written under a temporary name and renamed when whole, on a queue of its own, so the
/// recording never waits for it.
///
/// The segments come from the segmented ``AssetWriter`` a ``LiveStreamer`` feeds from the
/// capture's data outputs, the same path as `reel record --hls`.
package final class ReplayBuffer: AssetWriterDelegate, @unchecked Sendable {
    /// The length of each segment, and the keyframe interval.
    package static let segmentInterval = MediaTime(value: 1, timescale: 1)

    private struct Segment {
        let url: URL
        let start: MediaTime
        let duration: MediaTime
        let bytes: Int
    }

    private enum State {
        case buffering(initial: URL?, segments: [Segment], asked: [MediaTime], number: Int)
        case finished
    }

    /// The hidden folder holding the segments.
    package let folder: URL
    /// Where saved replays go.
    package let destination: URL
    /// The seconds kept.
    package let length: MediaTime
    private let report: @Sendable (String) -> Void
    private let saved: (@Sendable (URL) -> Void)?
    private let state = PosixMutex(State.buffering(initial: nil, segments: [], asked: [], number: 0))
    private let saving = DispatchQueue(label: "reel.record.replay-save")
    private let counts = PosixMutex((saved: 0, failed: 0, mostFiles: 0, mostBytes: 0))

    /// - Parameters:
    ///   - seconds: The length kept (and saved).
    ///   - output: The recording's file; the buffer folder is made beside it, hidden.
    ///   - destination: The folder replays are saved to.
    ///   - report: Told of each save and failure (one line each).
    ///   - saved: Told of each replay written, once it is in place.
    /// - Throws: ``ReelError`` when the buffer folder cannot be made.
    package init(
        seconds: Double, beside output: URL, destination: URL, report: @escaping @Sendable (String) -> Void,
        saved: (@Sendable (URL) -> Void)? = nil
    ) throws(ReelError) {
        length = MediaTime(seconds: seconds, preferredTimescale: 1000)
        folder = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.deletingPathExtension().lastPathComponent).replay-\(UUID().uuidString.prefix(8))")
        self.destination = destination
        self.report = report
        self.saved = saved
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            throw ReelError(.io, "cannot make the replay buffer's folder: \(error.localizedDescription)", subject: folder.path)
        }
        InProgressFiles.add(folder)
    }

    /// Replays saved and failed, and the most segment files and bytes the folder held at once.
    package var statistics: (saved: Int, failed: Int, mostFiles: Int, mostBytes: Int) { counts.withLock { $0 } }

    /// The newest frame given to the writer, in its timeline (zero at its first frame).
    private let latest = PosixMutex(MediaTime.zero)

    /// Told of each frame the writer takes, so that a save knows where the recording is.
    package func framePassed(at time: MediaTime) {
        latest.withLock { $0 = max($0, time) }
    }

    /// Saves the last N seconds up to now: once a segment ending at or after the newest
    /// frame lands (within about a second and the encoder's delay).
    package func save() {
        let now = latest.withLock { $0 }
        state.withLock { state in
            if case .buffering(let initial, let segments, let asked, let number) = state {
                state = .buffering(initial: initial, segments: segments, asked: asked + [now], number: number)
            }
        }
    }

    package func assetWriter(
        _ writer: AssetWriter, didOutputSegmentData segmentData: Data, segmentType: AssetSegmentType,
        segmentReport: AssetSegmentReport?
    ) {
        let number = state.withLock { state -> Int? in
            guard case .buffering(let initial, let segments, let waiting, let number) = state else { return nil }
            if segmentType == .initialization { return 0 }
            state = .buffering(initial: initial, segments: segments, asked: waiting, number: number + 1)
            return number + 1
        }
        guard let number else { return }
 let name = number == 0 ? "init.mp4" : String(format: "segment-%06d.m4s", number)
        let url = folder.appendingPathComponent(name)
        do {
            try segmentData.write(to: url)
        } catch {
            report("replay buffer: cannot write \(url.path): \(error.localizedDescription) (the recording goes on)")
            return
        }
        if number == 0 {
            state.withLock { state in
                if case .buffering(_, let segments, let waiting, let number) = state {
                    state = .buffering(initial: url, segments: segments, asked: waiting, number: number)
                }
            }
            return
        }
        let video = segmentReport?.trackReports.first { $0.mediaType == .video } ?? segmentReport?.trackReports.first
        let segment = Segment(url: url, start: video?.earliestPresentationTimeStamp ?? .zero,
                              duration: video?.duration ?? Self.segmentInterval, bytes: segmentData.count)
        // Keep the newest segments that cover N seconds and one interval more (a save waits for
        // the segment being written, so it needs N seconds before it plus that one).
        var doomed: [Segment] = []
        var toSave: (initial: URL, segments: [Segment], count: Int)?
        state.withLock { state in
            guard case .buffering(let initial, var segments, let waiting, let number) = state else {
                doomed = [segment]
                return
            }
            segments.append(segment)
            // Saves asked for before this segment's end are served by it; later ones wait.
            let end = segment.start + segment.duration
            let served = waiting.filter { $0 <= end }
            // From N seconds before the earliest of them to this segment's end.
            if let asked = served.min(), let initial {
                toSave = (initial, Self.newest(segments, covering: length + (end - asked)), served.count)
            }
            let keep = length + Self.segmentInterval
            while segments.count > 1, Self.total(segments.dropFirst()) >= keep { doomed.append(segments.removeFirst()) }
            state = .buffering(initial: initial, segments: segments, asked: toSave == nil ? waiting : waiting.filter { $0 > end },
                               number: number)
        }
        // Hard links pin what a save needs before the buffer deletes it.
        var pinned: [URL] = []
        if let toSave {
            let job = folder.appendingPathComponent("save-\(number)")
            do {
                try FileManager.default.createDirectory(at: job, withIntermediateDirectories: false)
                for file in [toSave.initial] + toSave.segments.map(\.url) {
                    let link = job.appendingPathComponent(file.lastPathComponent)
                    try FileManager.default.linkItem(at: file, to: link)
                    pinned.append(link)
                }
            } catch {
                try? FileManager.default.removeItem(at: job)
                pinned = []
                counts.withLock { $0.failed += 1 }
                report("replay buffer: cannot keep the segments to save: \(error.localizedDescription)")
            }
            if !pinned.isEmpty {
                let files = pinned
                let range = MediaTimeRange(start: toSave.segments.first?.start ?? .zero, duration: Self.total(toSave.segments[...]))
                saving.async { [self] in write(files, job: job, range: range) }
            }
        }
        for old in doomed { try? FileManager.default.removeItem(at: old.url) }
        let (files, bytes) = state.withLock { state -> (Int, Int) in
            guard case .buffering(_, let segments, _, _) = state else { return (0, 0) }
            return (segments.count, segments.reduce(0) { $0 + $1.bytes })
        }
        counts.withLock { counts in
            counts.mostFiles = max(counts.mostFiles, files)
            counts.mostBytes = max(counts.mostBytes, bytes)
        }
    }

    /// Waits for the saves under way and removes the buffer's folder.
    package func finish() {
        state.withLock { $0 = .finished }
        saving.sync {}
        try? FileManager.default.removeItem(at: folder)
        InProgressFiles.remove(folder)
    }

    private func write(_ files: [URL], job: URL, range: MediaTimeRange) {
        defer { try? FileManager.default.removeItem(at: job) }
        let joined = job.appendingPathComponent("joined.mp4")
        let target = Self.freshName(in: destination, at: Date())
        do {
            guard FileManager.default.createFile(atPath: joined.path, contents: nil) else {
                throw ReelError(.io, "cannot write", subject: joined.path)
            }
            let handle = try FileHandle(forWritingTo: joined)
            for file in files { try handle.write(contentsOf: try Data(contentsOf: file)) }
            try handle.close()
            // One continuous fragmented recording, copied into a moov-first MP4 starting at zero;
            // the sound re-encoded to the pictures' exact length, so it stays in sync.
            // The pictures' range from the segments' reports (the joined file's own is wrong).
            let written = try SegmentMerge.write([joined], to: target, fileType: .mp4, ranges: [range])
            counts.withLock { $0.saved += 1 }
            report("saved the last \(String(format: "%.3f s", written.seconds)) to \(target.path)")
            saved?(target)
        } catch let error as ReelError {
            counts.withLock { $0.failed += 1 }
            report("replay buffer: cannot save \(target.path): \(error.message) (the recording goes on)")
        } catch {
            counts.withLock { $0.failed += 1 }
            report("replay buffer: cannot save \(target.path): \(error.localizedDescription) (the recording goes on)")
        }
    }

    /// `replay-YYYY-MM-DD-HH.MM.SS.mp4` (local time), with `-2`, `-3`… when taken.
    package static func freshName(in folder: URL, at date: Date) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd-HH.mm.ss"
        let stem = "replay-\(formatter.string(from: date))"
        var candidate = folder.appendingPathComponent("\(stem).mp4")
        var number = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = folder.appendingPathComponent("\(stem)-\(number).mp4")
            number += 1
        }
        return candidate
    }

    private static func total(_ segments: ArraySlice<Segment>) -> MediaTime {
        segments.reduce(MediaTime.zero) { $0 + $1.duration }
    }

    /// The fewest newest segments lasting at least `length` (all of them when shorter).
    private static func newest(_ segments: [Segment], covering length: MediaTime) -> [Segment] {
        var chosen: [Segment] = []
        var sum = MediaTime.zero
        for segment in segments.reversed() {
            chosen.insert(segment, at: 0)
            sum = sum + segment.duration
            if sum >= length { break }
        }
        return chosen
    }
}

import Dispatch
package import Foundation
package import ReelAsset
import ReelComposition
package import ReelCore

/// `reel record --replay-buffer N`: the last N seconds of the recording kept on disk as
/// fMP4 segments (1 s each by their pictures' times, a keyframe at each start) written by a
/// ``SegmentFolderWriter``: its own, in a hidden folder beside the output, deleting the
/// oldest as each new one lands, so the folder holds about N + 2 seconds whatever the length
/// of the recording; or, with `--hls DIR` as well, the live playlist's, whose segments serve
/// both. ``save()`` (a key, SIGUSR1) notes the end of the newest frame, waits for the segment
/// holding it to land, then copies exactly the N seconds before that moment, the pictures
/// without re-encoding (from the keyframe before the start, the pictures before it hidden by
/// the edit list) and the sound cut to the same times, into one moov-first MP4
/// (`replay-YYYY-MM-DD-HH.MM.SS.mp4`), written under a temporary name and renamed when whole,
/// on a queue of its own, so the recording never waits for it.
///
/// The segments come from the segmented ``AssetWriter`` a ``LiveStreamer`` feeds from the
/// capture's data outputs, the same path as `reel record --hls`. When that writer is
/// restarted at a new picture size (``restart()``), a save keeps only the pictures since: a
/// copy cannot join two sizes, and converting the older ones would encode N seconds again.
package final class ReplayBuffer: @unchecked Sendable {
    /// The length of each segment, and the keyframe interval.
    package static let segmentInterval = MediaTime(value: 1, timescale: 1)

    private enum State {
        /// Saves asked for, each at the end of the newest frame then (the writer's timeline;
        /// zero for one asked before the writer's first frame, or across a restart).
        case buffering(asked: [MediaTime])
        case finished
    }

    /// The hidden folder holding the save jobs (and the segments, unless shared with `--hls`).
    package let folder: URL
    /// Where the segments land.
    package let segments: SegmentFolderWriter
    /// Where saved replays go.
    package let destination: URL
    /// The seconds kept.
    package let length: MediaTime
    private let report: @Sendable (String) -> Void
    private let saved: (@Sendable (URL) -> Void)?
    private let state = PosixMutex(State.buffering(asked: []))
    private let saving = DispatchQueue(label: "reel.record.replay-save")
    private let counts = PosixMutex((saved: 0, failed: 0, jobs: 0))

    /// - Parameters:
    ///   - seconds: The length kept (and saved).
    ///   - output: The recording's file; the buffer folder is made beside it, hidden.
    ///   - destination: The folder replays are saved to.
    ///   - hls: The live playlist's writer, when the recording has one: its segments serve the
    ///     buffer too (one encoder), and it keeps them all.
    ///   - report: Told of each save and failure (one line each).
    ///   - saved: Told of each replay written, once it is in place.
    /// - Throws: ``ReelError`` when the buffer folder cannot be made.
    package init(
        seconds: Double, beside output: URL, destination: URL, sharing hls: SegmentFolderWriter? = nil,
        report: @escaping @Sendable (String) -> Void, saved: (@Sendable (URL) -> Void)? = nil
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
        if let hls {
            segments = hls
        } else {
            // N seconds and one segment more: a save waits for the segment holding its end, so it
            // needs the N seconds before that segment's end at most.
            do throws(ReelError) {
                segments = try SegmentFolderWriter(folder: folder, live: false, window: length + Self.segmentInterval)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                InProgressFiles.remove(folder)
                throw error
            }
        }
        segments.observe { [weak self] segment in self?.landed(segment) }
    }

    /// Replays saved and failed, and the most segment files and bytes the folder held at once.
    package var statistics: (saved: Int, failed: Int, mostFiles: Int, mostBytes: Int) {
        let (saved, failed) = counts.withLock { ($0.saved, $0.failed) }
        let most = segments.extremes
        return (saved, failed, most.files, most.bytes)
    }

    /// The end of the newest frame given to the writer, in its timeline (zero at its first frame).
    private let latest = PosixMutex(MediaTime.zero)

    /// Told of each frame the writer takes, so that a save knows where the recording is.
    /// - Parameters:
    ///   - time: When it shows, on the writer's timeline.
    ///   - duration: How long it lasts (the capture's frame duration).
    package func framePassed(at time: MediaTime, lasting duration: MediaTime) {
        let end = time + (duration.isNumeric && duration > .zero ? duration : MediaTime(value: 1, timescale: 30))
        latest.withLock { $0 = max($0, end) }
    }

    /// The writer starts again (a new picture size) with a new timeline: saves keep only what
    /// it writes from now on, and a save asked for meanwhile is served by its first segments.
    package func restart() {
        latest.withLock { $0 = .zero }
        state.withLock { state in
            guard case .buffering(let asked) = state else { return }
            // Asked on the old timeline: saved as soon as the new one has a segment.
            state = .buffering(asked: asked.isEmpty ? [] : [.zero])
        }
    }

    /// Saves the last N seconds up to now: once a segment ending at or after the newest
    /// frame lands (within about a second and the encoder's delay).
    package func save() {
        let now = latest.withLock { $0 }
        state.withLock { state in
            if case .buffering(let asked) = state, !asked.contains(now) { state = .buffering(asked: asked + [now]) }
        }
    }

    /// A segment is in the folder: serve the saves it completes.
    private func landed(_ segment: SegmentFolderWriter.Segment) {
        let end = segment.start + segment.duration
        let served = state.withLock { state -> [MediaTime] in
            guard case .buffering(let asked) = state else { return [] }
            state = .buffering(asked: asked.filter { $0 > end })
            return asked.filter { $0 <= end }
        }
        guard !served.isEmpty else { return }
        // Only the segments after the same initialization segment as this one: a copy cannot
        // join two picture sizes.
        let usable = segments.segments.filter { $0.initialization == segment.initialization }
        for asked in served { pin(asked == .zero ? end : asked, from: usable) }
    }

    /// Keeps (hard links) the segments reaching N seconds back from `end` and queues their copy.
    private func pin(_ end: MediaTime, from all: [SegmentFolderWriter.Segment]) {
        let wanted = end - length
        let chosen = all.filter { $0.start < end && $0.start + $0.duration > wanted }
        guard let first = chosen.first else { return }
        let range = MediaTimeRange(start: max(wanted, first.start), end: end)
        let number = counts.withLock { counts -> Int in
            counts.jobs += 1
            return counts.jobs
        }
        let job = folder.appendingPathComponent("save-\(number)")
        var pinned: [URL] = []
        do {
            try FileManager.default.createDirectory(at: job, withIntermediateDirectories: false)
            for name in [first.initialization] + chosen.map(\.name) {
                let file = segments.folder.appendingPathComponent(name)
                let link = job.appendingPathComponent(name)
                // The --hls folder may be on another file system: copied then.
                do { try FileManager.default.linkItem(at: file, to: link) } catch { try FileManager.default.copyItem(at: file, to: link) }
                pinned.append(link)
            }
        } catch {
            try? FileManager.default.removeItem(at: job)
            counts.withLock { $0.failed += 1 }
            report("replay buffer: cannot keep the segments to save: \(error.localizedDescription)")
            return
        }
        let files = pinned
        saving.async { [self] in write(files, job: job, range: range) }
    }

    /// Waits for the saves under way and removes the buffer's folder (not a shared `--hls` one).
    package func finish() {
        state.withLock { $0 = .finished }
        segments.observe(nil)
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
            // The pictures' range on the writer's timeline, which the joined file keeps.
            let written = try SegmentMerge.write([joined], to: target, fileType: .mp4, ranges: [range])
            counts.withLock { $0.saved += 1 }
            let short = written < length - MediaTime(value: 1, timescale: 30) ? " (all the buffer held at this picture size)" : ""
            report("saved the last \(String(format: "%.3f s", written.seconds)) to \(target.path)\(short)")
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
}

import Foundation
import ReelCapture
import ReelCore

/// The seed's short video: hold to record a segment, let go to pause, up to 15 s in
/// all; undo, reset, and save, which merges the segments (``SegmentedRecorder``) into
/// one file in the library. At the limit the recorder stops and the page is told, and
/// saves as if the button had been pressed.
final class ShortVideoDesk: @unchecked Sendable {
    static let limitSeconds = 15.0

    private let recorder: SegmentedRecorder
    private let library: MediaLibrary
    private let events: EventHub
    private let staging: URL
    /// One save, undo or reset at a time.
    private let work = NSLock()

    /// - Throws: ``ReelError`` when the segments folder cannot be made.
    init(camera: LiveCamera, library: MediaLibrary, events: EventHub) throws(ReelError) {
        self.library = library
        self.events = events
        let folder = library.videoFolder.appendingPathComponent(".segments")
        // Segments of a studio that did not stop cleanly are of no use now.
        try? FileManager.default.removeItem(at: folder)
        staging = folder.appendingPathComponent("merged.mp4")
        recorder = try SegmentedRecorder(session: camera.session, directory: folder, outputURL: staging,
                                         maximumDuration: MediaTime(seconds: Self.limitSeconds, preferredTimescale: 600))
        recorder.setEventHandler { [weak self] event in self?.handle(event) }
    }

    struct Progress: Encodable, Sendable {
        var recording: Bool
        var recordedSeconds: Double
        var segments: Int
        var segmentEnds: [Double]
        var progress: Double
    }

    var progress: Progress {
        let segments = recorder.segments
        var ends: [Double] = []
        var total = 0.0
        for segment in segments {
            total += segment.duration.seconds
            ends.append(total)
        }
        let recorded = recorder.recordedDuration.seconds
        return Progress(recording: recorder.isRecording, recordedSeconds: recorded, segments: segments.count, segmentEnds: ends,
                        progress: min(1, recorded / Self.limitSeconds))
    }

    /// The button goes down.
    /// - Throws: ``ReelError`` `.invalidState` while recording or at the limit.
    func start() throws(ReelError) {
        try recorder.startSegment()
    }

    /// The button comes up: the segment's file is finished before this returns.
    func pause() {
        recorder.pauseSegment()
    }

    /// Removes the last segment.
    /// - Throws: ``ReelError`` `.invalidState` when there is none.
    func undo() throws(ReelError) {
        work.lock()
        defer { work.unlock() }
        guard recorder.removeLastSegment() != nil else { throw ReelError(.invalidState, "there is no segment to undo") }
    }

    func reset() {
        work.lock()
        defer { work.unlock() }
        recorder.reset()
    }

    /// Merges the segments into a new library video and starts afresh.
    /// - Throws: ``ReelError`` `.invalidState` with nothing recorded, or the merge's failure.
    func save() throws(ReelError) -> MediaLibrary.Item {
        recorder.pauseSegment()
        // A segment that stopped at the limit is merged by the recorder itself; let that finish.
        recorder.waitUntilIdle()
        work.lock()
        defer { work.unlock() }
        try recorder.save()
        return try keep()
    }

    /// Moves the merged file into the library under a new name and clears the segments.
    private func keep() throws(ReelError) -> MediaLibrary.Item {
        let url = library.newFile(kind: .video, prefix: "Video", extension: "mp4")
        do {
            try FileManager.default.moveItem(at: staging, to: url)
        } catch {
            throw ReelError(.io, "cannot move the merged video into the library: \(error.localizedDescription)", subject: url.path)
        }
        recorder.reset()
        _ = try? library.thumbnail(for: url)
        guard let item = library.item(at: url) else {
            throw ReelError(.invalidData, "the merged video cannot be read back", subject: url.path)
        }
        return item
    }

    private func handle(_ event: SegmentedRecorder.Event) {
        switch event {
        case .limitReached:
            events.publish("limit", ["seconds": Self.limitSeconds])
        case .failed(let error):
            events.publish("error", ["message": "recording failed: \(StudioResponse.words(error))"])
        default:
            break
        }
    }
}

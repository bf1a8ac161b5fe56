import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelComposition
import ReelCore

/// The seed's short video: hold to record a segment, let go to pause, up to 15 s in
/// all; undo, reset, and save, which merges the segments (``SegmentedRecorder``) into
/// one file in the library. At the limit the recorder stops and the page is told, and
/// saves as if the button had been pressed.
final class ShortVideoDesk: @unchecked Sendable {
    static let limitSeconds = 15.0
    /// A video recorded at this rate or faster is slow motion.
    static let highFrameRate = 100.0
    /// The frames a second slow motion plays at (240 fps plays 8 times slower).
    static let slowMotionPlaybackRate = 30.0

    private let recorder: SegmentedRecorder
    private let camera: LiveCamera
    private let library: MediaLibrary
    private let events: EventHub
    private let staging: URL
    /// One save, undo or reset at a time.
    private let work = NSLock()
    /// The button's down and up in the order they came: a release that arrives while the
    /// segment is still starting waits for it, instead of finding nothing to stop.
    private let button = NSLock()
    private let lock = NSLock()
    private var pressedAt: UInt64 = 0
    /// The length of the segments before the one being recorded.
    private var recordedBefore = 0.0
    /// The capture's frame rate when the video's first segment started: 100 or more is slow
    /// motion (a file's own average rate is lower by the frames a loaded machine drops).
    private var recordingRate = 30.0

    /// - Throws: ``ReelError`` when the segments folder cannot be made.
    init(camera: LiveCamera, library: MediaLibrary, events: EventHub) throws(ReelError) {
        self.library = library
        self.events = events
        self.camera = camera
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

    /// The button goes down: the segment starts with the frame of this moment, once the
    /// capture has reached it.
    /// - Throws: ``ReelError`` `.invalidState` while recording or at the limit.
    func start() throws(ReelError) {
        let pressed = DispatchTime.now().uptimeNanoseconds
        button.lock()
        defer { button.unlock() }
        camera.waitUntilCaptured(uptime: pressed)
        // A new video takes the way the device is held now; its later segments keep it.
        if recorder.segments.isEmpty {
            camera.followOrientation()
            let rate = camera.session.frameRate
            lock.withLock { recordingRate = rate }
        }
        try recorder.startSegment()
        lock.withLock {
            pressedAt = pressed
            recordedBefore = recorder.segments.reduce(0) { $0 + $1.duration.seconds }
        }
    }

    /// The button comes up: the segment ends once it is as long as the button was held,
    /// and its file is finished before this returns.
    ///
    /// Opening a segment's file takes a moment in which frames go by unrecorded, and a
    /// loaded machine's capture runs behind the clock; so the segment is stopped by its
    /// recorded length, not by the frame the capture happens to be at (at most 2 s later).
    func pause() {
        let released = DispatchTime.now().uptimeNanoseconds
        button.lock()
        defer { button.unlock() }
        guard recorder.isRecording else { return }
        let (pressed, before) = lock.withLock { (pressedAt, recordedBefore) }
        let held = Double(released &- pressed) / 1e9
        let halfFrame = 0.5 / max(1, camera.session.frameRate)
        let deadline = Date().addingTimeInterval(2)
        while recorder.isRecording, recorder.recordedDuration.seconds - before < held - halfFrame, Date() < deadline {
            usleep(2000)
        }
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
    /// A slow-motion video (recorded at 100 fps or more) is written instead with its
    /// timestamps stretched to play at ``slowMotionPlaybackRate``, as an iPhone's slo-mo
    /// clip plays, so the gallery's review (and any player) shows it slowed.
    private func keep() throws(ReelError) -> MediaLibrary.Item {
        let url = library.newFile(kind: .video, prefix: "Video", extension: "mp4")
        let recordedRate = lock.withLock { recordingRate }
        if recordedRate >= Self.highFrameRate, recordedRate.isFinite {
            let rate = max(1.0 / 16, Self.slowMotionPlaybackRate / recordedRate)
            try StretchedCopy.write(try Asset(url: staging), rate: rate, to: url, fileType: .mp4)
            try? FileManager.default.removeItem(at: staging)
        } else {
            do {
                try FileManager.default.moveItem(at: staging, to: url)
            } catch {
                throw ReelError(.io, "cannot move the merged video into the library: \(error.localizedDescription)", subject: url.path)
            }
        }
        recorder.reset()
        // Ahead of the gallery's request, which makes it again if this fails.
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

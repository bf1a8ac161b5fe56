import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelComposition
import ReelCore

/// The seed's short video: hold to record a segment, let go to pause, up to 15 s in
/// all; undo, reset, and save, which merges the segments (``SegmentedRecorder``) into
/// one file in the library. At the limit the recorder stops and the page that was
/// recording is told, and saves as if the button had been pressed.
///
/// A segment belongs to the press that started it: the page (its ID, from its event
/// stream's address) and the press's number. Only that page's release ends it, a
/// release that overtook its press stops the press from starting at all, and when the
/// page goes away (its event stream closes) the segment ends there. A press shorter
/// than ``shortestPress`` keeps nothing.
final class ShortVideoDesk: @unchecked Sendable {
    static let limitSeconds = 15.0
    /// A hold shorter than this is a tap: its segment is not kept.
    static let shortestPress = 0.3
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
    /// The page whose press is recording (or was, until saved): "" for an API client.
    private var owner: String?
    /// Each page's last released press, so that a press whose release came first never starts.
    private var released: [String: Int] = [:]
    /// The segments there were when the press under way started (a tap removes only its own).
    private var segmentsBefore = 0
    /// When a tap's segment was last thrown away: the recorder's complaint about its empty
    /// file, which may follow, is not the user's business.
    private var discardedAt: UInt64 = 0
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
        /// The page recording (nil for none or an API client).
        var recordingPage: String?
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
        let recording = recorder.isRecording
        let page = lock.withLock { owner }
        return Progress(recording: recording, recordingPage: recording && page != "" ? page : nil, recordedSeconds: recorded,
                        segments: segments.count, segmentEnds: ends, progress: min(1, recorded / Self.limitSeconds))
    }

    /// The button goes down: the segment starts with the frame of this moment, once the
    /// capture has reached it.
    /// - Parameters:
    ///   - page: the page pressing (nil for an API client); only its release ends the segment.
    ///   - press: the press's number on that page, counting up.
    /// - Throws: ``ReelError`` `.invalidState` while recording (this page's or another's),
    ///   at the limit, or when this press was already let go.
    func start(page: String? = nil, press: Int? = nil) throws(ReelError) {
        let pressed = DispatchTime.now().uptimeNanoseconds
        button.lock()
        defer { button.unlock() }
        let (current, letGo) = lock.withLock { (owner, page.flatMap { released[$0] }) }
        if recorder.isRecording {
            throw ReelError(.invalidState, current == (page ?? "") ? "already recording" : "another page is recording")
        }
        if let press, let letGo, press <= letGo {
            throw ReelError(.invalidState, "this press was let go before it started")
        }
        camera.waitUntilCaptured(uptime: pressed)
        // A new video takes the way the device is held now; its later segments keep it.
        if recorder.segments.isEmpty {
            camera.followOrientation()
            let rate = camera.session.frameRate
            lock.withLock { recordingRate = rate }
        }
        let count = recorder.segments.count
        // The Stabilization switch as it is now (a change made while the last segment
        // recorded reaches this one).
        camera.stabilization.apply()
        try recorder.startSegment()
        lock.withLock {
            segmentsBefore = count
            owner = page ?? ""
            pressedAt = pressed
            recordedBefore = recorder.segments.reduce(0) { $0 + $1.duration.seconds }
        }
    }

    /// What a release did.
    enum Release: String, Encodable, Sendable {
        /// The segment ended and is kept.
        case paused
        /// The press was shorter than ``shortestPress``: nothing was kept.
        case tooShort
        /// Nothing was recording.
        case idle
        /// Another page's press is recording; it goes on.
        case notYours
    }

    /// The button comes up: the segment ends once it is as long as the button was held,
    /// and its file is finished before this returns.
    ///
    /// Opening a segment's file takes a moment in which frames go by unrecorded, and a
    /// loaded machine's capture runs behind the clock; so the segment is stopped by its
    /// recorded length, not by the frame the capture happens to be at (at most 2 s later).
    /// - Parameters:
    ///   - page: the page letting go (nil for an API client): only the one that pressed ends the segment.
    ///   - press: the press's number, so that a start still on its way is refused.
    ///   - held: how long the button was down as the page measured it; a tap is judged by it when
    ///     given (on a busy machine, a tap's requests can arrive further apart than it lasted).
    ///   - leaving: the page is going away: stop at once, without waiting for the capture to catch up.
    @discardableResult
    func pause(page: String? = nil, press: Int? = nil, held pageHeld: Double? = nil, leaving: Bool = false) -> Release {
        let releasedAt = DispatchTime.now().uptimeNanoseconds
        if let page, let press {
            lock.withLock { released[page] = max(released[page] ?? press, press) }
        }
        button.lock()
        defer { button.unlock() }
        // A Stabilization change made while the segment recorded, once it has ended.
        defer { if !recorder.isRecording { camera.stabilization.apply() } }
        guard recorder.isRecording else { return .idle }
        let (pressed, before, current, count) = lock.withLock { (pressedAt, recordedBefore, owner, segmentsBefore) }
        guard current == (page ?? "") else { return .notYours }
        let held = Double(releasedAt &- pressed) / 1e9
        if (pageHeld ?? held) < Self.shortestPress {
            lock.withLock { discardedAt = DispatchTime.now().uptimeNanoseconds }
            recorder.pauseSegment()
            if recorder.segments.count > count { recorder.removeLastSegment() }
            lock.withLock { discardedAt = DispatchTime.now().uptimeNanoseconds }
            return .tooShort
        }
        if leaving {
            recorder.pauseSegment()
            return .paused
        }
        let halfFrame = 0.5 / max(1, camera.session.frameRate)
        let deadline = Date().addingTimeInterval(2)
        while recorder.isRecording, recorder.recordedDuration.seconds - before < held - halfFrame, Date() < deadline {
            usleep(2000)
        }
        recorder.pauseSegment()
        return .paused
    }

    /// Puts the Stabilization switch's mode on the recordings now if no segment is
    /// recording; otherwise the segment's end does (``RecordingStabilization``).
    func applyStabilizationBetweenSegments() {
        button.lock()
        defer { button.unlock() }
        if !recorder.isRecording { camera.stabilization.apply() }
    }

    /// `page` has gone (its event stream closed): its segment ends now, as if let go.
    func pageLeft(_ page: String) {
        lock.withLock { released[page] = .max }
        guard lock.withLock({ owner }) == page else { return }
        pause(page: page, leaving: true)
    }

    /// The page whose press recorded last, which the limit's save and review belong to.
    var recordingOwner: String? { lock.withLock { owner } }

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
        guard !recorder.segments.isEmpty else {
            throw ReelError(.invalidState, "there is nothing recorded to save: hold the record button to film")
        }
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

    /// The `limit` event: the page that was recording saves and shows the review.
    struct Limit: Encodable {
        var seconds: Double
        var page: String?
    }

    private func handle(_ event: SegmentedRecorder.Event) {
        switch event {
        case .limitReached:
            events.publish("limit", Limit(seconds: Self.limitSeconds, page: lock.withLock { owner }))
        case .failed(let error):
            let sinceDiscard = Double(DispatchTime.now().uptimeNanoseconds &- lock.withLock { discardedAt }) / 1e9
            guard sinceDiscard > 2 else { return }
            events.publish("error", ["message": "recording failed: \(StudioResponse.words(error))"])
        default:
            break
        }
    }
}

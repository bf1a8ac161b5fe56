import Dispatch
public import Foundation
import ReelAsset
import ReelComposition
public import ReelCore

/// Hold-to-record short videos (the seeds' short-video recorder): each hold records a
/// segment, up to a total limit (15 s by default, stopping exactly there), with progress
/// events; undo removes the last segment; saving, or reaching the limit, merges the
/// segments into one file whose sound neither clicks nor drifts at the joins
/// (``SegmentMerge``: pictures copied, sound re-encoded once).
public final class SegmentedRecorder: @unchecked Sendable {
    /// One recorded hold.
    public struct Segment: Sendable, Hashable {
        public let url: URL
        public let duration: MediaTime
    }

    /// What the recorder tells its UI, on a queue of its own.
    public enum Event: Sendable {
        case started(segment: Int)
        /// Recorded so far (all segments), ten times a second while recording.
        case progress(recorded: MediaTime, limit: MediaTime)
        case paused(Segment)
        /// The total reached the limit; the merge follows.
        case limitReached
        case removed(Segment)
        case saved(URL, duration: MediaTime)
        case failed(ReelError)
    }

    public let maximumDuration: MediaTime
    public let directory: URL
    public let outputURL: URL
    private let movie = MovieFileOutput()
    private let session: CaptureSession
    /// The segments, the one being recorded, the progress timer and the handler: one state, one lock.
    private let state = PosixMutex(SegmentedRecorderStateMachine())
    /// Held by start and pause for their whole length, so a release that comes while the
    /// file is still being opened stops the segment instead of missing it.
    private let operation = NSLock()
    private let events = DispatchQueue(label: "reel.segmented-recorder.events")
    private let finished = DispatchGroup()

    /// Records from `session` into `directory` (made if missing); saves to `outputURL`.
    /// - Parameters:
    ///   - session: The session to record from (with its camera and microphone).
    ///   - directory: Where the segments' files go.
    ///   - outputURL: The merged movie.
    ///   - maximumDuration: The limit of all segments together.
    /// - Throws: ``ReelError`` when the folder cannot be made or the output cannot join the session.
    public init(session: CaptureSession, directory: URL, outputURL: URL,
                maximumDuration: MediaTime = MediaTime(value: 15, timescale: 1)) throws(ReelError) {
        self.session = session
        self.directory = directory
        self.outputURL = outputURL
        self.maximumDuration = maximumDuration
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ReelError(.io, "cannot make the segments folder: \(error.localizedDescription)", subject: directory.path)
        }
        try session.add(movie)
    }

    /// Receives every ``Event``.
    /// - Parameter handler: Called on the recorder's event queue, or nil for none.
    public func setEventHandler(_ handler: (@Sendable (Event) -> Void)?) { state.withLock { $0.handler = handler } }

    public var segments: [Segment] { state.withLock { $0.segments } }
    public var isRecording: Bool { state.withLock { $0.isRecording } }
    /// Whether the segment's file still takes pictures: false from the moment its stop is
    /// decided, while ``isRecording`` stays true until the file is finished.
    var isTakingPictures: Bool { movie.isRecording }

    /// All finished segments plus the one being recorded.
    public var recordedDuration: MediaTime {
        let (done, live) = state.withLock { ($0.finishedDuration, $0.isRecording) }
        return live ? done + movie.recordedDuration : done
    }

    /// What is left of the limit.
    public var remainingDuration: MediaTime { max(.zero, maximumDuration - recordedDuration) }

    /// Starts a segment (the button goes down).
    /// - Throws: ``ReelError`` `.invalidState` while recording or when the limit is reached.
    public func startSegment() throws(ReelError) {
        operation.lock()
        defer { operation.unlock() }
        let remaining = remainingDuration
        let (limit, folder) = (maximumDuration, directory)
        let url = try state.withLock { (state) throws(ReelError) -> URL in
            try state.beginSegment(remaining: remaining, limit: limit, in: folder)
        }
        movie.maxRecordedDuration = remaining
        finished.enter()
        do throws(ReelError) {
            try movie.startRecording(to: url) { [weak self] url, error in self?.segmentDidFinish(url, error: error) }
        } catch {
            _ = state.withLock { $0.segmentEnded(nil) }
            finished.leave()
            throw error
        }
        startProgress()
        emit(.started(segment: state.withLock { $0.segments.count + 1 }))
    }

    /// Ends the segment (the button comes up) once its file is finished.
    public func pauseSegment() {
        operation.lock()
        defer { operation.unlock() }
        guard isRecording else { return }
        movie.stopRecording()
        finished.wait()
    }

    /// Waits until a segment that stopped by itself at the limit is finished.
    public func waitUntilIdle() { finished.wait() }

    private func segmentDidFinish(_ url: URL, error: ReelError?) {
        let duration = movie.recordedDuration
        let reason = movie.stopReason
        let segment = error == nil ? Segment(url: url, duration: duration) : nil
        state.withLock { $0.segmentEnded(segment) }?.cancel()
        if let error {
            emit(.failed(error))
        } else if let segment {
            emit(.paused(segment))
            emit(.progress(recorded: recordedDuration, limit: maximumDuration))
            if reason == .maximumDurationReached || remainingDuration <= .zero {
                emit(.limitReached)
                do throws(ReelError) { try save() } catch { emit(.failed(error)) }
            }
        }
        finished.leave()
    }

    /// Removes the last segment and its file (undo).
    /// - Returns: The segment removed, or nil when there is none.
    @discardableResult
    public func removeLastSegment() -> Segment? {
        pauseSegment()
        guard let last = state.withLock({ $0.removeLast() }) else { return nil }
        try? FileManager.default.removeItem(at: last.url)
        emit(.removed(last))
        emit(.progress(recorded: recordedDuration, limit: maximumDuration))
        return last
    }

    /// Merges the segments into ``outputURL`` (pausing first if recording) and returns it.
    /// Segments that cannot be copied together (the preset changed between them) are
    /// re-encoded instead.
    /// - Returns: ``outputURL``.
    /// - Throws: ``ReelError`` `.invalidState` with no segments, or the merge's failure.
    @discardableResult
    public func save() throws(ReelError) -> URL {
        if isRecording {
            movie.stopRecording()
        }
        let urls = segments.map(\.url)
        guard !urls.isEmpty else { throw ReelError(.invalidState, "there is nothing recorded to save", subject: outputURL.path) }
        let type = FileType(pathExtension: outputURL.pathExtension) ?? .mp4
        let duration: MediaTime
        do throws(ReelError) {
            duration = try SegmentMerge.write(urls, to: outputURL, fileType: type)
        } catch where error.code == .unsupported {
            duration = try Self.reencode(urls, to: outputURL, fileType: type)
        }
        emit(.saved(outputURL, duration: duration))
        return outputURL
    }

    private static func reencode(_ urls: [URL], to url: URL, fileType: FileType) throws(ReelError) -> MediaTime {
        var assets: [Asset] = []
        for segment in urls { assets.append(try Asset(url: segment)) }
        let sequence = try ClipSequence(assets: assets)
        let export = sequence.exportSession(preset: .highestQuality, to: url, fileType: fileType)
        try export.exportSynchronously()
        return sequence.composition.duration
    }

    /// Stops any segment and deletes every segment file.
    public func reset() {
        pauseSegment()
        let all = state.withLock { $0.removeAll() }
        for segment in all { try? FileManager.default.removeItem(at: segment.url) }
        emit(.progress(recorded: .zero, limit: maximumDuration))
    }

    private func emit(_ event: Event) {
        guard let handler = state.withLock({ $0.handler }) else { return }
        events.async { handler(event) }
    }

    private func startProgress() {
        let timer = DispatchSource.makeTimerSource(queue: events)
        timer.schedule(deadline: .now() + 0.1, repeating: 0.1)
        timer.setEventHandler { [weak self] in
            guard let self, let handler = state.withLock({ $0.handler }) else { return }
            handler(.progress(recorded: recordedDuration, limit: maximumDuration))
        }
        timer.resume()
        // A segment that ended while the timer was made (at once, at the limit) stops it here.
        if !state.withLock({ $0.progressStarted(timer) }) { timer.cancel() }
    }
}

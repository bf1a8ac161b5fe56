import Dispatch
import Foundation
import ReelCore

/// A ``SegmentedRecorder``'s state under its one lock: the finished segments, the one being
/// recorded, the file counter, the progress timer and the event handler. Pure transitions
/// (swift-nio's state-machine pattern); the recorder carries out what they return.
struct SegmentedRecorderStateMachine {
    enum Phase {
        case idle
        /// A segment is being recorded to `url`.
        case recording(url: URL, progress: (any DispatchSourceTimer)?)
    }

    private(set) var segments: [SegmentedRecorder.Segment] = []
    private(set) var phase = Phase.idle
    private var counter = 0
    var handler: (@Sendable (SegmentedRecorder.Event) -> Void)?

    var isRecording: Bool {
        if case .recording = phase { return true }
        return false
    }

    /// The finished segments' total.
    var finishedDuration: MediaTime { segments.reduce(MediaTime.zero) { $0 + $1.duration } }

    /// idle → recording: the new segment's file in `directory`.
    /// - Parameters:
    ///   - remaining: What is left of the limit (the recorder's reading, with any segment under way).
    ///   - limit: The limit, for the message.
    ///   - directory: The segments folder.
    /// - Returns: The new segment's file.
    /// - Throws: ``ReelError`` `.invalidState` while recording or when the limit is reached.
    mutating func beginSegment(remaining: MediaTime, limit: MediaTime, in directory: URL) throws(ReelError) -> URL {
        guard case .idle = phase else { throw ReelError(.invalidState, "a segment is being recorded") }
        guard remaining > .zero else { throw ReelError(.invalidState, "the \(limit.seconds) s limit is reached") }
        counter += 1
        let url = directory.appendingPathComponent("segment-\(counter).mp4")
        phase = .recording(url: url, progress: nil)
        return url
    }

    /// The segment's progress timer, once it runs; false (cancel it) when the segment ended meanwhile.
    mutating func progressStarted(_ timer: any DispatchSourceTimer) -> Bool {
        guard case .recording(let url, nil) = phase else { return false }
        phase = .recording(url: url, progress: timer)
        return true
    }

    /// recording → idle, keeping `segment` when it was finished without error.
    /// - Parameter segment: The finished segment, or nil when its file failed or never opened.
    /// - Returns: The progress timer to cancel.
    mutating func segmentEnded(_ segment: SegmentedRecorder.Segment?) -> (any DispatchSourceTimer)? {
        guard case .recording(_, let progress) = phase else { return nil }
        phase = .idle
        if let segment { segments.append(segment) }
        return progress
    }

    /// Undo: the last segment, taken off the list.
    mutating func removeLast() -> SegmentedRecorder.Segment? { segments.popLast() }

    /// Every segment, taken off the list.
    mutating func removeAll() -> [SegmentedRecorder.Segment] {
        defer { segments = [] }
        return segments
    }
}

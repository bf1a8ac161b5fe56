import Foundation
import ReelAV
import ReelCore

/// Cuts a segmented ``AssetWriter``'s byte stream into the initialization segment and
/// media segments, and hands each to the delegate with its report.
///
/// FFmpeg's MP4 muxer writes the stream (`empty_moov`, a fragment at each keyframe) and
/// marks where each fragment starts and at what time (``MuxerByteStream/Marker``). A media
/// segment is the run of fragments from one that starts with a keyframe at or after the
/// next segment boundary (``SegmentPlan``) to the next such fragment; with an indefinite
/// interval, from one ``flush()`` to the next. Runs on the thread writing to the muxer,
/// under the muxer's lock, so calls are already serial; its own state is under one lock all
/// the same because ``finish()`` comes from another thread.
final class SegmentAssembler: @unchecked Sendable {
    /// When segments are cut.
    struct SegmentPlan {
        /// Cut at keyframes this far apart; nil for indefinite (cut at ``flush()`` only).
        var interval: MediaTime?
        /// Where the first segment starts on the source's timeline (`initialSegmentStartTime`);
        /// nil for the session's start. The first boundary is this plus one interval.
        var initialStart: MediaTime?
    }

    /// The bytes of the stream as they come: the header, then the segment being filled.
    private struct State {
        var header = Data()
        var reader: FragmentReader?
        var current = Data()
        var nextBoundary: MediaTime?
        var cutRequested = false
        var delivered = 0
        /// Where the part being filled starts in `current` (with parts).
        var partStart = 0
    }

    /// What is handed to the delegate, in order.
    private enum Piece {
        case initialization(Data, AssetSegmentReport?)
        case segment(Data, AssetSegmentReport?)
        case part(Data, AssetSegmentReport?)
    }

    private let state: PosixMutex<State>
    private let plan: SegmentPlan
    private weak var writer: AssetWriter?
    private let delegate: any AssetWriterDelegate
    /// The delegate that takes parts, when it asks for them (``AssetWriterPartDelegate``).
    private let parts: (any AssetWriterPartDelegate)?
    private(set) var stream: MuxerByteStream?

    init(plan: SegmentPlan, writer: AssetWriter, delegate: any AssetWriterDelegate) throws(ReelError) {
        self.plan = plan
        self.writer = writer
        self.delegate = delegate
        let parted = delegate as? any AssetWriterPartDelegate
        parts = parted?.partInterval == nil ? nil : parted
        // The boundaries are laid when the session starts (``sessionStarted(at:)``).
        state = PosixMutex(State())
        stream = try MuxerByteStream { [weak self] bytes, marker in self?.receive(bytes, marker) }
    }

    /// The session started at `start` (source time): the segment boundaries on the file's
    /// timeline, where the muxer's times are, `initialSegmentStartTime - start` plus each
    /// interval. Returns the first boundary's origin and the interval, for the encoders'
    /// keyframes; nil without an interval.
    func sessionStarted(at start: MediaTime) -> (first: MediaTime, interval: MediaTime)? {
        guard let interval = plan.interval, interval > .zero else { return nil }
        let origin = plan.initialStart.map { $0 - start } ?? .zero
        state.withLock { $0.nextBoundary = origin + interval }
        return (origin, interval)
    }

    /// Media segments handed over so far.
    var deliveredSegments: Int { state.withLock { $0.delivered } }

    private func receive(_ bytes: Data, _ marker: MuxerByteStream.Marker) {
        var ready: [Piece] = []
        let parted = parts != nil
        state.withLock { state in
            switch marker {
            case .syncPoint(let time):
                if state.reader == nil { ready.append(Self.takeHeader(&state)) }
                if parted, let part = Self.takePart(&state) { ready.append(part) }
                if !state.current.isEmpty, shouldCut(&state, at: time) { ready.append(Self.takeSegment(&state)) }
                state.current.append(bytes)
            case .boundaryPoint:
                if state.reader == nil { ready.append(Self.takeHeader(&state)) }
                if parted, let part = Self.takePart(&state) { ready.append(part) }
                state.current.append(bytes)
            case .unknown, .header, .trailer:
                if state.reader == nil { state.header.append(bytes) } else { state.current.append(bytes) }
            }
        }
        deliver(ready)
    }

    /// Whether a fragment starting with a keyframe at `time` starts a new segment.
    private func shouldCut(_ state: inout State, at time: MediaTime?) -> Bool {
        guard let interval = plan.interval else {
            defer { state.cutRequested = false }
            return state.cutRequested
        }
        guard let time, let boundary = state.nextBoundary else { return false }
        // A keyframe a little before the boundary (a rounded frame rate) still starts the
        // segment there, rather than making this one twice as long.
        // (In microseconds: a twentieth of an interval of whole seconds is no whole number of them.)
        let slack = interval.convertScale(1_000_000).multiplied(byRatio: 1, divisor: 20)
        guard time >= boundary - slack else { return false }
        var next = boundary
        while next - slack <= time { next = next + interval }
        state.nextBoundary = next
        return true
    }

    private static func takeHeader(_ state: inout State) -> Piece {
        let reader = FragmentReader(initialization: state.header)
        state.reader = reader
        return .initialization(state.header, reader.initializationReport())
    }

    private static func takeSegment(_ state: inout State) -> Piece {
        let data = state.current
        state.current = Data()
        state.partStart = 0
        state.delivered += 1
        return .segment(data, state.reader?.report(ofSegment: data))
    }

    /// The fragment completed since the last part, if any: a new fragment starts.
    private static func takePart(_ state: inout State) -> Piece? {
        guard state.reader != nil, state.current.count > state.partStart else { return nil }
        let data = Data(state.current[(state.current.startIndex + state.partStart)...])
        state.partStart = state.current.count
        return .part(data, state.reader?.report(ofSegment: data))
    }

    private func deliver(_ ready: [Piece]) {
        guard let writer else { return }
        for piece in ready {
            switch piece {
            case .initialization(let data, let report):
                delegate.assetWriter(writer, didOutputSegmentData: data, segmentType: .initialization, segmentReport: report)
            case .segment(let data, let report):
                delegate.assetWriter(writer, didOutputSegmentData: data, segmentType: .separable, segmentReport: report)
            case .part(let data, let report):
                parts?.assetWriter(writer, didOutputPartData: data, report: report)
            }
        }
    }

    /// With an indefinite interval, the next fragment that starts with a keyframe starts a
    /// new segment. (`flushSegment()`.)
    func flush() {
        state.withLock { $0.cutRequested = true }
    }

    /// After the muxer's header is flushed: hands over the initialization segment.
    func headerWritten() {
        var ready: [Piece] = []
        state.withLock { state in
            if state.reader == nil, !state.header.isEmpty { ready.append(Self.takeHeader(&state)) }
        }
        deliver(ready)
    }

    /// After the muxer's trailer: hands over the header (if no sample came) and the last segment.
    func finish() {
        var ready: [Piece] = []
        let parted = parts != nil
        state.withLock { state in
            if state.reader == nil, !state.header.isEmpty { ready.append(Self.takeHeader(&state)) }
            if parted, let part = Self.takePart(&state) { ready.append(part) }
            if !state.current.isEmpty { ready.append(Self.takeSegment(&state)) }
        }
        deliver(ready)
    }
}

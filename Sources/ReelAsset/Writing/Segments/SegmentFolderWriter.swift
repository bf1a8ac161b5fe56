public import Foundation
public import ReelCore

/// A ready-made ``AssetWriterDelegate`` that writes a segmented writer's output into a
/// folder: `init.mp4`, `segment-00001.m4s`… and, at ``finish()``, an HLS media playlist
/// (`playlist.m3u8`, fMP4 with `EXT-X-MAP`) and a DASH manifest (`manifest.mpd`, a
/// `SegmentTimeline`) over the same segments, so one segment set serves both.
///
/// It writes into the folder it is given; ``AdaptivePackage`` builds a whole package under a
/// temporary name and renames it when complete.
public final class SegmentFolderWriter: AssetWriterPartDelegate, @unchecked Sendable {
    /// A part of a media segment (LL-HLS's partial segment), written as a file of its own.
    public struct Part: Sendable, Equatable {
        /// Its file name in the folder (`segment-00003.2.m4s`).
        public var name: String
        /// How long its pictures (its sound, without picture) last.
        public var duration: MediaTime
        /// Whether it starts with a keyframe (`INDEPENDENT=YES`).
        public var isIndependent: Bool
    }

    /// One written media segment.
    public struct Segment: Sendable, Equatable {
        /// Its file name in the folder.
        public var name: String
        /// Its earliest presentation time and duration, from its report (its video track's
        /// when it has one).
        public var start: MediaTime
        public var duration: MediaTime
        /// Whether it starts with a keyframe.
        public var startsWithKeyframe: Bool
        /// Its size in bytes.
        public var bytes: Int = 0
        /// The file name of the initialization segment it plays after (`init.mp4`; `init-2.mp4`…
        /// after the writer was restarted with other settings, a new picture size say).
        public var initialization: String = "init.mp4"
        /// Its parts, written before it, when the writer was asked for parts.
        public var parts: [Part] = []
    }

    private struct State {
        var segments: [Segment] = []
        var tracks: [AssetSegmentTrackReport] = []
        var codecs: [String] = []
        var error: ReelError?
        var finished = false
        /// Media segments and initialization segments received so far (for names that never repeat).
        var written = 0
        var initializations = 0
        /// The bytes of the segments in `segments`, kept as each lands (``bandwidth``).
        var bytes = 0
        /// The most segment files and bytes the folder held at once.
        var mostFiles = 0
        var mostBytes = 0
        var observer: (@Sendable (Segment) -> Void)?
        /// The parts of the segment being filled.
        var pendingParts: [Part] = []
    }

    /// The folder the files go to.
    public let folder: URL
    private let state = PosixMutex(State())

    /// Whether the playlist is rewritten after every segment, as a live (`EVENT`) playlist
    /// that grows until ``finish()`` ends it.
    public let isLive: Bool
    /// With a window, the oldest segment files are deleted as new ones land, keeping the
    /// newest that last at least this long (a bounded buffer, `reel record --replay-buffer`).
    package let window: MediaTime?
    /// The parts' target length (LL-HLS's `PART-TARGET`), or nil for no parts.
    package let partInterval: MediaTime?

    /// A writer into `folder`, which must exist.
    /// - Parameters:
    ///   - folder: An existing folder.
    ///   - live: Rewrite `playlist.m3u8` (an `EVENT` playlist, replaced atomically) after
    ///     every segment, so that players can follow a recording while it goes on.
    /// - Throws: ``ReelError`` `.fileNotFound` when the folder does not exist.
    public convenience init(folder: URL, live: Bool = false) throws(ReelError) {
        try self.init(folder: folder, live: live, window: nil, parts: nil)
    }

    /// A writer into `folder` that keeps only the newest segments lasting `window` (all of
    /// them when nil).
    /// - Parameters:
    ///   - folder: An existing folder.
    ///   - live: Rewrite the playlist after every segment.
    ///   - window: How much of the newest media to keep on disk.
    ///   - parts: With a live playlist, Low-Latency HLS parts of about this length (0.5 s): each
    ///     fragment written as a file as soon as it is complete (`segment-00003.1.m4s`…) and
    ///     listed (`EXT-X-PART`) for the segment being filled and those of the last three
    ///     target durations; nil for none.
    /// - Throws: ``ReelError`` `.fileNotFound` when the folder does not exist.
    package init(folder: URL, live: Bool, window: MediaTime?, parts: MediaTime? = nil) throws(ReelError) {
        isLive = live
        self.window = window
        partInterval = live ? parts : nil
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReelError(.fileNotFound, "the folder does not exist", subject: folder.path)
        }
        self.folder = folder
    }

    /// The segments written so far (with a window, those still kept), in order.
    public var segments: [Segment] { state.withLock { $0.segments } }
    /// The RFC 6381 codec names of the tracks (`avc1.64001f`, `mp4a.40.2`), from the
    /// initialization segment.
    public var codecs: [String] { state.withLock { $0.codecs } }
    /// The RFC 6381 codec names of an initialization segment's tracks, in track order
    /// (`avc1.64001f`, `mp4a.40.2`): what a playlist's `CODECS` or a Media Source's
    /// `SourceBuffer` type names.
    /// - Parameter data: An initialization segment (`ftyp` + `moov`), as a segmented writer's delegate receives it.
    /// - Returns: One name per sample entry; none for data that is not an initialization segment.
    public static func codecs(ofInitializationSegment data: Data) -> [String] {
        FragmentReader.codecs(ofInitialization: data)
    }

    /// The first error writing a file, if any (``finish()`` throws it).
    public var error: ReelError? { state.withLock { $0.error } }

    /// The most media segment files and bytes the folder held at once.
    package var extremes: (files: Int, bytes: Int) { state.withLock { ($0.mostFiles, $0.mostBytes) } }

    /// Calls `body` with each media segment once its file is in the folder, on the writer's
    /// thread, before any older file is deleted (so that it can keep, by a hard link, what it needs).
    /// - Parameter body: Told of each new segment; nil stops telling.
    package func observe(_ body: (@Sendable (Segment) -> Void)?) {
        state.withLock { $0.observer = body }
    }

    public func assetWriter(
        _ writer: AssetWriter, didOutputSegmentData segmentData: Data, segmentType: AssetSegmentType,
        segmentReport: AssetSegmentReport?
    ) {
        let name: String
        var segment: Segment?
        switch segmentType {
        case .initialization:
            let codecs = FragmentReader.codecs(ofInitialization: segmentData)
            name = state.withLock { state in
                state.codecs = codecs
                state.tracks = segmentReport?.trackReports ?? []
                state.initializations += 1
                return state.initializations == 1 ? "init.mp4" : "init-\(state.initializations).mp4"
            }
        case .separable:
            let tracks = segmentReport?.trackReports ?? []
            let main = tracks.first { $0.mediaType == .video } ?? tracks.first
            let made = state.withLock { state in
                state.written += 1
                return Segment(
                    name: String(format: "segment-%05d.m4s", state.written), start: main?.earliestPresentationTimeStamp ?? .invalid,
                    duration: main?.duration ?? .invalid,
                    startsWithKeyframe: main?.firstVideoSampleInformation?.isSyncSample ?? (main?.mediaType == .audio),
                    bytes: segmentData.count,
                    initialization: state.initializations <= 1 ? "init.mp4" : "init-\(state.initializations).mp4",
                    parts: state.pendingParts)
            }
            name = made.name
            segment = made
        }
        guard state.withLock({ $0.error == nil }) else { return }
        do {
            try segmentData.write(to: folder.appendingPathComponent(name))
        } catch {
            let failure = ReelError(.io, "cannot write \(name): \(error.localizedDescription)", subject: folder.path)
            state.withLock { if $0.error == nil { $0.error = failure } }
            return
        }
        guard let segment else { return }
        let observer = state.withLock { state in
            state.pendingParts = []
            state.segments.append(segment)
            state.bytes += segment.bytes
            state.mostFiles = max(state.mostFiles, state.segments.count)
            state.mostBytes = max(state.mostBytes, state.bytes)
            return state.observer
        }
        observer?(segment)
        let doomed = state.withLock { state -> [Segment] in
            guard let window else { return [] }
            var doomed: [Segment] = []
            while state.segments.count > 1,
                state.segments.dropFirst().reduce(MediaTime.zero, { $0 + $1.duration }) >= window
            {
                let old = state.segments.removeFirst()
                state.bytes -= old.bytes
                doomed.append(old)
            }
            return doomed
        }
        for old in doomed {
            for name in [old.name] + old.parts.map(\.name) { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        }
        // A segment's parts hold its bytes again. The playlist stops listing them three target
        // durations back; their files go three target durations later still (a player may hold
        // an older playlist), so a long recording's folder does not keep every byte twice.
        let stale = state.withLock { state -> [Part] in
            guard partInterval != nil else { return [] }
            let keep = Double(Self.targetDuration(of: state.segments) * 6)
            var span = 0.0
            var stale: [Part] = []
            for index in state.segments.indices.reversed() {
                if span >= keep {
                    stale += state.segments[index].parts
                    state.segments[index].parts = []
                }
                span += state.segments[index].duration.seconds
            }
            return stale
        }
        for part in stale { try? FileManager.default.removeItem(at: folder.appendingPathComponent(part.name)) }
        if isLive { writeLivePlaylist() }
    }

    /// A part of the segment being filled: written as a file, then listed.
    package func assetWriter(_ writer: AssetWriter, didOutputPartData partData: Data, report: AssetSegmentReport?) {
        guard partInterval != nil, state.withLock({ $0.error == nil }) else { return }
        let tracks = report?.trackReports ?? []
        let main = tracks.first { $0.mediaType == .video } ?? tracks.first
        let part = state.withLock { state in
            Part(name: String(format: "segment-%05d.%d.m4s", state.written + 1, state.pendingParts.count + 1),
                 duration: main?.duration ?? .zero,
                 isIndependent: main?.firstVideoSampleInformation?.isSyncSample ?? (main?.mediaType == .audio))
        }
        do {
            try partData.write(to: folder.appendingPathComponent(part.name))
        } catch {
            let failure = ReelError(.io, "cannot write \(part.name): \(error.localizedDescription)", subject: folder.path)
            state.withLock { if $0.error == nil { $0.error = failure } }
            return
        }
        state.withLock { $0.pendingParts.append(part) }
        writeLivePlaylist()
    }

    private func writeLivePlaylist() {
        do {
            try Data(playlist(ended: false).utf8).write(to: folder.appendingPathComponent("playlist.m3u8"), options: .atomic)
        } catch {
            let failure = ReelError(.io, "cannot write playlist.m3u8: \(error.localizedDescription)", subject: folder.path)
            state.withLock { if $0.error == nil { $0.error = failure } }
        }
    }

    /// Writes `playlist.m3u8` and `manifest.mpd` (when every segment plays after the same
    /// initialization segment) once the writer has finished.
    /// - Throws: ``ReelError``: the first error writing a segment, or writing the playlists.
    public func finish() throws(ReelError) {
        let (segments, codecs, error) = state.withLock { ($0.segments, $0.codecs, $0.error) }
        if let error { throw error }
        guard !segments.isEmpty else {
            throw ReelError(.invalidState, "the writer produced no media segment", subject: folder.path)
        }
        try Self.write(mediaPlaylist(), to: folder.appendingPathComponent("playlist.m3u8"))
        // A DASH representation has one initialization segment: after a restart with other
        // settings (a live recording whose picture size changed) only the playlist describes it.
        guard Set(segments.map(\.initialization)).count == 1 else {
            state.withLock { $0.finished = true }
            return
        }
        let manifest = DASHManifest(
            duration: totalDuration,
            representations: [
                .init(
                    id: folder.lastPathComponent, path: "", codecs: codecs.joined(separator: ","), kind: kind,
                    bandwidth: bandwidth, width: nil, height: nil, segments: segments)
            ])
        try Self.write(manifest.text, to: folder.appendingPathComponent("manifest.mpd"))
        state.withLock { $0.finished = true }
    }

    /// The sum of the segments' durations.
    public var totalDuration: MediaTime {
        segments.reduce(MediaTime.zero) { $0 + $1.duration }
    }

    /// Video when a track is, else audio.
    var kind: MediaType {
        state.withLock { $0.tracks.contains { $0.mediaType == .video } ? .video : .audio }
    }

    /// Bits a second over the whole set of segments (what HLS's BANDWIDTH and DASH's
    /// bandwidth ask for, their peak and average alike here).
    public var bandwidth: Int {
        let (bytes, seconds) = state.withLock { state in
            (state.bytes, state.segments.reduce(MediaTime.zero) { $0 + $1.duration }.seconds)
        }
        guard seconds > 0 else { return 0 }
        return Int(min(Double(Int32.max), (Double(bytes) * 8 / seconds).rounded(.up)))
    }

    /// The longest segment, whole seconds rounded up (`EXT-X-TARGETDURATION`).
    public var targetDuration: Int { Self.targetDuration(of: segments) }

    private static func targetDuration(of segments: [Segment]) -> Int {
        let longest = segments.map(\.duration.seconds).max() ?? 1
        return max(1, Int(min(86_400, longest.rounded(.up))))
    }

    /// An HLS media playlist (version 7: fMP4 segments) over the segments, complete
    /// (`EXT-X-ENDLIST`): for video on demand, or a live recording's once it ended.
    public func mediaPlaylist() -> String { playlist(ended: true) }

    func playlist(ended: Bool) -> String {
        let (segments, sequence, pending, initializations) = state.withLock {
            ($0.segments, $0.written - $0.segments.count + 1, $0.pendingParts, $0.initializations)
        }
        let target = targetDuration
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:\(sequence)"]
        if window == nil { lines.append("#EXT-X-PLAYLIST-TYPE:\(isLive ? "EVENT" : "VOD")") }
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        // Low-Latency HLS (RFC 8216bis): the part target, and a hold-back of three of it (at
        // least two are required). No blocking reload: the folder is served by any file server.
        let listsParts = partInterval != nil && !ended
        if let part = partInterval, listsParts {
            lines.append("#EXT-X-PART-INF:PART-TARGET=\(Self.decimal(part.seconds))")
            lines.append("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=\(Self.decimal(part.seconds * 3))")
        }
        // Parts are listed for the segments of the last three target durations (older ones
        // SHOULD go, RFC 8216bis 4.4.4.9), and for the segment being filled.
        var recent = segments.count
        var span = pending.reduce(0.0) { $0 + $1.duration.seconds }
        while recent > 0, span < Double(target * 3) {
            recent -= 1
            span += segments[recent].duration.seconds
        }
        var map: String?
        for (index, segment) in segments.enumerated() {
            if segment.initialization != map {
                // A writer restarted with other settings (a new picture size): a new map.
                if map != nil { lines.append("#EXT-X-DISCONTINUITY") }
                lines.append("#EXT-X-MAP:URI=\"\(segment.initialization)\"")
                map = segment.initialization
            }
            if listsParts, index >= recent { lines += segment.parts.map(Self.partLine) }
            lines.append("#EXTINF:\(String(format: "%.6f", segment.duration.seconds)),")
            lines.append(segment.name)
        }
        if listsParts, !pending.isEmpty {
            let current = initializations <= 1 ? "init.mp4" : "init-\(initializations).mp4"
            if current != map {
                if map != nil { lines.append("#EXT-X-DISCONTINUITY") }
                lines.append("#EXT-X-MAP:URI=\"\(current)\"")
            }
            lines += pending.map(Self.partLine)
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func partLine(_ part: Part) -> String {
        "#EXT-X-PART:DURATION=\(decimal(part.duration.seconds)),URI=\"\(part.name)\"\(part.isIndependent ? ",INDEPENDENT=YES" : "")"
    }

    /// A decimal-floating-point value: up to six decimals, no trailing zeros.
    private static func decimal(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func write(_ text: String, to url: URL) throws(ReelError) {
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw ReelError(.io, "cannot write: \(error.localizedDescription)", subject: url.path)
        }
    }
}

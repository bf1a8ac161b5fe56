public import Foundation
public import ReelCore

/// A ready-made ``AssetWriterDelegate`` that writes a segmented writer's output into a
/// folder: `init.mp4`, `segment-00001.m4s`… and, at ``finish()``, an HLS media playlist
/// (`playlist.m3u8`, fMP4 with `EXT-X-MAP`) and a DASH manifest (`manifest.mpd`, a
/// `SegmentTimeline`) over the same segments, so one segment set serves both.
///
/// It writes into the folder it is given; ``AdaptivePackage`` builds a whole package under a
/// temporary name and renames it when complete.
public final class SegmentFolderWriter: AssetWriterDelegate, @unchecked Sendable {
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
    }

    private struct State {
        var segments: [Segment] = []
        var tracks: [AssetSegmentTrackReport] = []
        var codecs: [String] = []
        var error: ReelError?
        var finished = false
    }

    /// The folder the files go to.
    public let folder: URL
    private let state = PosixMutex(State())

    /// Whether the playlist is rewritten after every segment, as a live (`EVENT`) playlist
    /// that grows until ``finish()`` ends it.
    public let isLive: Bool

    /// A writer into `folder`, which must exist.
    /// - Parameters:
    ///   - folder: An existing folder.
    ///   - live: Rewrite `playlist.m3u8` (an `EVENT` playlist, replaced atomically) after
    ///     every segment, so that players can follow a recording while it goes on.
    /// - Throws: ``ReelError`` `.fileNotFound` when the folder does not exist.
    public init(folder: URL, live: Bool = false) throws(ReelError) {
        isLive = live
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReelError(.fileNotFound, "the folder does not exist", subject: folder.path)
        }
        self.folder = folder
    }

    /// The segments written so far, in order.
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

    public func assetWriter(
        _ writer: AssetWriter, didOutputSegmentData segmentData: Data, segmentType: AssetSegmentType,
        segmentReport: AssetSegmentReport?
    ) {
        let name: String
        switch segmentType {
        case .initialization:
            name = "init.mp4"
            let codecs = FragmentReader.codecs(ofInitialization: segmentData)
            state.withLock {
                $0.codecs = codecs
                $0.tracks = segmentReport?.trackReports ?? []
            }
        case .separable:
            let tracks = segmentReport?.trackReports ?? []
            let main = tracks.first { $0.mediaType == .video } ?? tracks.first
            name = state.withLock { state in
                let name = String(format: "segment-%05d.m4s", state.segments.count + 1)
                state.segments.append(
                    Segment(
                        name: name, start: main?.earliestPresentationTimeStamp ?? .invalid, duration: main?.duration ?? .invalid,
                        startsWithKeyframe: main?.firstVideoSampleInformation?.isSyncSample ?? (main?.mediaType == .audio)))
                return name
            }
        }
        guard state.withLock({ $0.error == nil }) else { return }
        do {
            try segmentData.write(to: folder.appendingPathComponent(name))
            if isLive, segmentType == .separable {
                try Data(playlist(ended: false).utf8).write(to: folder.appendingPathComponent("playlist.m3u8"), options: .atomic)
            }
        } catch {
            let failure = ReelError(.io, "cannot write \(name): \(error.localizedDescription)", subject: folder.path)
            state.withLock { if $0.error == nil { $0.error = failure } }
        }
    }

    /// Writes `playlist.m3u8` and `manifest.mpd` once the writer has finished.
    /// - Throws: ``ReelError``: the first error writing a segment, or writing the playlists.
    public func finish() throws(ReelError) {
        let (segments, codecs, error) = state.withLock { ($0.segments, $0.codecs, $0.error) }
        if let error { throw error }
        guard !segments.isEmpty else {
            throw ReelError(.invalidState, "the writer produced no media segment", subject: folder.path)
        }
        try Self.write(mediaPlaylist(), to: folder.appendingPathComponent("playlist.m3u8"))
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
        let bytes = segments.reduce(0) { total, segment in
            let size =
                (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(segment.name).path)[.size])
                as? Int ?? 0
            return total + size
        }
        let seconds = totalDuration.seconds
        guard seconds > 0 else { return 0 }
        return Int(min(Double(Int32.max), (Double(bytes * 8) / seconds).rounded(.up)))
    }

    /// The longest segment, whole seconds rounded up (`EXT-X-TARGETDURATION`).
    public var targetDuration: Int {
        let longest = segments.map(\.duration.seconds).max() ?? 1
        return max(1, Int(min(86_400, longest.rounded(.up))))
    }

    /// An HLS media playlist (version 7: fMP4 segments) over the segments, complete
    /// (`EXT-X-ENDLIST`): for video on demand, or a live recording's once it ended.
    public func mediaPlaylist() -> String { playlist(ended: true) }

    func playlist(ended: Bool) -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:1", "#EXT-X-PLAYLIST-TYPE:\(isLive ? "EVENT" : "VOD")", "#EXT-X-INDEPENDENT-SEGMENTS",
            "#EXT-X-MAP:URI=\"init.mp4\"",
        ]
        for segment in segments {
            lines.append("#EXTINF:\(String(format: "%.6f", segment.duration.seconds)),")
            lines.append(segment.name)
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func write(_ text: String, to url: URL) throws(ReelError) {
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw ReelError(.io, "cannot write: \(error.localizedDescription)", subject: url.path)
        }
    }
}

public import Foundation
import ReelAV
public import ReelCore

/// A media file and what it holds: duration, tracks and metadata. `AVURLAsset`.
///
/// Creating an asset opens the file, reads its header and closes it again, so an
/// asset holds no file handle; readers open their own. All properties are loaded
/// by the time `init` returns.
public final class Asset: Sendable {
    public let url: URL
    /// The length of the asset: the container's duration, or the end of its last track.
    /// When the header says neither (a live WebM or Matroska, as browsers record them), the
    /// tracks' lengths come from their packets, read once when the asset is loaded.
    public let duration: MediaTime
    /// Every track of the file, in file order. Two audio tracks are two tracks.
    public let tracks: [AssetTrack]
    public let metadata: AssetMetadata
    /// FFmpeg's container name (`mov,mp4,m4a,3gp,3g2,mj2`).
    public let formatName: String
    /// Size of the file in bytes.
    public let fileSize: Int64
    /// Overall bit rate in bits per second, or 0.
    public let bitRate: Int64
    /// For an image sequence (``init(imageSequence:frameRate:)``), the frames a second its
    /// pictures play at; nil for a file. The asset's own: its readers, and the compositions
    /// its tracks go into, play it at this rate whatever other assets of the same frames use.
    public let imageSequenceFrameRate: Double?

    /// Loads the asset at `url`.
    /// - Parameter url: a file URL of a movie, sound or picture file FFmpeg reads.
    /// - Throws: ``ReelError`` naming the file and the cause: `.fileNotFound`,
    ///   `.isDirectory`, `.emptyFile`, `.permissionDenied`, or `.invalidData` with FFmpeg's
    ///   message for bytes that are not media or were cut short.
    ///
    /// A file already loaded in this process, and unchanged since (same inode, size and
    /// change times), is not read again: composing, merging and exporting each look at
    /// their sources more than once. An image sequence's pattern (`f-%04d.png`) plays at 25
    /// frames a second; ``init(imageSequence:frameRate:)`` gives it another rate.
    public convenience init(url: URL) throws(ReelError) {
        try self.init(url: url, imageSequenceFrameRate: nil)
    }

    /// Loads the asset at `url`; an image sequence at `rate` frames a second.
    /// - Parameters:
    ///   - url: A file URL, or an image sequence's pattern.
    ///   - rate: For a pattern, the frames a second (already checked, 1 to 240); nil plays it
    ///     at 25. Ignored for a file.
    /// - Throws: ``ReelError`` as ``init(url:)`` does.
    package init(url: URL, imageSequenceFrameRate rate: Double?) throws(ReelError) {
        let path = url.path
        let isSequence = Asset.isImageSequence(url)
        let sequenceRate = isSequence ? rate ?? Double(ImageSequence.defaultFrameRate.numerator) : nil
        let version = try SourceFile.check(path, frameRate: sequenceRate)
        imageSequenceFrameRate = sequenceRate
        if let known = AssetCache.shared.description(of: path, version: version) {
            self.url = url
            duration = known.duration
            tracks = known.url == url ? known.tracks : known.tracks.map { track in
                var moved = track
                moved.assetURL = url
                return moved
            }
            metadata = known.metadata
            formatName = known.formatName
            fileSize = known.fileSize
            bitRate = known.bitRate
            return
        }
        let demuxer: Demuxer
        do {
            demuxer = try Demuxer(path: path, frameRate: sequenceRate)
        } catch where error.code == .invalidData || error.code == .ffmpeg {
            var plain = error
            plain.message = "not a media file that FFmpeg can read: \(error.message)"
            throw plain
        }
        if let end = demuxer.indexedEndBeyondFile {
            throw ReelError(.invalidData,
                            "file is truncated: its index needs \(end) bytes but the file has \(demuxer.fileSize)",
                            subject: path)
        }
        if demuxer.streams.isEmpty {
            throw ReelError(.invalidData, "holds no audio, video or other streams", subject: path)
        }
        // FFmpeg turns a zero timescale (mdhd) into one tick a second, which cannot time
        // frames or audio packets: the timestamps that result are nonsense.
        for stream in demuxer.streams where stream.mediaType == .video || stream.mediaType == .audio {
            let base = stream.timeBase
            guard base.isPositive, base.numerator < base.denominator else {
                throw ReelError(.invalidData,
                                "track \(stream.index + 1) (\(stream.mediaType)) has a time base of \(base.numerator)/\(base.denominator) s, too coarse to time its samples: its header's timescale is zero or damaged",
                                subject: path)
            }
        }
        // A header without a duration (a browser's WebM, Matroska written to a pipe): the
        // packets say how long each stream lasts, so every reader of the asset sees it whole.
        // A movie starting after zero (an HLS or DASH segment) has lengths FFmpeg gives as
        // end times: the packets say those too, and the tracks' end is the asset's.
        let untrusted = demuxer.startsAfterZero
        let containerDuration = untrusted ? MediaTime.invalid : demuxer.duration
        let streams = untrusted ? try demuxer.streamsMeasuredFromPackets(replacing: true)
            : demuxer.lacksDuration ? try demuxer.streamsMeasuredFromPackets() : demuxer.streams
        var tracks: [AssetTrack] = []
        var usedIDs = Set<Int>()
        for stream in streams {
            let fileID = Int(stream.metadata["id"] ?? "") ?? 0
            var trackID = fileID > 0 ? fileID : stream.index + 1
            while usedIDs.contains(trackID) { trackID += 1 }
            usedIDs.insert(trackID)
            var track = AssetTrack(stream: stream, trackID: trackID, containerDuration: containerDuration, url: url)
            track.imageSequenceFrameRate = sequenceRate
            tracks.append(track)
        }
        self.url = url
        let tracksEnd = tracks.map(\.timeRange.end).filter(\.isNumeric).max()
        if containerDuration.isNumeric {
            // A header claiming more than a second beyond every track's end is damaged (an
            // mvhd duration of -1 reads as 50 days); the tracks' own lengths are the truth.
            if let tracksEnd, containerDuration > tracksEnd + MediaTime(value: 1, timescale: 1) {
                duration = tracksEnd
            } else {
                duration = containerDuration
            }
        } else {
            duration = tracksEnd ?? .invalid
        }
        if duration != containerDuration {
            for index in tracks.indices { tracks[index].assetDuration = duration }
        }
        self.tracks = tracks
        metadata = AssetMetadata(tags: demuxer.metadata)
        formatName = demuxer.formatName
        fileSize = demuxer.fileSize
        bitRate = demuxer.bitRate
        AssetCache.shared.remember(AssetCache.Description(url: url, duration: duration, tracks: tracks, metadata: metadata,
                                                          formatName: formatName, fileSize: fileSize, bitRate: bitRate),
                                   of: path, version: version)
    }

    /// Loads a numbered series of PNG pictures (`frames/f-%04d.png`) as a movie of one video
    /// track playing at `frameRate`, its pictures' alpha kept (they decode as `rgba`).
    /// Readers of the asset, and compositions its track is inserted into, play it at that
    /// rate; other assets of the same pattern keep their own (``imageSequenceFrameRate``).
    /// - Parameters:
    ///   - url: The pattern: a file name with one counter, `%d` or `%0Nd` (N from 1 to 9),
    ///     ending in `.png`. The first frame is the lowest number present.
    ///   - frameRate: Frames a second, from 1 to 240 (29.97 is taken as 30000/1001).
    /// - Throws: ``ReelError`` about the pattern: `.invalidArgument` for a rate out of range,
    ///   a `%` that is not a counter or frames that are not PNG; `.fileNotFound` when no frame
    ///   matches; `.invalidData` for a gap in the numbers or more than 100,000 frames.
    public convenience init(imageSequence url: URL, frameRate: Double) throws(ReelError) {
        guard frameRate.isFinite, frameRate >= 1, frameRate <= 240 else {
            throw ReelError(.invalidArgument, "wants a frame rate from 1 to 240, not \(frameRate)", subject: url.path)
        }
        guard try ImageSequence(pattern: url.path) != nil else {
            throw ReelError(.invalidArgument, "is not an image sequence pattern (frames/f-%04d.png)", subject: url.path)
        }
        try self.init(url: url, imageSequenceFrameRate: frameRate)
    }

    /// Whether `url` names an image sequence rather than a file: no file is there and its
    /// name holds a counter (`%04d`), or a `%` and a picture's extension (a bad counter, which
    /// ``init(imageSequence:frameRate:)`` refuses).
    /// - Parameter url: A file URL.
    /// - Returns: True for a pattern such as `frames/f-%04d.png`.
    public static func isImageSequence(_ url: URL) -> Bool {
        do {
            return try ImageSequence(pattern: url.path) != nil
        } catch {
            return true
        }
    }

    /// Loads the asset at `path`.
    /// - Parameter path: The file's path, absolute or relative to the working directory.
    /// - Throws: ``ReelError`` naming the file when it is missing or FFmpeg cannot read it.
    public convenience init(path: String) throws(ReelError) {
        try self.init(url: URL(fileURLWithPath: path))
    }

    /// The tracks of one medium, in file order. `tracks(withMediaType:)`.
    /// - Parameter mediaType: `.video`, `.audio`…
    /// - Returns: the tracks of that medium; empty when there are none.
    public func tracks(withMediaType mediaType: MediaType) -> [AssetTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// The track with `trackID`, if any. `track(withTrackID:)`.
    /// - Parameter trackID: the track's ID as the file numbers it.
    /// - Returns: the track, or nil when the file has no track with that ID.
    public func track(withTrackID trackID: Int) -> AssetTrack? {
        tracks.first { $0.trackID == trackID }
    }

    /// The async form iOS code awaits: `try await asset.loadTracks(withMediaType: .video)`.
    /// - Parameter mediaType: `.video`, `.audio`…
    /// - Returns: the tracks of that medium, as ``tracks(withMediaType:)`` gives them.
    /// - Throws: nothing today (the asset is loaded when made); the signature is AVFoundation's.
    public func loadTracks(withMediaType mediaType: MediaType) async throws(ReelError) -> [AssetTrack] {
        tracks(withMediaType: mediaType)
    }
}

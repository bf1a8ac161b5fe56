public import ReelCore

/// What a segment handed to an ``AssetWriterDelegate`` is. `AVAssetSegmentType`.
public enum AssetSegmentType: Sendable, Equatable, CustomStringConvertible {
    /// The initialization segment: the file type and the movie box, no samples (an fMP4
    /// `ftyp` + `moov`; HLS's `EXT-X-MAP`, DASH's `Initialization`).
    case initialization
    /// A media segment that plays on its own after the initialization segment
    /// (`moof` + `mdat` pairs starting with a keyframe).
    case separable

    public var description: String {
        switch self {
        case .initialization: "initialization"
        case .separable: "separable"
        }
    }
}

/// What a segment holds, read from its own boxes. `AVAssetSegmentReport`.
public struct AssetSegmentReport: Sendable, Equatable {
    /// The kind of segment this reports on. `segmentType`.
    public var segmentType: AssetSegmentType
    /// One report per track with samples in the segment (every track, for the
    /// initialization segment). `trackReports`.
    public var trackReports: [AssetSegmentTrackReport]

    /// A report.
    /// - Parameters:
    ///   - segmentType: The kind of segment.
    ///   - trackReports: Its tracks.
    public init(segmentType: AssetSegmentType, trackReports: [AssetSegmentTrackReport]) {
        self.segmentType = segmentType
        self.trackReports = trackReports
    }
}

/// One track's part of a segment. `AVAssetSegmentTrackReport`.
public struct AssetSegmentTrackReport: Sendable, Equatable {
    /// The track's ID in the movie box. `trackID`.
    public var trackID: Int
    /// `.video` or `.audio`. `mediaType`.
    public var mediaType: MediaType
    /// The earliest presentation time of the track's samples in the segment, in the track's
    /// timescale (`.invalid` in an initialization segment). `earliestPresentationTimeStamp`.
    public var earliestPresentationTimeStamp: MediaTime
    /// How long the track's samples in the segment last. `duration`.
    public var duration: MediaTime
    /// The first video sample: when it shows, where its bytes are in the segment and
    /// whether it is a keyframe; nil for sound. `firstVideoSampleInformation`.
    public var firstVideoSampleInformation: AssetSegmentReportSampleInformation?

    /// A track report.
    /// - Parameters:
    ///   - trackID: The track's ID.
    ///   - mediaType: Video or audio.
    ///   - earliestPresentationTimeStamp: The earliest presentation time.
    ///   - duration: The samples' total duration.
    ///   - firstVideoSampleInformation: The first picture, for video.
    public init(
        trackID: Int, mediaType: MediaType, earliestPresentationTimeStamp: MediaTime, duration: MediaTime,
        firstVideoSampleInformation: AssetSegmentReportSampleInformation?
    ) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.earliestPresentationTimeStamp = earliestPresentationTimeStamp
        self.duration = duration
        self.firstVideoSampleInformation = firstVideoSampleInformation
    }
}

/// A sample's time and place in a segment. `AVAssetSegmentReportSampleInformation`.
public struct AssetSegmentReportSampleInformation: Sendable, Equatable {
    /// When the sample shows. `presentationTimeStamp`.
    public var presentationTimeStamp: MediaTime
    /// Where its bytes start, from the start of the segment's data. `offset`.
    public var offset: Int
    /// How many bytes it has. `length`.
    public var length: Int
    /// Whether it is a keyframe (a sync sample). `isSyncSample`.
    public var isSyncSample: Bool

    /// Sample information.
    /// - Parameters:
    ///   - presentationTimeStamp: When it shows.
    ///   - offset: Its first byte in the segment.
    ///   - length: Its size in bytes.
    ///   - isSyncSample: Whether it is a keyframe.
    public init(presentationTimeStamp: MediaTime, offset: Int, length: Int, isSyncSample: Bool) {
        self.presentationTimeStamp = presentationTimeStamp
        self.offset = offset
        self.length = length
        self.isSyncSample = isSyncSample
    }
}

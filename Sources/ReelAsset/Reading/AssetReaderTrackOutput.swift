public import ReelCore

/// Decoded samples of one track, read through an ``AssetReader``. `AVAssetReaderTrackOutput`.
///
/// Video comes as ``PixelBuffer``s from a pool, audio as ``AudioBuffer``s, each in a
/// ``SampleBuffer`` with exact presentation time and duration. Not thread-safe: read
/// each reader from one thread at a time.
public final class AssetReaderTrackOutput {
    public let track: AssetTrack
    public let videoSettings: VideoOutputSettings?
    public let audioSettings: AudioOutputSettings?
    /// Turn frames by the track's preferred transform, so they come out upright. Off by
    /// default, as in AVFoundation: the transform is reported, not applied.
    public var appliesPreferredTrackTransform = false
    /// Which pictures will be looked at, when the reader's caller knows in advance (an
    /// export asks for the picture on screen at each frame of its own grid): it is given a
    /// picture's presentation interval and says whether any time looked at falls in it. A
    /// picture that no such time falls in is neither converted nor handed out, and, when no
    /// other picture is predicted from it (H.264's non-reference B-frames), not decoded. So a
    /// fast-forward decodes only what its shown frames need. nil, the default, hands out
    /// every picture. Set it before the first sample is read.
    package var picturesWanted: (@Sendable (MediaTimeRange) -> Bool)?

    weak var reader: AssetReader?

    /// An output of `track`'s video in `settings`' format and size.
    /// - Parameters:
    ///   - track: A video track of the reader's asset.
    ///   - videoSettings: The pixel format and size to decode to.
    public init(track: AssetTrack, videoSettings: VideoOutputSettings) {
        self.track = track
        self.videoSettings = videoSettings
        audioSettings = nil
    }

    /// An output of `track`'s audio in `settings`' format, rate and channels.
    /// - Parameters:
    ///   - track: An audio track of the reader's asset.
    ///   - audioSettings: The sample format, rate and channels to decode to.
    public init(track: AssetTrack, audioSettings: AudioOutputSettings) {
        self.track = track
        self.audioSettings = audioSettings
        videoSettings = nil
    }

    /// An output in the decoder's own format: yuv420p for most video, float planar for AAC.
    /// - Parameter track: A track of the reader's asset.
    public convenience init(track: AssetTrack) {
        if track.mediaType == .audio {
            self.init(track: track, audioSettings: AudioOutputSettings())
        } else {
            self.init(track: track, videoSettings: VideoOutputSettings())
        }
    }

    /// The next sample, or nil when the track (or the reader's time range) is finished.
    /// `copyNextSampleBuffer()`.
    /// - Returns: The next decoded picture or run of sound, or nil at the end.
    /// - Throws: ``ReelError`` for a decode error, or `.invalidState` before `startReading()`.
    public func copyNextSampleBuffer() throws(ReelError) -> SampleBuffer? {
        guard let reader else {
            throw ReelError(.invalidState, "this output was not added to a reader")
        }
        return try reader.nextSample(for: self)
    }
}

package import ReelCore

/// What the demuxer knows about one stream, copied out of `AVStream` and
/// `AVCodecParameters` into Swift values.
package struct StreamInfo: Sendable {
    package var index: Int
    package var mediaType: MediaType
    /// FFmpeg's codec name (`h264`, `aac`, `ac3`…).
    package var codecName: String
    /// `avcodec_profile_name`, such as "High" or "LC".
    package var profileName: String?
    /// Four-character codec tag from the container (`avc1`, `hvc1`…).
    package var codecTag: String?
    package var timeBase: Rational
    /// Presentation time of the first frame, or invalid when the container does not say.
    package var startTime: MediaTime
    /// Length of the stream, or invalid when the container does not say.
    package var duration: MediaTime
    /// `nb_frames`, or 0 when unknown.
    package var frameCount: Int
    package var averageFrameRate: Rational
    /// `r_frame_rate`: the lowest rate that represents every timestamp exactly. A guess
    /// (`tbr`): a phone's jittered 30 fps says 120. Not for timing frames.
    package var baseFrameRate: Rational
    package var width: Int
    package var height: Int
    package var sampleAspectRatio: Rational
    /// FFmpeg's pixel-format name for video.
    package var pixelFormatName: String?
    package var sampleRate: Int
    package var channelCount: Int
    /// `av_channel_layout_describe`: `stereo`, `5.1(side)`…
    package var channelLayoutName: String?
    /// FFmpeg's sample-format name for audio.
    package var sampleFormatName: String?
    /// Bits per second, or 0 when unknown.
    package var bitRate: Int64
    package var language: String?
    /// The display matrix side data as a transform, when the stream has one.
    package var displayMatrix: AffineTransform?
    package var isDefault: Bool
    /// Stream-level metadata tags.
    package var metadata: [String: String]
    /// The frames' typical spacing from the container's index of every sample (MP4, MOV):
    /// the mean of the gaps between successive frames, leaving out pauses longer than twice
    /// the median gap. Invalid when the index does not list every frame (Matroska's cues).
    package var activeFrameDuration: MediaTime = .invalid
}

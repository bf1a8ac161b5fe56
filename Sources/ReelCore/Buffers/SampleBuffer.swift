/// One timed unit of media: a picture or a run of audio, with its presentation time
/// and duration. The counterpart of `CMSampleBuffer` for decoded media.
public struct SampleBuffer: Sendable {
    /// What the sample holds.
    public enum Content: Sendable {
        case video(PixelBuffer)
        case audio(AudioBuffer)
    }

    public var content: Content
    /// When the sample is presented. `CMSampleBufferGetPresentationTimeStamp`.
    public var presentationTime: MediaTime
    /// How long it lasts; for video, until the next frame. `CMSampleBufferGetDuration`.
    public var duration: MediaTime

    /// A sample of either kind.
    /// - Parameters:
    ///   - content: The picture or the sound.
    ///   - presentationTime: When it is presented.
    ///   - duration: How long it lasts.
    public init(content: Content, presentationTime: MediaTime, duration: MediaTime) {
        self.content = content
        self.presentationTime = presentationTime
        self.duration = duration
    }

    /// A picture sample.
    /// - Parameters:
    ///   - pixelBuffer: The picture.
    ///   - presentationTime: When it is shown.
    ///   - duration: How long it stays, until the next frame.
    public init(pixelBuffer: PixelBuffer, presentationTime: MediaTime, duration: MediaTime) {
        self.init(content: .video(pixelBuffer), presentationTime: presentationTime, duration: duration)
    }

    /// A sound sample, lasting as long as its frames at their rate.
    /// - Parameters:
    ///   - audioBuffer: The sound.
    ///   - presentationTime: When its first frame is heard.
    public init(audioBuffer: AudioBuffer, presentationTime: MediaTime) {
        self.init(content: .audio(audioBuffer), presentationTime: presentationTime, duration: audioBuffer.duration)
    }

    public var mediaType: MediaType {
        switch content {
        case .video: .video
        case .audio: .audio
        }
    }

    /// The picture, for a video sample. `CMSampleBufferGetImageBuffer`.
    public var pixelBuffer: PixelBuffer? {
        if case .video(let buffer) = content { return buffer }
        return nil
    }

    /// The audio, for an audio sample.
    public var audioBuffer: AudioBuffer? {
        if case .audio(let buffer) = content { return buffer }
        return nil
    }

    /// `[presentationTime, presentationTime + duration)`.
    public var timeRange: MediaTimeRange { MediaTimeRange(start: presentationTime, duration: duration) }
}

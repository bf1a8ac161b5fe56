package import ReelCore

/// A composition's pictures and mixed sound for a player (ReelPlayback): the export's own
/// renderers, opened at any time so that a seek need not decode from the start.
///
/// Reading goes forward from the time it was opened at; a player opens a new reader for a
/// seek backwards or far ahead.
package final class CompositionPlaybackReader {
    private let video: VideoRenderer?
    private let audio: AudioRenderer
    package let videoComposition: VideoComposition?
    /// The time the reader was opened at.
    package let startTime: MediaTime

    /// - Parameters:
    ///   - size: the output size in pixels; nil for the video composition's render size.
    ///   - readAhead: decoded frames each source may hold ready on its own thread.
    ///   - includesVideo: false for a reader of the sound alone (no decoder opens for pictures).
    package init(composition: MutableComposition, videoComposition: VideoComposition?, audioMix: AudioMix?,
                 size: (width: Int, height: Int)?, startingAt time: MediaTime, readAhead: Int = 0,
                 pitch: AudioTimePitchAlgorithm = .timeDomain, includesVideo: Bool = true) throws(ReelError) {
        startTime = time
        let hasVideo = includesVideo
            && composition.tracks(withMediaType: .video).contains { $0.segments.contains { !$0.isEmpty } }
        if hasVideo {
            let chosen = videoComposition ?? VideoComposition(propertiesOf: composition)
            try chosen.validate(for: composition)
            let width = size?.width ?? max(2, Int(chosen.renderSize.width.rounded()) & ~1)
            let height = size?.height ?? max(2, Int(chosen.renderSize.height.rounded()) & ~1)
            let renderer = try VideoRenderer(composition: composition, videoComposition: chosen, outputWidth: width,
                                             outputHeight: height, readAhead: readAhead)
            renderer.startTime = time
            video = renderer
            self.videoComposition = chosen
        } else {
            video = nil
            self.videoComposition = nil
        }
        audio = AudioRenderer(composition: composition, mix: audioMix, pitch: pitch)
    }

    deinit { video?.close() }

    /// The picture at composition time `time` (not earlier than the last one asked for);
    /// nil when the composition has no video.
    package func picture(at time: MediaTime) throws(ReelError) -> PixelBuffer? {
        try video?.frame(at: time)
    }

    /// Moves the pictures to composition time `time` (before or after the last one asked
    /// for), keeping the sources' files and decoders open: a seek then costs the decoding
    /// from the keyframe before `time` only, where a new reader would also open and probe
    /// each file and start its decoder threads.
    package func seekPictures(to time: MediaTime) throws(ReelError) {
        try video?.seek(to: time)
    }

    /// The mixed sound for 48 kHz samples `[start, start + count)` of the timeline, stereo float.
    package func sound(startSample start: Int64, count: Int) throws(ReelError) -> AudioBuffer {
        try audio.render(startSample: start, count: count)
    }

    package static var sampleRate: Int { AudioRenderer.sampleRate }

    package func close() { video?.close() }
}

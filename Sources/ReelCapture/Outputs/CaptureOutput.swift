import ReelCore

/// Somewhere a session's media goes: the data outputs, the movie file output and the
/// photo output. `AVCaptureOutput`.
public class CaptureOutput: @unchecked Sendable {
    /// The session the output was added to.
    weak var session: CaptureSession?
    /// The connections from the session's camera and microphone (``connection(with:)``).
    let videoConnection = CaptureConnection(mediaType: MediaType.video)
    let audioConnection = CaptureConnection(mediaType: MediaType.audio)

    init() {
        videoConnection.attach(self)
        audioConnection.attach(self)
    }

    /// A frame or a run of audio, on the session's queue for that medium.
    func deliver(_ sample: SampleBuffer) {}
    /// The session stopped running.
    func sessionDidStop() {}
    /// A device went away mid-capture.
    func sessionWasInterrupted(_ error: ReelError) {}
}

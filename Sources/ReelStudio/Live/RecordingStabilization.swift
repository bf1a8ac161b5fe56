import Foundation
import ReelCapture

/// The camera page's Stabilization switch: the mode the studio's recordings are steadied in
/// (their movie output's video connection's `preferredVideoStabilizationMode`), and when a
/// change reaches them.
///
/// - **On is `auto`**, AVFoundation's "the mode most appropriate for the device and format",
///   which Reel resolves to `standard` (±6 frames, a latency of 6). A switch has two states,
///   and `standard`'s latency is what a press-to-record shutter can bear: a release waits for
///   the held-back frames before the segment ends (0.2 s at 30 fps; `cinematic` would be 0.5 s).
/// - **The preview is not steadied**, as `AVCaptureVideoPreviewLayer` is not: the preview's
///   video data output keeps its connection off, so it stays as quick as the camera and
///   shows the whole picture while the recording is cropped 10 %.
/// - **A change while a segment records takes effect at the next one.** Changing a connection's
///   mode restarts its stabilizer, which would lose the frames in its window and move the 10 %
///   crop in or out within one shot; so the mode is put on the connection only between
///   segments (``ShortVideoDesk`` calls ``apply()`` before each starts and after each ends).
///   The connection's `activeVideoStabilizationMode` says what the recording has meanwhile.
final class RecordingStabilization: @unchecked Sendable {
    /// The mode the switch turns on.
    static let onMode: CaptureVideoStabilizationMode = .auto

    private let session: CaptureSession
    private let lock = NSLock()
    private var chosen: CaptureVideoStabilizationMode = .off

    init(session: CaptureSession) {
        self.session = session
    }

    /// The mode the switch is set to, which the next recording takes.
    var chosenMode: CaptureVideoStabilizationMode { lock.withLock { chosen } }

    /// Sets the switch; the recordings' connections take it at ``apply()``.
    func choose(_ mode: CaptureVideoStabilizationMode) { lock.withLock { chosen = mode } }

    /// The recordings' video connections: every movie file output's in the session.
    private var connections: [CaptureConnection] {
        session.outputs.compactMap { ($0 as? MovieFileOutput)?.connection(with: .video) }
    }

    /// Puts the chosen mode on the recordings' connections. Call it only while no segment
    /// records (a connection whose mode is already the chosen one is left as it is).
    func apply() {
        let mode = chosenMode
        for connection in connections where connection.preferredVideoStabilizationMode != mode {
            connection.preferredVideoStabilizationMode = mode
        }
    }

    /// The stabilization in effect on the recordings now (`activeVideoStabilizationMode`; off
    /// with no camera or a format that cannot be steadied).
    var active: CaptureVideoStabilizationMode { connections.first?.activeVideoStabilizationMode ?? .off }

    /// Whether the camera's format lets the recordings be steadied (`isVideoStabilizationSupported`).
    var isSupported: Bool { connections.first?.isVideoStabilizationSupported ?? false }
}

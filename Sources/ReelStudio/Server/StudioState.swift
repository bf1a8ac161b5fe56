import Foundation

/// What the pages show, as `GET /api/state` sends it and the `state` event pushes to
/// every page whenever it changes (without `status`, which has its own event).
struct StudioState: Encodable, Sendable {
    /// A preset as the picker shows it: what it records at most, in words.
    struct Preset: Encodable, Sendable {
        var id: String
        var label: String
    }

    struct Device: Encodable, Sendable {
        var id: String
        var name: String
    }

    /// One control the page offers; when the device lacks it, `supported` is false and
    /// `reason` says why in words.
    struct Control: Encodable, Sendable {
        var id: String
        var label: String
        var supported: Bool
        var reason: String?
        /// The camera's value now.
        var value: Double?
        /// Where a change under way settles (the zoom's ramp), which the page shows; nil when settled.
        var target: Double?
        var minimum: Double?
        var maximum: Double?
        var options: [String]?
        var option: String?
        /// Words shown under a control that is offered: what it does, or when a change takes effect.
        var note: String?
        /// The mode in effect where it can differ from the one chosen (Stabilization: the
        /// recordings' `activeVideoStabilizationMode`, `off` or `standard`).
        var active: String?
    }

    var cameras: [Device]
    var microphones: [Device]
    var camera: String
    var microphone: String
    var presets: [String]
    var presetChoices: [Preset]
    var preset: String
    var filters: [String]
    var filter: String
    var controls: [Control]
    var focus: DeviceControlPanel.Focus
    var segmentLimit: Double
    /// The shortest hold that records.
    var shortestPress: Double
    /// The seconds a saved replay keeps (`--replay-buffer`); nil without a replay buffer.
    var replaySeconds: Double?
    /// The export under way or the last one, with its request, progress and result.
    var compose: ComposeDesk.Job?
    var status: StudioStatus?
}

/// The live line under the preview, sent four times a second as the `status` event.
struct StudioStatus: Encodable, Sendable {
    var running: Bool
    var frameRate: Double
    var width: Int
    var height: Int
    var deliveredFrames: Int
    var droppedFrames: Int
    /// The number of the newest frame the camera made (delivered and dropped ones counted).
    var captureFrameIndex: Int
    var previewFrames: Int
    var previewDrops: Int
    var previewViewers: Int
    var encodeMilliseconds: Double
    /// The capture's frame number of the newest preview picture.
    var previewFrameIndex: Int64?
    var recording: Bool
    /// The page whose press is recording; nil for none or an API client.
    var recordingPage: String?
    var recordedSeconds: Double
    var segments: Int
    /// Where each segment ends, in seconds from the start of the short video.
    var segmentEnds: [Double]
    /// 0…1 of the 15 s a short video may last.
    var progress: Double
    /// The microphone's average power over the last quarter second, in dBFS (−120 for
    /// silence); nil with no microphone or none delivering sound.
    var microphoneLevel: Double?
    /// The loudest sample of the last second, in dBFS.
    var microphonePeak: Double?
    var errors: [String]
}

public import ReelCore

extension CaptureOutput {
    /// The media this kind of output takes.
    var acceptedMediaTypes: [MediaType] {
        switch self {
        case is MovieFileOutput: [.video, .audio]
        case is AudioDataOutput: [.audio]
        case is VideoDataOutput, is PhotoOutput: [.video]
        default: []
        }
    }

    /// The connection of `mediaType` to this output, or nil when the output takes no such
    /// medium or is in no session with an input giving it. `connection(with:)`.
    /// - Parameter mediaType: `.video` or `.audio`.
    /// - Returns: The connection carrying that medium to this output, whose orientation,
    ///   mirroring and stabilization the output applies; nil when there is none now.
    public func connection(with mediaType: MediaType) -> CaptureConnection? {
        guard acceptedMediaTypes.contains(mediaType), let session,
              session.inputs.contains(where: { $0.device.hasMediaType(mediaType) })
        else { return nil }
        return mediaType == .video ? videoConnection : audioConnection
    }

    /// The output's connections now. `connections`.
    public var connections: [CaptureConnection] { [MediaType.video, .audio].compactMap { connection(with: $0) } }

    /// Hands `sample` on through its connection: nothing when the connection is disabled;
    /// a picture steadied when stabilization is active, and, for a video data output,
    /// turned and mirrored as the connection says (the others carry that as metadata).
    /// Runs on the session's queue for the medium.
    func deliverThroughConnection(_ sample: SampleBuffer) {
        let connection = sample.mediaType == .video ? videoConnection : audioConnection
        guard connection.isEnabled else { return }
        guard sample.mediaType == .video, !(self is PhotoOutput) else { return deliver(sample) }
        var shown = sample
        let mode = connection.activeVideoStabilizationMode
        if mode != .off {
            let stabilizer = connection.state.withLock { state -> LiveStabilizer? in
                if state.stabilizer == nil { state.stabilizer = LiveStabilizer(mode: mode) }
                return state.stabilizer
            }
            if let stabilizer {
                do throws(ReelError) {
                    guard let steadied = try stabilizer.process(sample) else { return }
                    shown = steadied
                } catch {
                    session?.post(CaptureSession.runtimeErrorNotification, userInfo: [CaptureSession.errorKey: error])
                }
            }
        }
        if self is VideoDataOutput {
            let orientation = connection.displayOrientation
            if orientation != .up, let picture = shown.pixelBuffer, let turned = try? picture.oriented(orientation) {
                shown = SampleBuffer(pixelBuffer: turned, presentationTime: shown.presentationTime, duration: shown.duration)
            }
        }
        deliver(shown)
    }
}

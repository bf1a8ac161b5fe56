import Foundation
import ReelCapture
import ReelCore
import ReelFilters

/// The session that `record`, `photo` and `shoot` build from `--device`, `--mic`,
/// `--preset`, `--fps` and `--filter`.
enum CaptureSetup {
    static func session(_ arguments: ParsedArguments, command: String, defaultPreset: CaptureSession.Preset = .hd1280x720,
                        microphone: Bool = true) throws -> (CaptureSession, CaptureDevice) {
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: arguments.value("device") ?? "virtual:camera")
        let presetName = arguments.value("preset") ?? defaultPreset.rawValue
        guard let preset = CaptureSession.Preset.allCases.first(where: { $0.rawValue == presetName }) else {
            throw UsageError("--preset is one of \(CaptureSession.Preset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(presetName)'",
                             command: command)
        }
        if let fps = try arguments.double("fps", in: 1...240) {
            // The widest format that reaches the rate, as the slow-motion recipe picks.
            if !(camera.activeFormat?.supports(frameRate: fps) ?? false) { try camera.configureForHighFrameRate(preferring: [fps]) }
            try camera.setFrameRate(fps)
        }
        try session.add(try CaptureDeviceInput(device: camera))
        if microphone, arguments.value("mic") != "none" {
            let mic = try CaptureDevice.device(withUniqueID: arguments.value("mic") ?? "virtual:microphone")
            if mic.uniqueID != camera.uniqueID { try session.add(try CaptureDeviceInput(device: mic)) }
        }
        guard session.canSetSessionPreset(preset) else {
            throw ReelError(.unsupported, "the camera has no format for the \(preset.rawValue) preset", subject: camera.uniqueID)
        }
        session.sessionPreset = preset
        if let chain = arguments.value("filter") {
            do {
                session.videoFilter = try FilterChain(spec: chain)
            } catch {
                throw UsageError("--filter: \(error.message)", command: command)
            }
        }
        return (session, camera)
    }
}

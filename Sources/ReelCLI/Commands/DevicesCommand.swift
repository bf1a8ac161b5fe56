import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelCore
import ReelFilters

/// `reel devices [--json]`: the capture devices and their formats.
struct DevicesCommand: Command {
    let spec = CommandSpec(name: "devices", abstract: "List capture devices, their formats and controls.", usage: "[--json]",
                           positionals: 0...0, options: [.flag("json", help: "Print a JSON list.")],
                           discussion: "Lists the virtual devices, PulseAudio sources (pulse:NAME, pulse:default), ALSA capture "
                           + "devices (alsa:NAME), X11 displays (x11:DISPLAY) and V4L2 cameras (v4l2:/dev/videoN). "
                           + "file:PATH also works as a camera: it plays the file as a live source, looping.")

    struct Entry: Encodable {
        var id: String
        var name: String
        var mediaType: String
        var deviceType: String
        var position: String
        var authorized: Bool
        var formats: [CaptureDevice.Format]
        var controls: [Control]
    }

    /// One control with its range and current value, as `reel devices` shows it.
    struct Control: Encodable {
        var name: String
        var modes: [String]?
        var current: String
        var range: [Double]?
    }

    static func controls(of device: CaptureDevice) -> [Control] {
        var controls: [Control] = []
        let format = device.activeFormat
        if device.isFocusModeSupported(.autoFocus) {
            controls.append(Control(name: "focus", modes: CaptureDevice.FocusMode.allCases.map(\.rawValue),
                                    current: "\(device.focusMode.rawValue), lens \(Format.number(Double(device.lensPosition)))",
                                    range: [0, 1]))
        }
        if device.isExposureModeSupported(.custom), let format {
            controls.append(Control(name: "exposure", modes: CaptureDevice.ExposureMode.allCases.map(\.rawValue),
                                    current: "\(device.exposureMode.rawValue), \(Format.number(device.exposureDuration.seconds)) s",
                                    range: [format.minExposureSeconds, format.maxExposureSeconds]))
            controls.append(Control(name: "iso", current: Format.number(Double(device.iso)),
                                    range: [Double(format.minISO), Double(format.maxISO)]))
        }
        if device.maxAvailableVideoZoomFactor > 1 {
            controls.append(Control(name: "zoom", current: Format.number(device.videoZoomFactor),
                                    range: [1, device.maxAvailableVideoZoomFactor]))
        }
        if device.isWhiteBalanceModeSupported(.locked) {
            let values = device.temperatureAndTintValues
            controls.append(Control(name: "whiteBalance", modes: CaptureDevice.WhiteBalanceMode.allCases.map(\.rawValue),
                                    current: "\(device.whiteBalanceMode.rawValue), \(Int(values.temperature)) K",
                                    range: [2000, 10000]))
        }
        if device.hasTorch {
            controls.append(Control(name: "torch", modes: CaptureDevice.TorchMode.allCases.map(\.rawValue),
                                    current: device.torchMode.rawValue, range: [0, 1]))
        }
        if device.hasFlash {
            controls.append(Control(name: "flash", modes: CaptureDevice.FlashMode.allCases.map(\.rawValue), current: "off"))
        }
        return controls
    }

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let entries = CaptureDevice.devices.map {
            Entry(id: $0.uniqueID, name: $0.localizedName, mediaType: $0.mediaType.rawValue, deviceType: $0.deviceType.rawValue,
                  position: $0.position.rawValue, authorized: $0.isAuthorized, formats: $0.formats, controls: Self.controls(of: $0))
        }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            console.print(String(decoding: try encoder.encode(entries), as: UTF8.self))
        } else {
            for entry in entries {
                console.print("\(entry.id)  \(entry.name) (\(entry.mediaType), \(entry.position))")
                for format in entry.formats where format.width > 0 {
                    console.print("    \(format)")
                }
                for control in entry.controls {
                    // Exposure times read best as shutter speeds: 1/8000-1/30.
                    let number = { (value: Double) in
                        control.name == "exposure" && value > 0 && value < 1 ? "1/\(Int((1 / value).rounded()))" : Format.number(value)
                    }
                    let range = control.range.map { " [\($0.map(number).joined(separator: "-"))]" } ?? ""
                    let modes = control.modes.map { " (\($0.joined(separator: ", ")))" } ?? ""
                    console.print("    \(control.name): \(control.current)\(range)\(modes)")
                }
            }
        }
        return 0
    }
}


import ReelCapture

/// `--orientation` and `--stabilization`, which `record` and `photo` set on their output's
/// video connection (and `studio` takes `--orientation` for its recordings and photos).
enum ConnectionOptions {
    static let orientation = OptionSpec.value(
        "orientation", "HELD",
        help: "How the device is held: auto (iio-sensor-proxy's accelerometer), portrait, portrait-upside-down, "
            + "landscape-left, landscape-right (the default: the sensor's own way, no turn).")
    static let stabilization = OptionSpec.value(
        "stabilization", "MODE", help: "off (default), standard, cinematic or auto: steadied live, with a 10 % crop.")

    static let heldNames: [String: DeviceOrientation] = [
        "portrait": .portrait, "portrait-upside-down": .portraitUpsideDown, "landscape-left": .landscapeLeft,
        "landscape-right": .landscapeRight,
    ]
    static let modeNames = Dictionary(uniqueKeysWithValues: CaptureVideoStabilizationMode.allCases.map { ($0.name, $0) })

    /// `--orientation` for the studio: nil for none, a fixed way up, or iio-sensor-proxy's
    /// accelerometer for `auto` (read at each photo and each new video; says on stderr when
    /// there is none, and then nothing is turned).
    /// - Throws: ``UsageError`` for a value that is not one of the names.
    static func held(_ arguments: ParsedArguments, command: String,
                     console: Console) throws -> (held: DeviceOrientation?, source: (any OrientationSource)?) {
        guard let name = arguments.value("orientation") else { return (nil, nil) }
        if name == "auto" {
            if let sensor = SensorProxyAccelerometer() { return (nil, sensor) }
            console.printError("reel \(command): --orientation auto: no accelerometer (iio-sensor-proxy); recording unturned")
            return (nil, nil)
        }
        guard let named = heldNames[name] else {
            throw UsageError("--orientation is auto, \(heldNames.keys.sorted().joined(separator: ", ")), not '\(name)'",
                             command: command)
        }
        return (named, nil)
    }

    /// Sets `connection` from the options; says on stderr when `auto` finds no accelerometer.
    static func apply(_ arguments: ParsedArguments, to connection: CaptureConnection?, command: String,
                      console: Console) throws {
        guard let connection else { return }
        if let name = arguments.value("orientation") {
            let held: DeviceOrientation
            if name == "auto" {
                if let sensor = SensorProxyAccelerometer() {
                    held = sensor.orientation
                } else {
                    console.printError("reel \(command): --orientation auto: no accelerometer (iio-sensor-proxy); recording unturned")
                    held = .landscapeLeft
                }
            } else if let named = heldNames[name] {
                held = named
            } else {
                throw UsageError("--orientation is auto, \(heldNames.keys.sorted().joined(separator: ", ")), not '\(name)'",
                                 command: command)
            }
            if let orientation = CaptureVideoOrientation(held) { connection.videoOrientation = orientation }
        }
        if let name = arguments.value("stabilization") {
            guard let mode = modeNames[name] else {
                throw UsageError("--stabilization is off, standard, cinematic or auto, not '\(name)'", command: command)
            }
            connection.preferredVideoStabilizationMode = mode
        }
    }
}

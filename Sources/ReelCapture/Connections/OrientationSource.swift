import Foundation
import ReelCore

/// Something that knows which way up the device is: Core Motion's gravity in seed 003.
public protocol OrientationSource: AnyObject, Sendable {
    /// The orientation now; ``DeviceOrientation/unknown`` when the source cannot tell.
    var orientation: DeviceOrientation { get }
}

/// An accelerometer tests (and the virtual cameras) tilt by hand: it reads whatever
/// gravity it was last given. `CMMotionManager.deviceMotion.gravity` for a machine
/// without a sensor.
public final class VirtualAccelerometer: OrientationSource {
    /// Gravity in g: x to the right of the screen, y up it, z out of it.
    public struct Gravity: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public var z: Double

        /// Gravity with these components.
        /// - Parameters:
        ///   - x: Along the screen's width, in g (positive to the right).
        ///   - y: Along the screen's height, in g (positive up).
        ///   - z: Out of the screen, in g (positive towards the viewer).
        public init(x: Double, y: Double, z: Double) {
            self.x = x
            self.y = y
            self.z = z
        }
    }

    private let state: PosixMutex<Gravity>

    /// A sensor held upright (gravity straight down the screen).
    /// - Parameter gravity: The first reading; the default is a device held upright in portrait.
    public init(gravity: Gravity = Gravity(x: 0, y: -1, z: 0)) {
        state = PosixMutex(gravity)
    }

    /// The gravity the sensor reads. `deviceMotion.gravity`.
    public var gravity: Gravity {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Holds the device `orientation` way up: gravity along the edge that is then down.
    /// - Parameter orientation: The way up to simulate; ``DeviceOrientation/unknown`` gives no
    ///   gravity at all, so that ``DeviceOrientation/init(gravityX:y:z:)`` reads it as unknown.
    public func tilt(to orientation: DeviceOrientation) {
        gravity =
            switch orientation {
            case .portrait: Gravity(x: 0, y: -1, z: 0)
            case .portraitUpsideDown: Gravity(x: 0, y: 1, z: 0)
            case .landscapeLeft: Gravity(x: -1, y: 0, z: 0)
            case .landscapeRight: Gravity(x: 1, y: 0, z: 0)
            case .faceUp: Gravity(x: 0, y: 0, z: -1)
            case .faceDown: Gravity(x: 0, y: 0, z: 1)
            case .unknown: Gravity(x: 0, y: 0, z: 0)
            }
    }

    /// The orientation the seed's mapping gives for the current gravity.
    public var orientation: DeviceOrientation {
        let g = gravity
        return DeviceOrientation(gravityX: g.x, y: g.y, z: g.z)
    }
}

/// The accelerometer of a Linux tablet or phone, through iio-sensor-proxy on the system
/// bus (`net.hadess.SensorProxy`): the accelerometer is claimed once, and each read asks
/// for its `AccelerometerOrientation` (with `gdbus`, which GLib installs).
public final class SensorProxyAccelerometer: OrientationSource {
    static let gdbus = "/usr/bin/gdbus"
    private let claimed = PosixMutex(false)
    /// `--system`, or `--address ADDRESS` for another bus.
    private let bus: [String]

    /// The sensor, or nil when this machine has no iio-sensor-proxy with an accelerometer
    /// (no system bus, no service, or `HasAccelerometer` false).
    public convenience init?() {
        self.init(busAddress: nil)
    }

    /// The sensor on the bus at `busAddress` (a D-Bus address such as `unix:path=/run/bus`),
    /// or on the system bus when it is nil (which `DBUS_SYSTEM_BUS_ADDRESS` can move); nil
    /// when that bus has no iio-sensor-proxy with an accelerometer.
    public init?(busAddress: String?) {
        bus = busAddress.map { ["--address", $0] } ?? ["--system"]
        guard FileManager.default.isExecutableFile(atPath: Self.gdbus),
              let has = property("HasAccelerometer"), has.contains("true")
        else { return nil }
    }

    public var orientation: DeviceOrientation {
        let claim = claimed.withLock { wasClaimed in
            defer { wasClaimed = true }
            return !wasClaimed
        }
        if claim {
            _ = Self.run(["call"] + bus + ["--dest", "net.hadess.SensorProxy", "--object-path", "/net/hadess/SensorProxy",
                                           "--method", "net.hadess.SensorProxy.ClaimAccelerometer"])
        }
        return property("AccelerometerOrientation").flatMap(DeviceOrientation.init(sensorProxyName:)) ?? .unknown
    }

    /// A property of the proxy as gdbus prints it (`(<'normal'>,)`), or nil.
    private func property(_ name: String) -> String? {
        Self.run(["call"] + bus + ["--dest", "net.hadess.SensorProxy", "--object-path", "/net/hadess/SensorProxy",
                                   "--method", "org.freedesktop.DBus.Properties.Get", "net.hadess.SensorProxy", name])
    }

    /// gdbus's output, or nil when it failed (within two seconds).
    private static func run(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdbus)
        process.arguments = [arguments[0], "--timeout", "2"] + arguments.dropFirst()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

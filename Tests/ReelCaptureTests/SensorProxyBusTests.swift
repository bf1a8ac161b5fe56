import Foundation
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// iio-sensor-proxy over a real D-Bus: a private `dbus-daemon` started by the test, with
/// python3-dbusmock's `iio-sensors-proxy` template serving `net.hadess.SensorProxy` on it.
/// The mock's `AccelerometerOrientation` is changed through its own D-Bus interface
/// (`org.freedesktop.DBus.Mock.SetInternalProperty`), as the real daemon changes it when
/// the device turns, and each change must reach ``DeviceOrientation`` (in process) and
/// `reel record --orientation auto`'s display matrix (the CLI on `DBUS_SYSTEM_BUS_ADDRESS`).
@Suite(.serialized, .enabled(if: SensorProxyBus.available, Comment(rawValue: SensorProxyBus.missing)))
struct SensorProxyBusTests {
    @Test func orientationChangesReachDeviceOrientation() throws {
        let bus = try SensorProxyBus(orientation: "normal")
        defer { bus.stop() }
        let sensor = try #require(SensorProxyAccelerometer(busAddress: bus.address), "the mock has an accelerometer")
        #expect(sensor.orientation == .portrait)
        for (name, expected) in [("left-up", DeviceOrientation.landscapeRight), ("bottom-up", .portraitUpsideDown),
                                 ("right-up", .landscapeLeft), ("normal", .portrait), ("undefined", .unknown)] {
            try bus.turn(to: name)
            #expect(sensor.orientation == expected, "\(name)")
        }
        // The accelerometer was claimed once, as iio-sensor-proxy asks of its readers.
        let calls = bus.log.split(separator: "\n").filter { $0.contains("ClaimAccelerometer") }
        #expect(calls.count == 1, "\(bus.log)")
    }

    @Test func noAccelerometerOnTheBusMeansNoSensor() throws {
        let bus = try SensorProxyBus(orientation: "normal", hasAccelerometer: false)
        defer { bus.stop() }
        #expect(SensorProxyAccelerometer(busAddress: bus.address) == nil)
    }

    @Test func recordAutoFollowsTheBus() throws {
        let bus = try SensorProxyBus(orientation: "normal")
        defer { bus.stop() }
        let directory = try Paths.temporaryDirectory("reel-sensor-proxy-record")
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        for (name, rotation) in [("normal", -90.0), ("right-up", 0.0)] {
            try bus.turn(to: name)
            let out = directory.appendingPathComponent("held-\(name).mp4")
            let result = try ProcessRunner.run(Paths.reelBinary.path, [
                "record", "-o", out.path, "--device", "virtual:camera", "--mic", "none", "--preset", "640x480",
                "--orientation", "auto", "--max-duration", "0.5",
            ], timeout: 60, environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            let stream = try #require(try FFprobe.probe(out).streams(ofType: "video").first)
            #expect(stream.rotation == rotation, "held \(name): rotation \(stream.rotation)")
        }
    }
}

/// A private D-Bus daemon with python3-dbusmock's iio-sensor-proxy on it; both stopped by ``stop()``.
final class SensorProxyBus {
    static let python = "/usr/bin/python3"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: SensorProxyAccelerometer.gdbus)
            && (try? ProcessRunner.run(python, ["-c", "import dbusmock"], timeout: 20).status) == 0
    }
    static let missing = "needs dbus-daemon, gdbus and python3-dbusmock (make deps installs them)"

    let address: String
    private let directory: URL
    private let logFile: URL
    /// The methods the mock was called with, one a line (dbusmock's log).
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
    private let daemon = Process()
    private let mock = Process()

    /// Starts the bus and the mock with `orientation` ("normal", "left-up", …) and waits until it answers.
    init(orientation: String, hasAccelerometer: Bool = true) throws {
        directory = try Paths.temporaryDirectory("reel-dbus")
        address = "unix:path=\(directory.appendingPathComponent("bus").path)"
        logFile = directory.appendingPathComponent("mock.log")
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        let parameters = "{\"has_accelerometer\": \(hasAccelerometer), \"accelerometer_orientation\": \"\(orientation)\"}"
        mock.executableURL = URL(fileURLWithPath: Self.python)
        mock.arguments = ["-m", "dbusmock", "--system", "--template", "iio-sensors-proxy", "--parameters", parameters,
                          "--logfile", logFile.path]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        mock.environment = environment
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle.nullDevice
        // The daemon's socket first, then the mock's name on it.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("bus").path), Date() < deadline {
            usleep(20_000)
        }
        try mock.run()
        while try call("org.freedesktop.DBus.Properties.Get", ["net.hadess.SensorProxy", "HasAccelerometer"]) == nil {
            guard Date() < deadline, mock.isRunning else {
                stop()
                throw TestFailure("python3-dbusmock's iio-sensors-proxy did not come up on \(address)")
            }
            usleep(50_000)
        }
    }

    /// Sets the mock's `AccelerometerOrientation`, as the real daemon does when the device turns.
    func turn(to orientation: String) throws {
        guard try call("org.freedesktop.DBus.Mock.SetInternalProperty",
                       ["net.hadess.SensorProxy", "AccelerometerOrientation", "<'\(orientation)'>"]) != nil
        else { throw TestFailure("the mock refused AccelerometerOrientation \(orientation)") }
    }

    /// A method of the mock's object through gdbus, its answer or nil when it failed.
    func call(_ method: String, _ arguments: [String]) throws -> String? {
        let result = try ProcessRunner.run(SensorProxyAccelerometer.gdbus, [
            "call", "--address", address, "--timeout", "5", "--dest", "net.hadess.SensorProxy",
            "--object-path", "/net/hadess/SensorProxy", "--method", method,
        ] + arguments, timeout: 20)
        return result.status == 0 ? result.standardOutput : nil
    }

    /// Kills both (SIGKILL: under the test runner SIGTERM left both running).
    func stop() {
        for process in [mock, daemon] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

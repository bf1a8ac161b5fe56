public import Foundation

/// A daemon a device test starts and must stop: PulseAudio with a null sink, or Xvfb.
/// `stop()` kills it (SIGTERM, then SIGKILL) and removes its directory; call it in a defer.
///
/// Started with posix_spawn, not Foundation's Process: PulseAudio closes the descriptors
/// it inherits, which Process takes for the child's exit and then blocks its run loop in
/// waitpid, hanging every later Process.
public final class DeviceServer: @unchecked Sendable {
    private let pid: pid_t
    public let directory: URL
    /// Files the daemon leaves when killed (Xvfb's lock and socket).
    private let leftovers: [String]

    private init(pid: pid_t, directory: URL, leftovers: [String] = []) {
        self.pid = pid
        self.directory = directory
        self.leftovers = leftovers
    }

    private static func spawn(_ path: String, _ arguments: [String], environment: [String: String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // The daemon outlives the test that starts it, and the suites run in parallel: any other
        // descriptor it inherited (a test's socket, a pipe another child writes to) would stay
        // open as long as it runs, keeping a peer from seeing end-of-file.
        // glibc's close-from action is a GNU extension the Glibc module does not import.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestFailure("\(path): this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        let addCloseFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        guard addCloseFrom(&actions, 3) == 0 else { throw TestFailure("\(path): posix_spawn_file_actions_addclosefrom_np failed") }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv { free(argument) }
            for variable in envp { free(variable) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard result == 0 else { throw TestFailure("\(path): \(String(cString: strerror(result)))") }
        return pid
    }

    private var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Why a PulseAudio test cannot run here, or nil when it can.
    public static var pulseMissing: String? {
        ["/usr/bin/pulseaudio", "/usr/bin/paplay", "/usr/bin/pactl"].allSatisfy(FileManager.default.isExecutableFile)
            ? nil : "needs pulseaudio and pulseaudio-utils (make deps)"
    }

    /// Why an X11 test cannot run here, or nil when it can.
    public static var xvfbMissing: String? {
        ["/usr/bin/Xvfb", "/usr/bin/xsetroot"].allSatisfy(FileManager.default.isExecutableFile)
            ? nil : "needs xvfb and x11-xserver-utils (make deps)"
    }

    /// A private PulseAudio daemon (not the system one, no D-Bus, no autospawn) with a null
    /// sink named `sink`, listening on `socket`. `PULSE_SERVER=unix:<socket>` reaches it.
    /// - Parameter sinkOptions: more arguments of `module-null-sink` (`norewinds=1`: the
    ///   monitor then hears the sink as it plays, not what it renders ahead and rewinds).
    public static func pulseAudio(sink: String, sinkOptions: String = "") throws -> DeviceServer {
        let directory = try Paths.temporaryDirectory("reel-pulse")
        let socket = directory.appendingPathComponent("native").path
        // As root, --disallow-exit keeps a per-user daemon from refusing or exiting.
        let pid = try spawn("/usr/bin/pulseaudio", ["-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--disable-shm=yes",
                             "--use-pid-file=no", "-L", "module-null-sink sink_name=\(sink) rate=48000 \(sinkOptions)",
                             "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socket)"],
                            environment: ["HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                                          "PULSE_RUNTIME_PATH": directory.path, "PATH": "/usr/bin:/bin"])
        let server = DeviceServer(pid: pid, directory: directory)
        let environment = ["PULSE_SERVER": "unix:\(socket)", "HOME": directory.path, "PATH": "/usr/bin:/bin"]
        try server.waitUntil("PulseAudio on \(socket)") {
            (try? ProcessRunner.run("/usr/bin/pactl", ["info"], timeout: 5, environment: environment))?.status == 0
        }
        return server
    }

    /// The address a client gives `PULSE_SERVER` for this daemon.
    public var pulseServer: String { "unix:\(directory.appendingPathComponent("native").path)" }

    /// An Xvfb server on `display` (such as 97) with one screen of `width`×`height`.
    public static func xvfb(display: Int, width: Int, height: Int) throws -> DeviceServer {
        let directory = try Paths.temporaryDirectory("reel-xvfb")
        let pid = try spawn("/usr/bin/Xvfb", [":\(display)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp",
                                               "-noreset"], environment: ["PATH": "/usr/bin:/bin"])
        let server = DeviceServer(pid: pid, directory: directory,
                                  leftovers: ["/tmp/.X\(display)-lock", "/tmp/.X11-unix/X\(display)"])
        try server.waitUntil("Xvfb :\(display)") {
            (try? ProcessRunner.run("/usr/bin/xsetroot", ["-display", ":\(display)", "-solid", "black"], timeout: 5))?.status == 0
        }
        return server
    }

    private func waitUntil(_ what: String, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(15)
        while !ready() {
            guard isRunning, Date() < deadline else {
                stop()
                throw TestFailure("\(what) did not start")
            }
            usleep(100_000)
        }
    }

    private var stopped = false

    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(3)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        try? FileManager.default.removeItem(at: directory)
        for path in leftovers { try? FileManager.default.removeItem(atPath: path) }
    }
}

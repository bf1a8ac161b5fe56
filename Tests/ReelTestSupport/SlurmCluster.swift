public import Foundation

/// A single-node Slurm cluster for tests, in a temporary folder: `munged` (as the `munge`
/// user, its own socket), `slurmctld -i` and `slurmd`, configured by a `slurm.conf` written
/// there (2 CPUs by Linux process tracking, no task plugin, consumable CPUs), on free ports.
/// ``stop()`` ends the three daemons by their process IDs and removes the folder.
///
/// The recipe is issue 20's, which started a cluster idle in 0.34 s on a 2-core box.
public final class SlurmCluster: @unchecked Sendable {
    public let folder: URL
    public let configuration: URL
    /// The node's name (this machine's short host name).
    public let nodeName: String
    private var stopped = false

    static let daemons = ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/scontrol"]

    /// Whether Slurm and munge are installed (`make deps` installs them), and the tests run as root.
    public static var available: Bool {
        daemons.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } && getuid() == 0
            && FileManager.default.fileExists(atPath: "/etc/munge/munge.key")
    }

    /// The reason printed when the Slurm tests are skipped.
    public static let missing = "needs slurmctld, slurmd, slurm-client and munge (make deps installs them) and root"

    /// The environment for Slurm's clients (and `reel --slurm`): this process's, with `SLURM_CONF`.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SLURM_CONF"] = configuration.path
        return environment
    }

    /// Seconds from starting the daemons to the node reported idle.
    public private(set) var startSeconds = 0.0

    /// Starts the cluster and waits (up to 30 s) for its node to be idle.
    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-slurm-\(UUID().uuidString.prefix(8))")
        let munge = folder.appendingPathComponent("munge")
        for sub in ["munge", "state", "spool"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        // munged refuses a socket folder others cannot reach, or one it does not own.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755, .ownerAccountName: "munge", .groupOwnerAccountName: "munge"],
                                              ofItemAtPath: munge.path)
        nodeName = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "localhost"
        let (controllerPort, nodePort) = Self.freePorts()
        let path = folder.path
        let text = """
            ClusterName=reeltest
            SlurmctldHost=\(nodeName)(127.0.0.1)
            SlurmUser=root
            SlurmdUser=root
            SlurmctldPort=\(controllerPort)
            SlurmdPort=\(nodePort)
            AuthType=auth/munge
            AuthInfo=socket=\(path)/munge/munge.socket,cred_expire=10
            StateSaveLocation=\(path)/state
            SlurmdSpoolDir=\(path)/spool
            SlurmctldPidFile=\(path)/slurmctld.pid
            SlurmdPidFile=\(path)/slurmd.pid
            SlurmctldLogFile=\(path)/slurmctld.log
            SlurmdLogFile=\(path)/slurmd.log
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            SchedulerParameters=sched_min_interval=100000
            ReturnToService=1
            MpiDefault=none
            JobCompType=jobcomp/none
            AccountingStorageType=accounting_storage/none
            MinJobAge=600
            NodeName=\(nodeName) NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
            PartitionName=test Nodes=\(nodeName) Default=YES MaxTime=INFINITE State=UP

            """
        configuration = folder.appendingPathComponent("slurm.conf")
        try Data(text.utf8).write(to: configuration)
        let started = Date()
        do {
            try Self.check(Self.daemon("/usr/sbin/runuser", [
                "-u", "munge", "--", "/usr/sbin/munged", "--socket=\(path)/munge/munge.socket", "--pid-file=\(path)/munge/munged.pid",
                "--log-file=\(path)/munge/munged.log", "--seed-file=\(path)/munge/munged.seed", "--key-file=/etc/munge/munge.key",
            ]), "munged")
            try Self.check(Self.daemon("/usr/sbin/slurmctld", ["-i", "-f", configuration.path], environment: environment), "slurmctld")
            try Self.check(Self.daemon("/usr/sbin/slurmd", ["-f", configuration.path, "-N", nodeName], environment: environment), "slurmd")
            let deadline = Date().addingTimeInterval(30)
            while true {
                let state = try ProcessRunner.run("/usr/bin/sinfo", ["-h", "-o", "%T"], environment: environment)
                if state.standardOutput.contains("idle") { break }
                guard Date() < deadline else {
                    throw SlurmClusterError("the node never became idle (sinfo: \(state.standardOutput)\(state.standardError))")
                }
                usleep(50_000)
            }
        } catch {
            stop()
            throw error
        }
        startSeconds = Date().timeIntervalSince(started)
    }

    deinit { stop() }

    /// Runs `scontrol` with `arguments` against this cluster.
    @discardableResult
    public func scontrol(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/scontrol", arguments, environment: environment)
    }

    /// Stops the daemons (slurmd, slurmctld, munged, by the IDs in their pid files) and removes the folder.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        for name in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 else { continue }
            kill(pid, SIGTERM)
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts a daemon that forks into the background: through bash, which first closes every
    /// descriptor above stderr, so that the daemon holds none of this process's (Foundation's
    /// Process learns that its child ended when the last copy of one of them closes, and the
    /// test runner waits for its pipes to close).
    private static func daemon(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        let script = #"for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null; exec "$@" </dev/null"#
        return try ProcessRunner.run("/bin/bash", ["-c", script, "bash", path] + arguments, timeout: 60, environment: environment)
    }

    private static func check(_ result: ProcessResult, _ name: String) throws {
        guard result.status == 0 else {
            throw SlurmClusterError("\(name) did not start (status \(result.status)): \(result.standardError)")
        }
    }

    /// Two ports nothing listens on, from the kernel's ephemeral range.
    private static func freePorts() -> (Int, Int) {
        func one() -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            return bound ? Int(UInt16(bigEndian: address.sin_port)) : Int.random(in: 20000...30000)
        }
        let first = one()
        var second = one()
        while second == first { second = one() }
        return (first, second)
    }
}

/// A cluster that would not start, with the daemon's words.
public struct SlurmClusterError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import ReelCore

/// The `reel` processes this one started for a job (a chunk, the sound, a batch line): when a
/// signal ends this process, they are stopped with it, so that none goes on writing after the
/// command has exited (each removes its own temporary files on SIGTERM, as this one does).
enum ChildProcesses {
    private static let running = PosixMutex((pids: Set<pid_t>(), stopping: false))

    /// Starts `process` and keeps its id until ``finished(_:)``.
    static func run(_ process: Process) throws {
        try process.run()
        running.withLock { _ = $0.pids.insert(process.processIdentifier) }
    }

    /// Forgets `process` once it has ended.
    static func finished(_ process: Process) {
        running.withLock { _ = $0.pids.remove(process.processIdentifier) }
    }

    /// Sends SIGTERM to every one still running and waits up to `patience` seconds for them to
    /// end (Foundation reaps them), then SIGKILL to any left. From the signal thread.
    static func stopAll(patience: Double = 5) {
        let pids = running.withLock { state in
            state.stopping = true
            return state.pids
        }
        guard !pids.isEmpty else { return }
        for pid in pids { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(patience)
        var left = pids
        while !left.isEmpty, Date() < deadline {
            left = left.filter { kill($0, 0) == 0 }
            if !left.isEmpty { usleep(20_000) }
        }
        for pid in left { kill(pid, SIGKILL) }
    }

    /// A worker that ended while a signal is stopping them all did not fail: the caller waits
    /// here for the signal's exit (128 + the signal) instead of reporting it.
    static func waitIfStopping() {
        while running.withLock({ $0.stopping }) { sleep(1) }
    }
}

import Foundation
import ReelAsset

/// Ctrl-C, SIGTERM and SIGHUP remove the files being written (never a destination,
/// never a kept fragmented recording), then exit as shells expect: 128 + the signal.
public enum SignalHandling {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var interruptHandler: (@Sendable () -> Void)?
    nonisolated(unsafe) private static var userHandler: (@Sendable () -> Void)?
    /// The pipe the C signal handler writes a signal's number to (the self-pipe trick: a
    /// write is all a signal handler may safely do).
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    /// Replaces the default (remove temporary files, exit) for the next signal: `reel record`
    /// stops and finishes its file instead.
    static func onInterrupt(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { interruptHandler = handler }
    }

    /// Runs `handler` at each SIGUSR1 (`reel record --replay-buffer` saves), from the signal
    /// thread; nil ignores it from then on (a late one must not end a recording being finished). Call after ``install()``.
    static func onUser1(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { userHandler = handler }
        var action = sigaction()
        if handler == nil {
            action.__sigaction_handler.sa_handler = SIG_IGN
        } else {
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalHandling.pipeWriteEnd, &byte, 1)
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGUSR1, &action, nil)
    }

    /// Call once at start-up, before any work.
    ///
    /// Not a dispatch signal source: those need the signal ignored first, and libdispatch
    /// installs its own handler a moment later, on its manager thread; a Ctrl-C in that
    /// moment (seen under load, as a recording began) was lost, and the recording went on.
    /// A handler installed here, at once, leaves no such moment.
    public static func install() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { handler(for: Int32(byte))() } else if count < 0, errno == EINTR { continue } else { return }
            }
        }
        reader.name = "reel.signal"
        reader.start()
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalHandling.pipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    private static func handler(for number: Int32) -> @Sendable () -> Void {
        {
            if number == SIGUSR1 {
                lock.withLock { userHandler }?()
                return
            }
            if let handler = lock.withLock({ interruptHandler }) {
                lock.withLock { interruptHandler = nil }
                handler()
                return
            }
            ChildProcesses.stopAll()
            InProgressFiles.removeAll()
            // _exit, not exit: the work threads are still running, and atexit handlers (static
            // destructors, LeakSanitizer's check) must not run under them. Output is unbuffered.
            _exit(128 + number)
        }
    }
}

import Dispatch
import Foundation
import ReelAsset

/// Ctrl-C, SIGTERM and SIGHUP remove the files being written (never a destination,
/// never a kept fragmented recording), then exit as shells expect: 128 + the signal.
public enum SignalHandling {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let lock = NSLock()
    nonisolated(unsafe) private static var interruptHandler: (@Sendable () -> Void)?

    /// Replaces the default (remove temporary files, exit) for the next signal: `reel record`
    /// stops and finishes its file instead.
    static func onInterrupt(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { interruptHandler = handler }
    }

    /// Call once at start-up, before any work.
    public static func install() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: DispatchQueue(label: "reel.signal"))
            source.setEventHandler(handler: Self.handler(for: number))
            source.resume()
            sources.append(source)
        }
    }

    private static func handler(for number: Int32) -> @Sendable () -> Void {
        {
            if let handler = lock.withLock({ interruptHandler }) {
                lock.withLock { interruptHandler = nil }
                handler()
                return
            }
            InProgressFiles.removeAll()
            // _exit, not exit: the work threads are still running, and atexit handlers (static
            // destructors, LeakSanitizer's check) must not run under them. Output is unbuffered.
            _exit(128 + number)
        }
    }
}

import Foundation

/// The one bridge from blocking work (an export, a writer's finish) to `async`: the work
/// runs on a thread of its own, so that Swift's cooperative threads never wait on it, and
/// cancelling the awaiting task calls `onCancel` (`cancelExport()`, `cancelWriting()`),
/// which makes the work stop soon and throw `.cancelled`.
package enum BlockingWork {
    /// Runs `body` on a new thread and returns its result.
    /// - Parameters:
    ///   - onCancel: Called once if the awaiting task is cancelled, before or while `body`
    ///     runs; it must be safe to call from any thread.
    ///   - body: The blocking work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package static func run<T: Sendable>(onCancel: @escaping @Sendable () -> Void,
                                         _ body: @escaping @Sendable () throws(ReelError) -> T) async throws(ReelError) -> T {
        let result: Result<T, ReelError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ReelError>, Never>) in
                Thread.detachNewThread {
                    continuation.resume(returning: Result { () throws(ReelError) -> T in try body() })
                }
            }
        } onCancel: {
            onCancel()
        }
        return try result.get()
    }
}

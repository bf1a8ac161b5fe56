#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a POSIX mutex, with `Synchronization.Mutex`'s `withLock`. The state
/// machines hold their state in one of these because the thread sanitizer sees
/// `pthread_mutex_lock` and `pthread_mutex_unlock` as the acquire and release they are,
/// while on this toolchain it does not see `Mutex`'s futex and reports the accesses inside
/// `withLock` as races (so `make sanitize` could not tell a real race from the lock). An
/// uncontended lock costs about what `Mutex` costs; the one allocation is made once.
package final class PosixMutex<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A mutex guarding `initialValue`.
    /// - Parameter initialValue: The value every ``withLock(_:)`` sees.
    package init(_ initialValue: Value) {
        value = initialValue
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock. Not reentrant: `body` must not
    /// take this lock again.
    /// - Parameter body: Reads or changes the value.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

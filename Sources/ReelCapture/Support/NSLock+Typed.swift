import Foundation
import ReelCore

extension NSLock {
    /// `withLock` for a body that throws ``ReelError``, keeping the error's type.
    func locked<T>(_ body: () throws(ReelError) -> T) throws(ReelError) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

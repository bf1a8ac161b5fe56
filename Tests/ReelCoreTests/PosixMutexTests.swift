import Foundation
import ReelCore
import Testing

/// The lock every state machine is held in: exact under contention from threads of their
/// own, typed errors through, and (under `make sanitize`) no report from the thread
/// sanitizer, which reported `Synchronization.Mutex`'s accesses as races.
@Suite struct PosixMutexTests {
    @Test func incrementsFromManyThreadsAreExact() {
        let count = PosixMutex(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<20_000 { count.withLock { $0 += 1 } }
                group.leave()
            }
        }
        group.wait()
        #expect(count.withLock { $0 } == 80_000)
    }

    @Test func aTypedErrorComesThroughAndTheLockIsLetGo() {
        let value = PosixMutex([1, 2])
        #expect(throws: ReelError.self) {
            try value.withLock { (numbers) throws(ReelError) -> Void in
                numbers.append(3)
                throw ReelError(.invalidState, "stop")
            }
        }
        #expect(value.withLock { $0 } == [1, 2, 3])
    }
}

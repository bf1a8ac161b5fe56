import Dispatch
import Foundation

/// Splits a picture's rows into one band per core and runs them at once: the filters
/// are memory-bound table passes, and two cores move twice the bytes.
enum ParallelRows {
    static let bands = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Calls `body` with disjoint row ranges that together cover `0..<rows`.
    /// Small pictures run on the calling thread.
    static func run(rows: Int, _ body: (Range<Int>) -> Void) {
        let count = rows >= 64 ? min(bands, rows) : 1
        if count == 1 {
            body(0..<rows)
            return
        }
        withoutActuallyEscaping(body) { body in
            // The bands touch disjoint rows, which is what makes sharing the closure safe.
            let shared = Band(work: body)
            DispatchQueue.concurrentPerform(iterations: count) { band in
                shared.work(rows * band / count..<rows * (band + 1) / count)
            }
        }
    }

    private struct Band: @unchecked Sendable {
        let work: (Range<Int>) -> Void
    }
}

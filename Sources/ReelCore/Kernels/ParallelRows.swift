import Dispatch
import Foundation

/// Splits a picture's rows into one band per core and runs them at once: the filters are
/// memory-bound table passes and the compositor's draws are per-row arithmetic, and two
/// cores do twice either. Shared by ReelFilters and ReelComposition.
package enum ParallelRows {
    /// The number of bands a large picture is cut into: one per active core.
    package static let bands = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// At most this many bands in this task (benchmarks compare one band with all).
    @TaskLocal package static var bandLimit = Int.max

    /// Calls `body` with disjoint row ranges that together cover `0..<rows`, at once on as
    /// many threads as there are cores; small pictures run on the calling thread.
    ///
    /// `body` must write only to rows of its range (or to what only those rows own, such as
    /// the chroma row under an even luma row): that is what makes sharing it safe.
    /// - Parameters:
    ///   - rows: how many rows there are.
    ///   - minimumRows: below this many rows the work is not worth a thread (64 by default).
    ///   - body: the work for a band of rows.
    package static func run(rows: Int, minimumRows: Int = 64, _ body: (Range<Int>) -> Void) {
        let count = rows >= max(minimumRows, 2) ? min(bands, rows, bandLimit) : 1
        if count <= 1 {
            body(0..<max(rows, 0))
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

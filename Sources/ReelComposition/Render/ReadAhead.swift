import Foundation
import ReelAsset
import ReelCore

/// The samples of one track output, in order, read ahead on a thread of their own into a
/// bounded queue: demuxing, decoding and scaling a source run beside the compositor and
/// the encoder instead of before them, and at most `capacity` decoded samples wait.
///
/// With a capacity of 0 nothing runs ahead: the output is read on the caller's thread,
/// when a sample is asked for. Either way the caller sees the same samples in the same
/// order, then nil at the end; a read that fails on the thread is thrown, once, by the
/// ``next()`` call that reaches it (after the samples read before it).
final class ReadAhead: @unchecked Sendable {
    /// What the thread reads from: the reader is kept alive beside its output.
    struct Reading {
        let reader: AssetReader
        let output: AssetReaderTrackOutput
    }

    let capacity: Int
    private let open: @Sendable () throws(ReelError) -> Reading

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [SampleBuffer] = []
    private var ended = false
    private var failure: ReelError?
    private var failureReported = false
    private var stopped = false
    private var running = false
    /// A restart asked for and not yet made by the thread, and the count of restarts asked
    /// for: a sample read before the latest restart is dropped, never queued.
    private var pendingRestart: MediaTime?
    private var generation = 0

    // The caller's thread only, when nothing runs ahead.
    private var inline: Reading?
    private var inlineRestart: MediaTime?

    /// - Parameters:
    ///   - capacity: how many samples may wait; 0 reads on the caller's thread instead.
    ///   - name: the thread's name, for profilers and debuggers.
    ///   - open: makes the reader and output, started; called once, on the thread that reads.
    init(capacity: Int, name: String, open: @escaping @Sendable () throws(ReelError) -> Reading) {
        self.capacity = max(0, capacity)
        self.open = open
        guard self.capacity > 0 else { return }
        running = true
        let thread = Thread { [self] in produce() }
        thread.name = name
        thread.start()
    }

    deinit { close() }

    /// The next sample, or nil when the output has ended.
    /// - Throws: the ``ReelError`` that stopped the reading, once; nil after that.
    func next() throws(ReelError) -> SampleBuffer? {
        if capacity == 0 { return try nextInline() }
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty || pendingRestart != nil, !ended || pendingRestart != nil, failure == nil, !stopped {
            condition.wait()
        }
        if !queue.isEmpty {
            // At most `capacity` samples wait: shifting them is cheaper than any bookkeeping.
            let sample = queue.removeFirst()
            condition.broadcast()
            return sample
        }
        if let failure, !failureReported {
            failureReported = true
            throw failure
        }
        return nil
    }

    /// Reads from `time` on instead (``AssetReader/restart(at:)``): what waits is dropped,
    /// and the next sample is the one on screen at `time`. The file and the decoder stay
    /// open, so a player's seek costs the decoding from the keyframe before `time` only.
    /// - Throws: the ``ReelError`` of the restart, when nothing runs ahead (else the next
    ///   ``next()`` throws it).
    func restart(at time: MediaTime) throws(ReelError) {
        if capacity == 0 {
            ended = false
            guard let inline else {
                inlineRestart = time // made as soon as the reader opens
                return
            }
            do throws(ReelError) { try inline.reader.restart(at: time) } catch {
                ended = true
                self.inline = nil
                throw error
            }
            return
        }
        condition.lock()
        defer { condition.unlock() }
        queue.removeAll()
        ended = false
        generation += 1
        pendingRestart = time
        condition.broadcast()
    }

    /// Stops reading and waits for the thread to let go of the file; queued samples are dropped.
    func close() {
        if capacity == 0 {
            inline?.reader.cancelReading()
            inline = nil
            return
        }
        condition.lock()
        stopped = true
        queue.removeAll()
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func nextInline() throws(ReelError) -> SampleBuffer? {
        guard !stopped, !ended else { return nil }
        do throws(ReelError) {
            let reading: Reading
            if let inline { reading = inline } else {
                reading = try open()
                inline = reading
                if let time = inlineRestart {
                    inlineRestart = nil
                    try reading.reader.restart(at: time)
                }
            }
            guard let sample = try reading.output.copyNextSampleBuffer() else {
                ended = true // the reader stays open for a restart
                return nil
            }
            return sample
        } catch {
            ended = true
            inline = nil
            throw error
        }
    }

    private func produce() {
        var reading: Reading?
        do throws(ReelError) {
            let opened = try open()
            reading = opened
            while true {
                condition.lock()
                while (queue.count >= capacity || ended) && pendingRestart == nil, !stopped { condition.wait() }
                let stop = stopped
                let restart = pendingRestart
                pendingRestart = nil
                let round = generation
                condition.unlock()
                if stop { break }
                if let restart { try opened.reader.restart(at: restart) }
                let sample = try opened.output.copyNextSampleBuffer()
                condition.lock()
                if stopped {
                    condition.unlock()
                    break
                }
                if round == generation, pendingRestart == nil {
                    if let sample { queue.append(sample) } else { ended = true }
                }
                condition.broadcast()
                condition.unlock()
            }
        } catch {
            condition.lock()
            failure = error
            condition.broadcast()
            condition.unlock()
        }
        reading?.reader.cancelReading()
        reading = nil
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}

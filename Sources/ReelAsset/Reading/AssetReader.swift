import ReelAV
public import ReelCore

/// Reads decoded media from an asset, one ``AssetReaderTrackOutput`` per track.
/// `AVAssetReader`.
///
/// Packets are read once, in file order, and handed to the outputs that want them;
/// streams no output reads are skipped by the demuxer. A ``timeRange`` seeks to the
/// keyframe before its start and yields exactly the frames whose presentation
/// interval overlaps it, and audio trimmed to the sample.
///
/// Not thread-safe: use a reader and its outputs from one thread at a time.
public final class AssetReader {
    /// `AVAssetReader.Status`.
    public enum Status: Sendable, Equatable {
        case unknown, reading, completed, failed, cancelled
    }

    public let asset: Asset
    /// What to read; the whole asset by default. Set before ``startReading()``.
    public var timeRange = MediaTimeRange(start: .zero, duration: .positiveInfinity)
    public private(set) var outputs: [AssetReaderTrackOutput] = []
    public private(set) var status: Status = .unknown
    /// Why the reader failed, when ``status`` is `.failed`.
    public private(set) var error: ReelError?

    private let demuxer: Demuxer
    private var lanes: [Int: ReaderLane] = [:] // by stream index
    private let packet: Packet
    private var demuxerAtEnd = false

    /// A reader of `asset`; opens the file.
    /// - Parameter asset: the asset whose tracks the outputs will read.
    /// - Throws: ``ReelError`` when the file cannot be opened.
    public init(asset: Asset) throws(ReelError) {
        self.asset = asset
        demuxer = try Demuxer(path: asset.url.path, probing: false, frameRate: asset.imageSequenceFrameRate)
        packet = try Packet()
    }

    /// Whether `output` can be added: before reading starts, one output per track.
    /// - Parameter output: an output of one of this reader's asset's tracks.
    /// - Returns: true when ``add(_:)`` would accept it.
    public func canAdd(_ output: AssetReaderTrackOutput) -> Bool {
        status == .unknown && output.reader == nil && !outputs.contains { $0.track.streamIndex == output.track.streamIndex }
            && asset.tracks.contains { $0.streamIndex == output.track.streamIndex }
    }

    /// Adds an output. `add(_:)`.
    /// - Parameter output: an output of one of this reader's asset's tracks.
    /// - Throws: ``ReelError`` `.invalidState` when ``canAdd(_:)`` is false.
    public func add(_ output: AssetReaderTrackOutput) throws(ReelError) {
        guard canAdd(output) else {
            throw ReelError(.invalidState, "cannot add an output for track \(output.track.trackID) to this reader",
                            subject: asset.url.path)
        }
        outputs.append(output)
        output.reader = self
    }

    /// Opens the decoders and seeks to the start of ``timeRange``. `startReading()`.
    /// - Throws: ``ReelError`` when a decoder cannot be opened or the range is invalid.
    public func startReading() throws(ReelError) {
        guard status == .unknown else {
            throw ReelError(.invalidState, "startReading() was already called", subject: asset.url.path)
        }
        do throws(ReelError) {
            guard timeRange.isValid, timeRange.start >= .zero else {
                throw ReelError(.invalidArgument, "time range \(timeRange) is not a valid range from zero on",
                                subject: asset.url.path)
            }
            for output in outputs {
                lanes[output.track.streamIndex] = try ReaderLane(output: output, demuxer: demuxer, range: timeRange)
            }
            for stream in demuxer.streams where lanes[stream.index] == nil {
                demuxer.setDiscarded(true, streamIndex: stream.index)
            }
            if timeRange.start > .zero, let first = outputs.first,
               !(try demuxer.seek(streamIndex: first.track.streamIndex, to: timeRange.start)) {
                demuxerAtEnd = true // no frame to start from: every output ends at once
            }
            status = .reading
        } catch {
            fail(error)
            throw self.error ?? error
        }
    }

    /// Reads from `time` on instead, keeping the file, the decoders and their threads open:
    /// the demuxer goes to the keyframe at or before `time` and every output starts again
    /// with the frame on screen there (a player's seek, without reopening anything). The
    /// range's end stays infinite. Like `AVAssetReaderOutput.resetForReading(timeRanges:)`,
    /// but allowed at any point while reading.
    /// - Throws: ``ReelError`` when the reader is not reading or the seek fails.
    package func restart(at time: MediaTime) throws(ReelError) {
        guard status == .reading || status == .completed else {
            throw ReelError(.invalidState, "restart(at:) needs a reader that has started", subject: asset.url.path)
        }
        guard time.isNumeric, time >= .zero else {
            throw ReelError(.invalidArgument, "time \(time) is not a time from zero on", subject: asset.url.path)
        }
        timeRange = MediaTimeRange(start: time, duration: .positiveInfinity)
        for lane in lanes.values { lane.restart(range: timeRange) }
        demuxerAtEnd = false
        do throws(ReelError) {
            if let first = outputs.first, !(try demuxer.seek(streamIndex: first.track.streamIndex, to: time)) {
                demuxerAtEnd = true
            }
        } catch {
            fail(error)
            throw self.error ?? error
        }
        status = .reading
    }

    /// Stops reading; later reads return nil. `cancelReading()`.
    public func cancelReading() {
        if status == .reading || status == .unknown { status = .cancelled }
        lanes.removeAll()
    }

    func nextSample(for output: AssetReaderTrackOutput) throws(ReelError) -> SampleBuffer? {
        switch status {
        case .unknown:
            throw ReelError(.invalidState, "call startReading() before copyNextSampleBuffer()", subject: asset.url.path)
        case .failed:
            throw error ?? ReelError(.invalidState, "the reader failed", subject: asset.url.path)
        case .cancelled, .completed:
            return nil
        case .reading:
            break
        }
        guard let lane = lanes[output.track.streamIndex] else { return nil }
        do throws(ReelError) {
            while true {
                if let sample = try lane.nextReadySample() { return sample }
                if lane.isFinished {
                    if lanes.values.allSatisfy(\.isFinished) { status = .completed }
                    return nil
                }
                try pump(for: lane)
            }
        } catch {
            fail(error)
            throw self.error ?? error
        }
    }

    /// Moves packets from the file to the lanes until `lane` has something to decode.
    private func pump(for lane: ReaderLane) throws(ReelError) {
        if lane.hasQueuedPackets {
            try lane.decodeQueued()
            return
        }
        if demuxerAtEnd {
            try lane.drain()
            return
        }
        while true {
            guard try demuxer.read(into: packet) else {
                demuxerAtEnd = true
                try lane.drain()
                return
            }
            guard let owner = lanes[packet.streamIndex], !owner.isFinished else { continue }
            try owner.enqueue(packet)
            if owner === lane {
                try lane.decodeQueued()
                return
            }
        }
    }

    private func fail(_ error: ReelError) {
        status = .failed
        self.error = error.about(asset.url.path)
        lanes.removeAll()
    }
}

public import Foundation
import ReelAV
public import ReelAsset
public import ReelCore

/// A slow-down that keeps every frame: the video's packets are copied with their
/// timestamps stretched, so no picture is decoded or encoded, and only the audio is
/// re-encoded, stretched with its pitch kept (`TimeStretcher`) or varispeed.
public enum StretchedCopy {
    /// Writes `asset` played at `rate` (below 1) to `url`.
    /// - Parameters:
    ///   - asset: The file to slow down.
    ///   - rate: The playback rate, 1/16 to below 1 (1/8 plays a 240 fps capture at 30 fps).
    ///   - url: The file to write.
    ///   - fileType: The container.
    ///   - pitch: How the sound is stretched: its pitch kept, or lowered with the rate.
    ///   - progress: Called with the progress, 0 to 1.
    /// - Throws: ``ReelError`` for a rate that is not a slow-down, or a read or write failure.
    ///   The output appears only when complete.
    public static func write(_ asset: Asset, rate: Double, to url: URL, fileType: FileType = .mp4,
                             pitch: AudioTimePitchAlgorithm = .timeDomain,
                             progress: (@Sendable (Double) -> Void)? = nil) throws(ReelError) {
        guard rate > 0, rate < 1, rate >= 1.0 / 16 else {
            throw ReelError(.invalidArgument, "a stretched copy slows down: the rate must be in 1/16..<1, not \(rate)",
                            subject: "rate")
        }
        guard let video = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: asset.url.path)
        }
        // rate = 1/4 → every timestamp × 4; other rates as the nearest fraction over 1000.
        let stretch = Self.fraction(1 / rate)
        let partial = TemporaryOutput(beside: url)
        let temporary = partial.url
        defer { partial.release() }
        do throws(ReelError) {
            let demuxer = try Demuxer(path: asset.url.path, probing: false, frameRate: asset.imageSequenceFrameRate)
            let muxer = try Muxer(path: temporary.path, formatName: fileType.muxerName)
            let videoOut = try muxer.addStream(copying: demuxer, streamIndex: video.streamIndex)
            if !video.preferredTransform.isIdentity {
                try muxer.setDisplayMatrix(video.preferredTransform, streamIndex: videoOut)
            }
            var audio: AudioStretcher?
            if let track = asset.tracks(withMediaType: .audio).first {
                // The sound lasts as long as the stretched picture, and is stretched by the same fraction.
                let end = video.timeRange.end.multiplied(byRatio: Int64(stretch.numerator) * 48000, divisor: Int64(stretch.denominator))
                audio = try AudioStretcher(asset: asset, track: track, rate: Double(stretch.denominator) / Double(stretch.numerator),
                                           pitch: pitch, samples: end.isNumeric ? end.convertScale(1).value : nil, muxer: muxer)
            }
            for stream in demuxer.streams.indices where stream != video.streamIndex {
                demuxer.setDiscarded(true, streamIndex: stream)
            }
            // The index goes in front after its edit list is set (below), not through +faststart.
            try muxer.writeHeader(options: MovieIndex.movieTimescaleOptions(
                videoTimeBase: demuxer.streams[video.streamIndex].timeBase, for: fileType.muxerName))
            let packet = try Packet()
            let timeBase = demuxer.streams[video.streamIndex].timeBase
            let total = max(asset.duration.seconds, 0.001)
            var firstDecode: MediaTime?
            // Each picture is written once the next one is read, so that the last can be given
            // the duration the source's track gives it (FFmpeg reads MP4 video without packet
            // durations, and a copy would end the last picture early).
            var held: (packet: Packet, decode: Int64)?
            while try demuxer.read(into: packet) {
                guard packet.streamIndex == video.streamIndex else { continue }
                let decode = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
                let sourceTime = timeBase.time(decode)
                if firstDecode == nil, sourceTime.isNumeric { firstDecode = sourceTime }
                if let held { try muxer.writeStretched(held.packet, streamIndex: videoOut, source: timeBase, stretch: stretch) }
                held = (try packet.clone(), decode)
                // Audio up to the same (stretched) time, so the file interleaves.
                if sourceTime.isNumeric {
                    try audio?.encode(untilSourceTime: sourceTime)
                    progress?(min(1, sourceTime.seconds / total))
                }
            }
            if let held {
                // The last picture lasts to the track's end (the edit list below hides any excess).
                if held.decode != FFmpeg.noTimestamp, video.timeRange.end.isNumeric {
                    let (toEnd, overflow) = timeBase.timestamp(video.timeRange.end).subtractingReportingOverflow(held.decode)
                    if !overflow, toEnd > held.packet.durationTicks { held.packet.setDuration(toEnd) }
                }
                try muxer.writeStretched(held.packet, streamIndex: videoOut, source: timeBase, stretch: stretch)
            }
            try audio?.finish()
            try muxer.finish()
            if fileType.isISOBaseMedia, let firstDecode {
                // The muxer's edit list would show every copied frame, those the source's own edit
                // list hides too (before its start, after its end): show the source's range, stretched.
                func stretched(_ time: MediaTime) -> MediaTime {
                    time.multiplied(byRatio: Int64(stretch.numerator), divisor: Int64(stretch.denominator))
                }
                let shown = EditListEntry(start: .zero, end: stretched(video.timeRange.duration),
                                          mediaStart: stretched(video.timeRange.start - firstDecode))
                try MovieIndex.rewrite(temporary.path, edits: [videoOut: [shown]], indexFirst: true)
            }
            // Checked as the edit list shows it.
            try ExportPlans.stretched(asset, stretch: Double(stretch.numerator) / Double(stretch.denominator))
                .verify(temporary, as: url)
            try AssetWriter.moveIntoPlace(temporary, destination: url)
        } catch {
            partial.discard()
            throw error.renamingSubject(temporary.path, to: url.path)
        }
    }

    static func fraction(_ value: Double) -> Rational {
        let whole = value.rounded()
        if abs(value - whole) < 1e-9 { return Rational(Int32(whole), 1) }
        return Rational(Int32((value * 1000).rounded()), 1000)
    }
}

/// Decodes a track's audio, stretches it and hands it to an AAC lane.
final class AudioStretcher {
    private let reader: AssetReader
    private let output: AssetReaderTrackOutput
    /// Pitch kept: every onset stays where the picture puts it.
    private let stretcher: TimeStretcher?
    /// Varispeed.
    private let graph: AudioFilterGraph?
    private let lane: AudioEncodingLane
    private var sourceDone = false
    /// Where the sound ends (the picture's end, at 48 kHz), and its channels, for the fill.
    private let end: Int64?
    private let channels: Int

    /// - Parameter samples: where the stretched sound is cut (the picture's end), at 48 kHz.
    init(asset: Asset, track: AssetTrack, rate: Double, pitch: AudioTimePitchAlgorithm, samples: Int64?,
         muxer: Muxer) throws(ReelError) {
        let channels = min(max(track.channelCount, 1), 2)
        let format = AudioFormat(sampleFormat: .floatPlanar, sampleRate: 48000, channelLayout: .default(channels: channels))
        reader = try AssetReader(asset: asset)
        output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(
            sampleFormat: .floatPlanar, sampleRate: 48000, channelCount: channels))
        try reader.add(output)
        try reader.startReading()
        if pitch == .timeDomain {
            stretcher = TimeStretcher(rate: rate, channels: channels, sampleRate: 48000, outputLength: samples)
            graph = nil
        } else {
            stretcher = nil
            graph = try AudioFilterGraph(description: "asetrate=\(48000.0 * rate),aresample=48000", format: format)
        }
        lane = try AudioEncodingLane(channels: channels, muxer: muxer)
        end = samples
        self.channels = channels
    }

    /// Encodes the stretched audio of the source up to `time` (in source time).
    func encode(untilSourceTime time: MediaTime) throws(ReelError) {
        while !sourceDone {
            guard let sample = try output.copyNextSampleBuffer(), let audio = sample.audioBuffer else {
                sourceDone = true
                stretcher?.finish()
                try graph?.finish()
                try drainGraph()
                return
            }
            stretcher?.push((0..<audio.format.channelCount).map { audio.floatSamples(channel: $0) })
            try graph?.push(audio)
            try drainGraph()
            if sample.timeRange.end >= time { return }
        }
    }

    func finish() throws(ReelError) {
        try encode(untilSourceTime: .positiveInfinity)
        // A sound shorter than its picture (a 29.97 fps clip's is often 6 ms short, 24 ms at a
        // quarter speed) is filled with silence to the picture's end, as ExportPlans plans it.
        if let end, lane.sampleCount < end {
            var missing = end - lane.sampleCount
            while missing > 0 {
                let count = Int(min(missing, 48000))
                try lane.append(try AudioBuffer(format: .standard(sampleRate: 48000, channels: channels), frameCount: count))
                missing -= Int64(count)
            }
        }
        try lane.finish()
    }

    private func drainGraph() throws(ReelError) {
        if let stretcher {
            let samples = stretcher.pull()
            if let count = samples.first?.count, count > 0 {
                try lane.append(try AudioBuffer.float(channels: samples, sampleRate: 48000))
            }
        }
        while let graph, let out = try graph.pull() { try lane.append(out) }
    }
}

public import Foundation
import ReelAsset
import ReelCore

/// What the sync suite measures in an output, from its decoded frames and samples: when
/// each flash shows and each click sounds, and where the picture and the sound start and end.
public struct SyncMeasurement: Sendable {
    /// Presentation times of the frames brighter than mid-grey (a flash), the first of each run.
    public var flashes: [Double] = []
    /// Onsets of the clicks: the first sample above 0.15 after a quiet spell (a stretched
    /// click can come out at a third of its height).
    public var clicks: [Double] = []
    public var videoStart = 0.0
    /// The last frame's time plus its duration.
    public var videoEnd = 0.0
    public var audioStart = 0.0
    public var audioEnd = 0.0
    /// The most common interval between frames.
    public var frameDuration = 0.04
    public var frameCount = 0
    public var sampleRate = 48000
}

/// One output judged against what it should show.
public struct SyncVerdict: Sendable, CustomStringConvertible {
    /// Each matched event's click minus its flash, in seconds.
    public var offsets: [Double]
    /// Each matched event's flash minus where it should be, in seconds.
    public var placements: [Double]
    /// Expected events without a flash or without a click near them.
    public var lost: Int
    /// Expected events without a flash near them (the picture never shows the flash).
    public var lostFlashes: Int
    /// Expected events without a click near them (the sound lost it).
    public var lostClicks: Int
    /// Of the lost flashes, those of events less than two output frames from the next or
    /// previous event (at 16x a second of source is 1.6 frames of 25 fps output): no frame
    /// grid can show them as separate flashes, so only their clicks can be judged.
    public var unresolvableFlashes: Int
    public var expected: Int
    /// The picture's length minus the expected length, in seconds.
    public var durationError: Double
    /// The sound's end minus the picture's end, in seconds.
    public var endGap: Double
    public var frameDuration: Double
    public var audioFrame: Double

    public var worstOffset: Double { offsets.map(abs).max() ?? 0 }
    public var meanOffset: Double { offsets.isEmpty ? 0 : offsets.reduce(0, +) / Double(offsets.count) }
    public var worstPlacement: Double { placements.map(abs).max() ?? 0 }

    /// The suite's criteria: offsets within 20 ms (plus, `frameTolerant`, the flash's rounding
    /// to the output's frames, at most one frame), no event lost, the picture's length within
    /// one frame, the sound ending with the picture within one audio frame. The failures, in
    /// words (empty: passed).
    ///
    /// `lossAllowed` (speeds above 2) forgives lost clicks, which a pitch-kept stretch may
    /// merge (the issue's "no more than atempo" is read from the table), and the flashes of
    /// events too close together for any frame grid to separate (``unresolvableFlashes``);
    /// any other lost flash is a failure, so the clips must show their flashes long enough
    /// for the output's frame grid to catch them (``FlashClick/flashLength``).
    public func failures(frameTolerant: Bool = false, lossAllowed: Bool = false) -> [String] {
        var problems: [String] = []
        // Where the ideal picture time falls between output frames, the flash moves by that
        // rounding (its placement, at most a frame): the click may differ from it by that much more.
        let excess = zip(offsets, placements).map { offset, placement in
            abs(offset) - 0.020 - (frameTolerant ? min(abs(placement), frameDuration) : 0)
        }.max() ?? 0
        if excess > 1e-4 {
            problems.append(String(format: "click-flash offset %.1f ms, %.1f ms beyond 20 ms%@", worstOffset * 1000, excess * 1000,
                                   frameTolerant ? " and the picture's rounding" : ""))
        }
        if lossAllowed {
            if lostFlashes > unresolvableFlashes {
                problems.append("\(lostFlashes - unresolvableFlashes) of \(expected) flashes lost where the frames could show them")
            }
        } else if lost > 0 {
            problems.append("\(lost) of \(expected) events lost (\(lostFlashes) flashes, \(lostClicks) clicks)")
        }
        if abs(durationError) > frameDuration + 1e-4 {
            problems.append(String(format: "video length off by %.1f ms (> one frame, %.1f ms)", durationError * 1000, frameDuration * 1000))
        }
        if abs(endGap) > audioFrame + 1e-4 {
            problems.append(String(format: "sound ends %.1f ms %@ the picture (> one audio frame, %.1f ms)", abs(endGap) * 1000,
                                   endGap > 0 ? "after" : "before", audioFrame * 1000))
        }
        return problems
    }

    /// `offset worst/mean ms, lost n/m, length error ms, end gap ms`.
    public var description: String {
        String(format: "offset max %5.1f mean %+5.1f ms, place max %5.1f ms, lost %d/%d (flash %d, click %d), length %+6.1f ms, audio end %+6.1f ms",
               worstOffset * 1000, meanOffset * 1000, worstPlacement * 1000, lost, expected, lostFlashes, lostClicks,
               durationError * 1000, endGap * 1000)
    }
}

/// Decodes a file and measures its flashes and clicks: the one measuring helper the sync
/// tests and `make bench` (through `reel-sync-meter`) share.
public enum SyncMeter {
    /// Measures `url`'s first video and audio track.
    public static func measure(_ url: URL) throws -> SyncMeasurement {
        let asset = try Asset(url: url)
        var result = SyncMeasurement()
        if let track = asset.tracks(withMediaType: .video).first {
            let reader = try AssetReader(asset: asset)
            let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p))
            try reader.add(output)
            try reader.startReading()
            var times: [Double] = []
            var durations: [Double] = []
            var wasBright = false
            while let sample = try output.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
                let time = sample.presentationTime.seconds
                times.append(time)
                if sample.duration.isNumeric, sample.duration.seconds > 0 { durations.append(sample.duration.seconds) }
                // A flash is bright and even all across a sparse grid of the luma plane (a scene never is).
                var lowest = 255, highest = 0
                for y in stride(from: picture.height / 10, to: picture.height, by: max(1, picture.height / 5)) {
                    for x in stride(from: picture.width / 10, to: picture.width, by: max(1, picture.width / 5)) {
                        let value = Int(picture.element(plane: 0, x: x, y: y)?[0] ?? 0)
                        lowest = min(lowest, value)
                        highest = max(highest, value)
                    }
                }
                let bright = lowest > 160 && highest - lowest < 40
                if bright, !wasBright { result.flashes.append(time) }
                wasBright = bright
            }
            result.frameCount = times.count
            let intervals = zip(times.sorted().dropFirst(), times.sorted()).map { ($0 - $1) }
            result.frameDuration = mostCommon(intervals) ?? durations.first ?? 0.04
            result.videoStart = times.min() ?? 0
            // The last frame lasts its own duration when the file says it, else a typical frame;
            // a player stops it where the container's edit list ends the track (an MP4 export
            // stores its last picture whole and cuts it there).
            let lastDuration = durations.last ?? result.frameDuration
            let last = (times.max() ?? 0) + lastDuration
            let presented = track.timeRange.end
            result.videoEnd = presented.isNumeric && presented.seconds > (times.max() ?? 0) ? min(last, presented.seconds) : last
        }
        if let track = asset.tracks(withMediaType: .audio).first {
            let reader = try AssetReader(asset: asset)
            let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar, channelCount: 1))
            try reader.add(output)
            try reader.startReading()
            var first: Double?
            var end = 0.0
            var lastLoud = -10.0
            result.sampleRate = track.sampleRate > 0 ? track.sampleRate : 48000
            while let sample = try output.copyNextSampleBuffer(), let buffer = sample.audioBuffer {
                let rate = Double(buffer.format.sampleRate)
                let start = sample.presentationTime.seconds
                first = first ?? start
                let values = buffer.floatSamples(channel: 0)
                for (i, value) in values.enumerated() where abs(value) > 0.15 {
                    let time = start + Double(i) / rate
                    if time - lastLoud > 0.03 { result.clicks.append(time) }
                    lastLoud = time
                }
                end = max(end, start + Double(values.count) / rate)
            }
            result.audioStart = first ?? 0
            // The decoder gives whole AAC frames; a player stops where the container's edit
            // list ends the track, up to a frame sooner.
            let presented = track.timeRange.end
            result.audioEnd = presented.isNumeric && presented.seconds > result.audioStart ? min(end, presented.seconds) : end
        }
        return result
    }

    /// Judges `measurement` against the events it should show (`expected`, output times)
    /// and its expected length. An event is found when a flash and a click lie within
    /// `window` of it (default: a third of the closest spacing of events, at most 1 s: a
    /// slow-down's events are far apart, and a click smeared early is late, not lost).
    public static func judge(_ measurement: SyncMeasurement, expected: [Double], duration: Double,
                             window: Double? = nil) -> SyncVerdict {
        let spacing = zip(expected.dropFirst(), expected).map { $0 - $1 }.min() ?? 1
        let reach = window ?? min(1, spacing / 3)
        var offsets: [Double] = [], placements: [Double] = []
        var lost = 0, lostFlashes = 0, lostClicks = 0, unresolvable = 0
        for (index, event) in expected.enumerated() {
            let flash = nearest(event, in: measurement.flashes).flatMap { abs($0 - event) <= reach ? $0 : nil }
            let click = nearest(event, in: measurement.clicks).flatMap { abs($0 - event) <= reach ? $0 : nil }
            if flash == nil {
                lostFlashes += 1
                let neighbours = [index > 0 ? expected[index - 1] : nil, index + 1 < expected.count ? expected[index + 1] : nil]
                if neighbours.contains(where: { $0.map { abs($0 - event) < 2 * measurement.frameDuration } ?? false }) {
                    unresolvable += 1
                }
            }
            if click == nil { lostClicks += 1 }
            guard let flash, let click else {
                lost += 1
                continue
            }
            offsets.append(click - flash)
            placements.append(flash - event)
        }
        let audioFrame = 1024.0 / Double(measurement.sampleRate)
        return SyncVerdict(offsets: offsets, placements: placements, lost: lost, lostFlashes: lostFlashes,
                           lostClicks: lostClicks, unresolvableFlashes: unresolvable, expected: expected.count,
                           durationError: (measurement.videoEnd - measurement.videoStart) - duration,
                           endGap: measurement.audioEnd - measurement.videoEnd,
                           frameDuration: measurement.frameDuration, audioFrame: audioFrame)
    }

    /// How found times (``SyncMeasurement/flashes`` or ``SyncMeasurement/clicks``) sit against
    /// where they belong: for each expected time, the nearest found one within `window`
    /// seconds (its offset in seconds, found minus expected), or a lost one. For judging the
    /// sound or the picture alone, where ``judge(_:expected:duration:window:)`` pairs them.
    public static func match(_ found: [Double], expected: [Double], window: Double) -> (offsets: [Double], lost: Int) {
        var offsets: [Double] = []
        var lost = 0
        for time in expected {
            guard let near = nearest(time, in: found), abs(near - time) <= window else {
                lost += 1
                continue
            }
            offsets.append(near - time)
        }
        return (offsets, lost)
    }

    /// The ffmpeg CLI's pitch-kept speed change of the sound alone (`atempo`, chained within
    /// its 0.5…100), written as AAC: the reference a pitch-kept stretch is compared with.
    public static func atempo(_ url: URL, rate: Double, to output: URL) throws {
        var stages: [String] = []
        var remaining = rate
        while remaining < 0.5 {
            stages.append("atempo=0.5")
            remaining /= 0.5
        }
        stages.append("atempo=\(remaining)")
        try ProcessRunner.ffmpeg(["-i", url.path, "-vn", "-af", stages.joined(separator: ","), "-c:a", "aac", output.path])
    }

    private static func nearest(_ time: Double, in times: [Double]) -> Double? {
        times.min { abs($0 - time) < abs($1 - time) }
    }

    private static func mostCommon(_ values: [Double]) -> Double? {
        var counts: [Int: Int] = [:]
        for value in values where value > 0 { counts[Int((value * 1e5).rounded()), default: 0] += 1 }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }.map { Double($0.key) / 1e5 }
    }
}

import Foundation
import ReelAsset
import ReelCore

/// The camera page's preview with sound: the preview's pictures and the meter's sound,
/// encoded once (H.264 and AAC) by a segmented ``AssetWriter`` into fMP4 fragments of half
/// a second, each starting on a keyframe, which the page plays through Media Source
/// Extensions: the initialization segment, then the fragments as they come.
///
/// The writer runs only while a page asks for fragments: it starts at the first picture
/// after one asks and stops when none has asked for ``idleSeconds``. It is fed from the
/// studio's existing side outputs (the preview's video data output, after the picture is
/// scaled and turned as the MJPEG preview's is, and the meter's audio data output), so the
/// capture never waits for it: a picture the encoder cannot take in time is left out.
/// Each run is a new stream (`generation`) whose timeline starts at zero; a page that sees
/// another generation starts again with its initialization segment.
final class LiveSoundStream: AssetWriterDelegate, @unchecked Sendable {
    /// The length of each fragment (and the keyframe interval).
    static let fragmentInterval = MediaTime(value: 1, timescale: 2)
    /// A run stops when no page has asked for this long.
    static let idleSeconds = 5.0
    /// Fragments kept for pages that ask late.
    static let kept = 8

    /// One media fragment and where it is in time.
    struct Fragment: Sendable {
        var number: Int
        var data: Data
        /// Its earliest presentation time on the stream's timeline (the page's media time), in seconds.
        var start: Double
        var duration: Double
        /// When its first picture was captured, in seconds since 1970.
        var captured: Double
    }

    /// What a page gets first: the initialization segment of the current generation.
    struct Initialization: Sendable {
        var generation: Int
        var data: Data
        /// `video/mp4; codecs="…"` for `MediaSource.addSourceBuffer`.
        var type: String
    }

    /// What a page asking for a fragment gets.
    enum Answer: Sendable {
        case fragment(Fragment)
        /// Nothing new in time: ask again.
        case none
        /// The stream asked about has ended; start again with the initialization segment.
        case restarted
    }

    private struct Run {
        var generation: Int
        var writer: AssetWriter
        var video: AssetWriterInput
        var audio: AssetWriterInput?
        /// The capture time of the run's first picture (zero on its timeline).
        var start: MediaTime
        var width: Int
        var height: Int
        var initialization: Data?
        var codecs: [String] = []
        var fragments: [Fragment] = []
        var number = 0
    }

    private enum State {
        /// Not encoding.
        case off
        /// A writer is being made for the next generation.
        case starting
        case running(Run)
        /// The studio is shutting down.
        case closed
    }

    private let condition = NSCondition()
    private var state = State.off
    /// The last time a page asked (uptime, seconds), guarded by `condition`.
    private var lastAsked = -Double.infinity
    private var generations = 0
    /// The least (seconds since 1970 − capture time) seen, guarded by `condition`: how
    /// capture times map onto the wall clock (the capture's lag taken out).
    private var wallOffset: Double?
    /// Runs being finished off the capture's queues.
    private let finishing = DispatchQueue(label: "reel.studio.sound-stream")
    private let reporter = ReportRelay()

    /// Tells `report` of each failure to encode from now on (one line each).
    func onFailure(_ report: @escaping @Sendable (String) -> Void) {
        reporter.connect(report)
    }

    private func report(_ message: String) {
        reporter.send(message)
    }

    /// Whether a page is watching the stream with sound now.
    var isWanted: Bool { condition.withLock { Self.now() - lastAsked < Self.idleSeconds } }

    /// Whether the writer is running.
    var isRunning: Bool {
        condition.withLock {
            if case .running = state { return true }
            return false
        }
    }

    /// A picture from the preview's queue, `picture` already scaled and turned for the page.
    /// - Parameters:
    ///   - picture: The preview picture.
    ///   - time: Its capture time.
    ///   - frameRate: The capture's rate.
    func appendPicture(_ picture: PixelBuffer, at time: MediaTime, frameRate: Double) {
        let wall = Date().timeIntervalSince1970
        let (run, stopping, start) = condition.withLock { () -> (Run?, Run?, Bool) in
            wallOffset = min(wallOffset ?? .infinity, wall - time.seconds)
            let wanted = Self.now() - lastAsked < Self.idleSeconds
            switch state {
            case .running(let run) where !wanted || run.width != picture.width || run.height != picture.height:
                // Nobody watches, or the picture changed size (a preset, a camera, a turn): stop;
                // a new generation starts at the next picture when one is wanted.
                state = .off
                condition.broadcast()
                return (nil, run, false)
            case .running(let run):
                return (run, nil, false)
            case .off where wanted:
                state = .starting
                return (nil, nil, true)
            default:
                return (nil, nil, false)
            }
        }
        if let stopping { finish(stopping) }
        if start {
            begin(width: picture.width, height: picture.height, at: time, frameRate: frameRate)
            return
        }
        guard let run, time >= run.start, run.video.isReadyForMoreMediaData else { return }
        let duration = MediaTime(seconds: 1 / max(1, frameRate), preferredTimescale: 90000)
        do {
            try run.video.append(SampleBuffer(pixelBuffer: picture, presentationTime: time, duration: duration))
        } catch {
            fail(run, error.message)
        }
    }

    /// A buffer of the microphone's sound, from the meter's queue.
    func appendSound(_ sample: SampleBuffer) {
        guard case .running(let run) = condition.withLock({ state }), let audio = run.audio, audio.isReadyForMoreMediaData else {
            return
        }
        do {
            try audio.append(sample)
        } catch {
            fail(run, error.message)
        }
    }

    /// The current generation's initialization segment, waiting up to `timeout` for a run to
    /// start; asking counts as watching.
    /// - Parameter timeout: How long to wait for the camera's next picture and the writer.
    /// - Returns: Nil when no run started in time (no pictures, or the studio is closing).
    func initialization(timeout: TimeInterval) -> Initialization? {
        condition.withLock {
            lastAsked = Self.now()
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                if case .closed = state { return nil }
                if case .running(let run) = state, let data = run.initialization {
                    let codecs = run.codecs.isEmpty ? "avc1.640028" : run.codecs.joined(separator: ", ")
                    return Initialization(generation: run.generation, data: data, type: #"video/mp4; codecs="\#(codecs)""#)
                }
                if !condition.wait(until: deadline) { return nil }
            }
        }
    }

    /// The first fragment of `generation` after number `after` (the newest one for a
    /// negative `after`), waiting up to `timeout` for it; asking counts as watching.
    /// A page that fell behind the fragments kept gets the oldest kept.
    /// - Parameters:
    ///   - generation: The stream the page plays.
    ///   - after: The number of the last fragment it has; -1 for none.
    ///   - timeout: How long to wait for a new fragment.
    /// - Returns: The fragment, nothing new, or that the stream restarted.
    func fragment(generation: Int, after: Int, timeout: TimeInterval) -> Answer {
        condition.withLock {
            lastAsked = Self.now()
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                switch state {
                case .closed:
                    return .restarted
                case .running(let run) where run.generation != generation:
                    return .restarted
                case .running(let run):
                    if after < 0, let newest = run.fragments.last { return .fragment(newest) }
                    if after >= 0, let next = run.fragments.first(where: { $0.number > after }) { return .fragment(next) }
                case .off where generation < generations:
                    return .restarted
                default:
                    break
                }
                if !condition.wait(until: deadline) { return .none }
            }
        }
    }

    /// Stops the stream for good (the studio is closing) and wakes the pages waiting for it.
    func close() {
        let run = condition.withLock { () -> Run? in
            defer {
                state = .closed
                condition.broadcast()
            }
            if case .running(let run) = state { return run }
            return nil
        }
        if let run { finish(run) }
        finishing.sync {}
    }

    func assetWriter(
        _ writer: AssetWriter, didOutputSegmentData segmentData: Data, segmentType: AssetSegmentType,
        segmentReport: AssetSegmentReport?
    ) {
        let codecs = segmentType == .initialization ? SegmentFolderWriter.codecs(ofInitializationSegment: segmentData) : []
        condition.withLock {
            guard case .running(var run) = state, run.writer === writer else {
                // The initialization segment comes while the writer starts, before it runs.
                if segmentType == .initialization, case .starting = state { pendingInitialization = (writer, segmentData, codecs) }
                return
            }
            switch segmentType {
            case .initialization:
                run.initialization = segmentData
                run.codecs = codecs
            case .separable:
                let tracks = segmentReport?.trackReports ?? []
                let video = tracks.first { $0.mediaType == .video } ?? tracks.first
                let start = video?.earliestPresentationTimeStamp.seconds ?? 0
                run.number += 1
                run.fragments.append(
                    Fragment(number: run.number, data: segmentData, start: start,
                             duration: video?.duration.seconds ?? Self.fragmentInterval.seconds,
                             captured: run.start.seconds + start + (wallOffset ?? 0)))
                if run.fragments.count > Self.kept { run.fragments.removeFirst(run.fragments.count - Self.kept) }
            }
            state = .running(run)
            condition.broadcast()
        }
    }

    /// The initialization segment of a writer still starting, guarded by `condition`.
    private var pendingInitialization: (writer: AssetWriter, data: Data, codecs: [String])?

    private func begin(width: Int, height: Int, at start: MediaTime, frameRate: Double) {
        let writer: AssetWriter
        let video: AssetWriterInput
        var audio: AssetWriterInput?
        do throws(ReelError) {
            writer = try AssetWriter(fileType: .mp4)
            writer.outputFileTypeProfile = .mpeg4AppleHLS
            writer.preferredOutputSegmentInterval = Self.fragmentInterval
            // The fragments' grid starts with the session (a source time, as the session's).
            writer.initialSegmentStartTime = start
            writer.delegate = self
            // A keyframe every sixth of a second of frames, not the writer's one per interval:
            // the preview drops the frames its queue cannot take in time, and a fragment is cut
            // at the first keyframe after its half second, so counted in frames that arrive
            // (10 a second on a loaded machine) one per interval would make fragments of 1.5 s.
            let keyFrames = max(1, Int((frameRate / 6).rounded()))
            video = AssetWriterInput(
                mediaType: .video,
                outputSettings: VideoSettings(width: width, height: height, bitRate: max(400_000, width * height * 4),
                                              keyFrameInterval: keyFrames, preset: "ultrafast", expectedFrameRate: frameRate))
            video.expectsMediaDataInRealTime = true
            try writer.add(video)
            let sound = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: 2))
            sound.expectsMediaDataInRealTime = true
            try writer.add(sound)
            audio = sound
            try writer.startWriting()
            writer.startSession(atSourceTime: start)
        } catch {
            report("the preview with sound cannot start: \(StudioResponse.words(error))")
            condition.withLock {
                if case .starting = state { state = .off }
                lastAsked = -Double.infinity
                condition.broadcast()
            }
            return
        }
        let kept = condition.withLock { () -> Bool in
            guard case .starting = state else { return false }
            generations += 1
            var run = Run(generation: generations, writer: writer, video: video, audio: audio, start: start, width: width,
                          height: height)
            if let pending = pendingInitialization, pending.writer === writer {
                run.initialization = pending.data
                run.codecs = pending.codecs
            }
            pendingInitialization = nil
            state = .running(run)
            condition.broadcast()
            return true
        }
        if !kept { writer.cancelWriting() }
    }

    private func fail(_ run: Run, _ reason: String) {
        let dropped = condition.withLock { () -> Bool in
            guard case .running(let current) = state, current.writer === run.writer else { return false }
            state = .off
            // Not again until a page asks again.
            lastAsked = -Double.infinity
            condition.broadcast()
            return true
        }
        guard dropped else { return }
        report("the preview with sound stopped: \(reason)")
        finishing.async { run.writer.cancelWriting() }
    }

    private func finish(_ run: Run) {
        finishing.async { run.writer.cancelWriting() }
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

public import Foundation
public import ReelAsset
public import ReelCore

/// Renders a composition to a file with a preset. `AVAssetExportSession`.
///
/// Frames are rendered at the preset's size directly (sources are decoded already
/// scaled), audio is mixed at 48 kHz, and the writer's rules hold: the file appears
/// only when complete.
public final class ExportSession: @unchecked Sendable {
    /// `AVAssetExportSession.Status`.
    public enum Status: Sendable, Equatable {
        case waiting, exporting, completed, failed, cancelled
    }

    public let composition: MutableComposition
    public let preset: ExportPreset
    public var outputURL: URL?
    public var outputFileType: FileType = .mp4
    /// How tracks combine. `videoComposition`.
    ///
    /// Without one, as AVFoundation does, nothing is rendered through a track's
    /// `preferredTransform`: the pictures are written as stored and the transform of the
    /// first video track goes into the output as its display matrix, for players to turn
    /// the picture (seed 002's `preferredTransform = CGAffineTransform(rotationAngle: .pi/2)`).
    /// With one, its layer instructions place every picture and the output has no matrix.
    public var videoComposition: VideoComposition?
    public var audioMix: AudioMix?
    /// The part of the composition to export; the whole by default. `timeRange`.
    public var timeRange = MediaTimeRange(start: .zero, duration: .positiveInfinity)
    public var metadata = AssetMetadata()
    public var shouldOptimizeForNetworkUse = true
    /// Stop the export at about this many bytes (0: no limit). `fileLengthLimit`.
    public var fileLengthLimit: Int64 = 0
    /// How sped-up or slowed-down audio sounds: pitch kept by default. `audioTimePitchAlgorithm`.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm = .timeDomain

    /// Decoded frames each source holds ready, decoded on its own thread while earlier frames
    /// are composed and encoded; 0 decodes each frame on the export's thread when it is needed.
    /// The output is the same either way.
    var readAhead = 8

    /// False writes the picture only: a chunk of a chunked export, whose sound is rendered
    /// once for the whole timeline (``ChunkedExport``).
    var includesAudio = true
    /// Frames between keyframes (a chunk's GOP grid, a studio preview's short GOP for
    /// quick seeks); nil leaves the encoder's default.
    package var keyFrameInterval: Int?
    /// The encoder's speed preset (`ultrafast` for the studio's previews); nil: the codec's default.
    package var encoderSpeed: String?

    /// Copy the frames the edit leaves untouched from their sources and encode only the
    /// rest (transitions, overlays, trims inside a GOP), when the sources are H.264 of the
    /// output's size, frame rate and coding parameters; see ``SmartRenderPlan``. On by
    /// default: where nothing can be copied the export renders every frame, as with it off.
    public var smartRender = true
    /// The plan the last export followed when it rendered smartly; nil when it rendered every frame.
    public internal(set) var smartRenderPlan: SmartRenderPlan? {
        get { lock.withLock { _smartRenderPlan } }
        set { lock.withLock { _smartRenderPlan = newValue } }
    }
    private var _smartRenderPlan: SmartRenderPlan?

    /// Whether ``cancelExport()`` has been called.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Reports progress to the caller and to ``progress``.
    func report(_ fraction: Double, to handler: (@Sendable (Double) -> Void)?) {
        lock.withLock { _progress = fraction }
        handler?(fraction)
    }

    private let lock = NSLock()
    private var _status: Status = .waiting
    private var _progress: Double = 0
    private var _error: ReelError?
    private var cancelled = false
    private var _notes: [String] = []

    /// What the export left out and why, for the caller to show.
    public var warnings: [String] { lock.withLock { _notes } }

    /// 0 to 1 while exporting. `progress`.
    public var progress: Double { lock.withLock { _progress } }
    public var status: Status { lock.withLock { _status } }
    public var error: ReelError? { lock.withLock { _error } }

    /// An export of `composition` with `preset`; set the output URL and file type, then export.
    /// `init(asset:presetName:)`.
    /// - Parameters:
    ///   - composition: The edit to render.
    ///   - preset: The output's size box and quality, or passthrough.
    public init(composition: MutableComposition, preset: ExportPreset) {
        self.composition = composition
        self.preset = preset
    }

    /// Stops the export; the output is not written. `cancelExport()`.
    public func cancelExport() {
        lock.withLock { cancelled = true }
    }

    /// The presets that make sense for `composition`: passthrough only when its clips can be
    /// copied (no overlaps, normal speed), and sized presets no larger than it (they never
    /// scale up, so the bigger ones would equal `highest`). `exportPresets(compatibleWith:)`.
    /// - Parameter composition: The edit to export.
    /// - Returns: The presets to offer for it.
    public static func exportPresets(compatibleWith composition: MutableComposition) -> [ExportPreset] {
        let size = Self.plainVideoComposition(of: composition).video.renderSize
        let longest = max(size.width, size.height)
        let segments = composition.tracks(withMediaType: .video).flatMap(\.segments).filter { !$0.isEmpty }
            .sorted { $0.timeMapping.target.start < $1.timeMapping.target.start }
        let copyable = zip(segments, segments.dropFirst()).allSatisfy { $0.timeMapping.target.end <= $1.timeMapping.target.start }
            && segments.allSatisfy { $0.rate == 1 }
        return ExportPreset.allCases.filter { preset in
            if preset == .passthrough { return copyable }
            guard let box = preset.box else { return true }
            return max(box.width, box.height) <= longest || preset == .lowQuality || preset == .mediumQuality
        }
    }

    /// A guess at the output's size in bytes, from the preset's quality, the frame size and
    /// the duration. `estimatedOutputFileLength`.
    public var estimatedOutputFileLength: Int64 {
        let (width, height) = outputSize
        let seconds = min(timeRange.duration.isNumeric ? timeRange.duration.seconds : .infinity, composition.duration.seconds)
        // x264 at CRF 23 spends about 0.07 bit per pixel per frame on typical footage; each 6 CRF halves it.
        let bitsPerPixel = 0.07 * pow(2, (23 - preset.quality) / 6)
        let rate = 1 / (videoComposition ?? Self.plainVideoComposition(of: composition).video).frameDuration.seconds
        let videoBits = Double(width * height) * rate * bitsPerPixel * seconds
        let audioBits = 128_000 * seconds
        return Int64((videoBits + audioBits) / 8)
    }

    /// The output size this export will have.
    public var outputSize: (width: Int, height: Int) {
        preset.outputSize(for: (videoComposition ?? Self.plainVideoComposition(of: composition).video).renderSize)
    }

    /// What an export without a video composition renders: each track's pictures as stored
    /// (the first video track's `preferredTransform` becomes the output's display matrix; a
    /// later track whose transform differs is drawn turned relative to it), at the first
    /// track's natural size unless the composition's `naturalSize` is set.
    static func plainVideoComposition(of composition: MutableComposition)
        -> (video: VideoComposition, displayMatrix: ReelCore.AffineTransform) {
        var video = VideoComposition(propertiesOf: composition)
        let tracks = composition.tracks(withMediaType: .video).filter { $0.naturalSize != .zero }
        let first = tracks.min { ($0.segments.first { !$0.isEmpty }?.timeMapping.target.start ?? .positiveInfinity)
            < ($1.segments.first { !$0.isEmpty }?.timeMapping.target.start ?? .positiveInfinity) }
        guard let first else { return (video, .identity) }
        // Only the quarter turn (and mirror) is a display matrix; a free transform stays drawn.
        let matrix = first.preferredTransform.orientation != nil ? first.preferredTransform : .identity
        let undo = matrix.inverted() ?? .identity
        for index in video.instructions.indices {
            let start = video.instructions[index].timeRange.start
            for layer in video.instructions[index].layerInstructions.indices {
                let trackID = video.instructions[index].layerInstructions[layer].trackID
                let preferred = composition.track(withTrackID: trackID)?.preferredTransform ?? .identity
                let relative = preferred.concatenating(undo)
                // Keep the turned picture at the origin, as it is written.
                let box = Rect(origin: .zero, size: composition.track(withTrackID: trackID)?.naturalSize ?? .zero)
                    .applying(relative)
                video.instructions[index].layerInstructions[layer].setTransform(
                    relative.concatenating(ReelCore.AffineTransform(translationX: -box.minX, y: -box.minY)), at: start)
            }
        }
        if composition.naturalSize == .zero {
            video.renderSize = Size(width: (first.naturalSize.width / 2).rounded() * 2,
                                    height: (first.naturalSize.height / 2).rounded() * 2)
        }
        return (video, matrix)
    }

    /// Renders and writes the file, on a thread of its own. Cancelling the task cancels the
    /// export (``cancelExport()``). `export()`.
    /// - Parameter progressHandler: Called with the progress, 0 to 1, as frames are written.
    /// - Throws: ``ReelError``: a missing output URL, an invalid video composition (the error
    ///   names the instruction), a source that cannot be read, a write failure, or `.cancelled`.
    public func export(progressHandler: (@Sendable (Double) -> Void)? = nil) async throws(ReelError) {
        try await BlockingWork.run(
            onCancel: { [self] in cancelExport() },
            { [self] () throws(ReelError) in try exportSynchronously(progressHandler: progressHandler) })
    }

    /// Starts the export on a thread of its own and calls `handler` when it has completed,
    /// failed or been cancelled; read ``status`` and ``error`` there.
    /// `exportAsynchronously(completionHandler:)`.
    /// - Parameter handler: called once, on the export's thread.
    public func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            _ = try? exportSynchronously()
            handler()
        }
    }

    /// ``export(progressHandler:)`` on the calling thread.
    /// - Parameter progressHandler: Called with the progress, 0 to 1, as frames are written.
    /// - Throws: ``ReelError``, as ``export(progressHandler:)``.
    public func exportSynchronously(progressHandler: (@Sendable (Double) -> Void)? = nil) throws(ReelError) {
        do throws(ReelError) {
            lock.withLock { _status = .exporting }
            try run(progressHandler: progressHandler)
            lock.withLock {
                _status = .completed
                _progress = 1
            }
        } catch {
            lock.withLock {
                _status = cancelled ? .cancelled : .failed
                _error = error
            }
            throw error
        }
    }

    /// An export never replaces a file it reads: the output may not be any track's source,
    /// by path, symbolic link or hard link (the same device and inode).
    /// - Throws: ``ReelError`` `.invalidArgument` naming the track whose source it is.
    private func refuseReplacingASource(_ output: URL) throws(ReelError) {
        func identity(_ path: String) -> (UInt64, UInt64)? {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return (UInt64(status.st_dev), UInt64(status.st_ino))
        }
        guard let target = identity(output.path) else { return }  // nothing there yet: nothing to replace
        for track in composition.tracks(withMediaType: .video) + composition.tracks(withMediaType: .audio) {
            for url in Set(track.segments.compactMap(\.sourceURL)) where identity(url.path).map({ $0 == target }) == true {
                throw ReelError(.invalidArgument, "is a source of track \(track.trackID) (\(url.path)); an export never replaces its input",
                                subject: output.path)
            }
        }
    }

    /// Whether any audio track of `composition` has a segment with media.
    static func hasSound(_ composition: MutableComposition) -> Bool {
        !composition.tracks(withMediaType: .audio).allSatisfy { $0.segments.allSatisfy(\.isEmpty) }
    }

    private func run(progressHandler: (@Sendable (Double) -> Void)?) throws(ReelError) {
        guard let outputURL else { throw ReelError(.invalidArgument, "set outputURL before exporting", subject: "outputURL") }
        try refuseReplacingASource(outputURL)
        if writesSoundOnly {
            try exportSoundOnly(to: outputURL, progressHandler: progressHandler)
            return
        }
        if preset == .passthrough {
            let notes = try PassthroughExport.export(composition, audioMix: audioMix, to: outputURL, fileType: outputFileType,
                                                     optimizeForNetwork: shouldOptimizeForNetworkUse)
            lock.withLock { _notes = notes }
            return
        }
        let plain = videoComposition == nil ? Self.plainVideoComposition(of: composition) : nil
        let video = videoComposition ?? plain?.video ?? VideoComposition(propertiesOf: composition)
        try video.validate(for: composition)
        let range = timeRange.intersection(MediaTimeRange(start: .zero, duration: composition.duration))
        guard range.duration > .zero else {
            throw ReelError(.invalidArgument, "the composition is empty over the time range", subject: "timeRange")
        }
        let (width, height) = preset.outputSize(for: video.renderSize)
        try RenderMemory.check(width: width, height: height)
        if try exportSmartly(video: video, displayMatrix: plain?.displayMatrix, width: width, height: height,
                             progressHandler: progressHandler) {
            return
        }
        let writer = try AssetWriter(outputURL: outputURL, fileType: outputFileType)
        writer.shouldOptimizeForNetworkUse = shouldOptimizeForNetworkUse
        writer.metadata = metadata
        let rate = 1 / video.frameDuration.seconds
        let videoInput = AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(
            codec: preset.codec, width: width, height: height, quality: preset.quality, keyFrameInterval: keyFrameInterval,
            preset: encoderSpeed, expectedFrameRate: rate))
        if let plain { videoInput.transform = plain.displayMatrix }
        try writer.add(videoInput)
        let hasAudio = includesAudio && Self.hasSound(composition)
        let audioInput = hasAudio ? AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(
            codec: outputFileType == .webm ? .opus : .aac, sampleRate: AudioRenderer.sampleRate, channelCount: 2)) : nil
        if let audioInput { try writer.add(audioInput) }

        let readAhead = width * height > RenderMemory.largeFrameArea ? min(self.readAhead, 3) : self.readAhead
        let renderer = try VideoRenderer(composition: composition, videoComposition: video, outputWidth: width,
                                         outputHeight: height, readAhead: readAhead)
        renderer.frameGrid = FrameGrid(start: range.start, step: video.frameDuration)
        defer { renderer.close() }
        let audio = AudioRenderer(composition: composition, mix: audioMix, pitch: audioTimePitchAlgorithm)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let block = 1024
        let rateSamples = Int64(AudioRenderer.sampleRate)
        let firstSample = range.start.multiplied(byRatio: rateSamples, divisor: 1).convertScale(1).value
        let lastSample = range.end.multiplied(byRatio: rateSamples, divisor: 1).convertScale(1).value
        var nextSample = firstSample
        var frameIndex: Int64 = 0
        // The plan the written file is checked against: picture and sound over the whole range.
        writer.exportCheck = ExportCheck(both: MediaTimeRange(start: .zero, duration: range.duration), hasAudio: audioInput != nil)
        var stoppedAtLimit = false
        do throws(ReelError) {
            while true {
                if lock.withLock({ cancelled }) {
                    throw ReelError(.cancelled, "the export was cancelled", subject: outputURL.path)
                }
                let time = range.start + video.frameDuration * frameIndex
                guard time < range.end else { break }
                let picture = try renderer.frame(at: time)
                // Sources that appear a little later start decoding now, beside this frame's encoding.
                if readAhead > 0 {
                    let ahead = time + video.frameDuration * Int64(readAhead)
                    if ahead < range.end { try renderer.prepare(at: ahead) }
                }
                // The last picture lasts until the end, never past it (the range need not be whole frames).
                try videoInput.append(SampleBuffer(pixelBuffer: picture, presentationTime: time - range.start,
                                                   duration: min(video.frameDuration, range.end - time)))
                frameIndex += 1
                // Audio up to the next frame's time, so the writer interleaves.
                let until = min(lastSample, (time + video.frameDuration).multiplied(byRatio: rateSamples, divisor: 1)
                    .convertScale(1).value)
                while let audioInput, nextSample < until {
                    let count = Int(min(Int64(block), lastSample - nextSample))
                    let mixed = try audio.render(startSample: nextSample, count: count)
                    try audioInput.append(SampleBuffer(audioBuffer: mixed, presentationTime: MediaTime(
                        value: nextSample - firstSample, timescale: Int32(rateSamples))))
                    nextSample += Int64(count)
                }
                let fraction = (time - range.start).seconds / range.duration.seconds
                lock.withLock { _progress = fraction }
                progressHandler?(fraction)
                if fileLengthLimit > 0, let partial = writer.inProgressURL,
                   let size = try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64,
                   size >= fileLengthLimit {
                    writer.endSession(atSourceTime: time + video.frameDuration - range.start)
                    writer.exportCheck = ExportCheck(both: MediaTimeRange(start: .zero, end: time + video.frameDuration - range.start),
                                                     hasAudio: audioInput != nil)
                    stoppedAtLimit = true
                    break
                }
            }
            if !stoppedAtLimit { writer.endSession(atSourceTime: range.duration) }
            try writer.finishSynchronously()
            if renderer.framesWithMedia > 0, renderer.framesWithPicture == 0, let lost = renderer.firstOffscreen {
                // AVFoundation writes such a file without a word; Reel writes it too, and says so.
                let note = "every frame is black: track \(lost.trackID)'s picture lies wholly outside the "
                    + "\(Int(video.renderSize.width))x\(Int(video.renderSize.height)) render rectangle under its transform "
                    + "\(lost.transform) (at \(lost.time.seconds) s)"
                lock.withLock { _notes.append(note) }
            }
        } catch {
            writer.cancelWriting()
            throw error
        }
    }
}

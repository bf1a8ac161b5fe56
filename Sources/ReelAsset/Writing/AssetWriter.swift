public import Foundation
import ReelAV
public import ReelCore

/// Writes media to a new file: inputs per track, a session, and an atomic finish.
/// `AVAssetWriter`.
///
/// The file is written under a temporary name beside the destination and renamed
/// over it only when complete, so a failed or cancelled write leaves nothing behind
/// and never touches what was there. The one exception is a fragmented recording
/// (``movieFragmentInterval``): it is written as `NAME.partial.EXT`, which stays
/// playable up to its last fragment if the process dies, and is renamed when finished.
///
/// Defaults give files that play in Chrome, Firefox and Safari: H.264 High, yuv420p,
/// AAC LC, and the index (moov) at the front (``shouldOptimizeForNetworkUse`` is true
/// by default, unlike AVFoundation).
public final class AssetWriter: Sendable {
    /// `AVAssetWriter.Status`.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case unknown, writing, completed, failed, cancelled
        public var description: String {
            switch self {
            case .unknown: "not started"
            case .writing: "writing"
            case .completed: "completed"
            case .failed: "failed"
            case .cancelled: "cancelled"
            }
        }
    }

    public let outputURL: URL
    public let outputFileType: FileType
    /// Made by ``init(fileType:)``: segments go to the ``delegate``, no file is written.
    public let producesSegments: Bool
    /// Set by ``init(streamingTo:formatName:)``: FFmpeg's muxer for a network stream.
    let streamFormat: String?
    /// Settings, status, session bounds and the open file: one state, one lock.
    private let machine = PosixMutex(AssetWriterStateMachine<WriterFiles>())

    /// Write a fragmented file with a fragment at least this often, so that an
    /// interrupted recording stays playable; the finished file is an ordinary one with the
    /// whole index (as AVFoundation's). Invalid (the default) writes one index at the end.
    /// Set before ``startWriting()``: later changes are ignored. `movieFragmentInterval`.
    public var movieFragmentInterval: MediaTime {
        get { machine.withLock { $0.settings.movieFragmentInterval } }
        set { _ = machine.withLock { $0.configure { $0.movieFragmentInterval = newValue } } }
    }
    /// Put the index before the media data so that playback can start while the file
    /// downloads. Set before ``startWriting()``. `shouldOptimizeForNetworkUse`.
    public var shouldOptimizeForNetworkUse: Bool {
        get { machine.withLock { $0.settings.shouldOptimizeForNetworkUse } }
        set { _ = machine.withLock { $0.configure { $0.shouldOptimizeForNetworkUse = newValue } } }
    }
    /// Creation date, title and location to write. Set before ``startWriting()``. `metadata`.
    public var metadata: AssetMetadata {
        get { machine.withLock { $0.settings.metadata } }
        set { _ = machine.withLock { $0.configure { $0.metadata = newValue } } }
    }
    public var inputs: [AssetWriterInput] { machine.withLock { $0.settings.inputs } }

    /// The profile of a segmented writer's output: ``FileTypeProfile/mpeg4AppleHLS`` or
    /// ``FileTypeProfile/mpeg4CMAFCompliant``. Required by a writer made with
    /// ``init(fileType:)``; set before ``startWriting()``. `outputFileTypeProfile`.
    public var outputFileTypeProfile: FileTypeProfile? {
        get { machine.withLock { $0.settings.outputFileTypeProfile } }
        set { _ = machine.withLock { $0.configure { $0.outputFileTypeProfile = newValue } } }
    }
    /// How long media segments should be. Invalid (the default) lets the writer choose
    /// (6 s); indefinite cuts a segment only at ``flushSegment()``. Segments start on
    /// keyframes: the writer makes the first picture at or after each interval boundary a
    /// keyframe, by its presentation time (none at scene changes), so a segment lasts about
    /// the interval even when the source drops frames, and two writers with the same interval
    /// and frame times cut at the same times. Set before ``startWriting()``.
    /// `preferredOutputSegmentInterval`.
    public var preferredOutputSegmentInterval: MediaTime {
        get { machine.withLock { $0.settings.preferredOutputSegmentInterval } }
        set { _ = machine.withLock { $0.configure { $0.preferredOutputSegmentInterval = newValue } } }
    }
    /// Where the first segment starts, on the source samples' timeline (the one
    /// ``startSession(atSourceTime:)`` takes): segments are cut at this time plus each multiple
    /// of ``preferredOutputSegmentInterval``, whenever the first sample comes. Usually the
    /// session's start time (Apple's sample sets both to the same time). Required, numeric,
    /// when the interval is; set before ``startWriting()``. `initialSegmentStartTime`.
    public var initialSegmentStartTime: MediaTime {
        get { machine.withLock { $0.settings.initialSegmentStartTime } }
        set { _ = machine.withLock { $0.configure { $0.initialSegmentStartTime = newValue } } }
    }
    /// Receives a segmented writer's segments; held weakly. Set before ``startWriting()``. `delegate`.
    public var delegate: (any AssetWriterDelegate)? {
        get { machine.withLock { $0.settings.delegate?.delegate } }
        set { _ = machine.withLock { $0.configure { $0.delegate = .init(delegate: newValue) } } }
    }
    /// What the file should hold, checked from its timestamps before it is put in place
    /// (``ExportCheck``); set by exports until ``finishWriting()`` begins. Nil checks nothing.
    package var exportCheck: ExportCheck? {
        get { machine.withLock { $0.settings.exportCheck } }
        set { _ = machine.withLock { $0.plan(newValue) } }
    }

    /// `status`.
    public var status: Status { machine.withLock { $0.status } }
    /// Why the writer failed. `error`.
    public var error: ReelError? { machine.withLock { $0.error } }
    var sessionTimes: (MediaTime, MediaTime) {
        machine.withLock { ($0.session?.start ?? .invalid, $0.session?.end ?? .invalid) }
    }

    /// Where the file is being written until it is finished.
    public var inProgressURL: URL? { machine.withLock { $0.session?.output.temporaryURL } }

    /// A writer of `fileType` to `outputURL`.
    /// - Parameters:
    ///   - outputURL: The file to write; it appears there only when finished.
    ///   - fileType: The container.
    /// - Throws: ``ReelError`` `.fileNotFound` when the folder does not exist,
    ///   `.permissionDenied` when it cannot be written, `.isDirectory` when the URL is one.
    public init(outputURL: URL, fileType: FileType) throws(ReelError) {
        self.outputURL = outputURL
        outputFileType = fileType
        producesSegments = false
        streamFormat = nil
        let folder = outputURL.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReelError(.fileNotFound, "the folder \(folder) does not exist", subject: outputURL.path)
        }
        if FileManager.default.fileExists(atPath: outputURL.path, isDirectory: &isFolder), isFolder.boolValue {
            throw ReelError(.isDirectory, "is a directory", subject: outputURL.path)
        }
        guard access(folder, W_OK) == 0 else {
            throw ReelError(.permissionDenied, "cannot write in \(folder): \(String(cString: strerror(errno)))",
                            subject: outputURL.path)
        }
    }

    /// A writer of segments instead of a file: it hands the initialization segment and each
    /// media segment, with its report, to its ``delegate`` (fragmented MP4 for HTTP Live
    /// Streaming and DASH). Set ``outputFileTypeProfile`` and the delegate before
    /// ``startWriting()``. `AVAssetWriter(contentType:)`.
    ///
    /// There is no file: ``outputURL`` is `segments.mp4`, a name for error messages.
    /// - Parameter fileType: ``FileType/mp4`` (the only type segments are written in).
    /// - Throws: ``ReelError`` `.unsupported` for another file type.
    public init(fileType: FileType) throws(ReelError) {
        guard fileType == .mp4 else {
            throw ReelError(.unsupported, "segments are written as fragmented MP4, not \(fileType)")
        }
        outputURL = URL(fileURLWithPath: "segments.mp4")
        outputFileType = fileType
        producesSegments = true
        streamFormat = nil
    }

    /// A writer to a network stream through FFmpeg's protocols (`rtmp://…` with `flv`,
    /// `srt://…` with `mpegts`): ``startWriting()`` connects, a lost connection fails the
    /// writer (its caller reconnects with a new one), ``finishWriting()`` ends the stream.
    /// - Parameters:
    ///   - url: The stream's address; errors name it.
    ///   - formatName: FFmpeg's muxer (`flv`, `mpegts`).
    package init(streamingTo url: URL, formatName: String) {
        outputURL = url
        outputFileType = .mp4
        producesSegments = false
        streamFormat = formatName
    }

    /// A writer whose file type follows the URL's extension.
    /// - Parameter outputURL: The file to write (.mp4, .mov, .m4v, .webm or .mkv).
    /// - Throws: ``ReelError`` `.unsupported` for another extension, or as ``init(outputURL:fileType:)``.
    public convenience init(outputURL: URL) throws(ReelError) {
        guard let type = FileType(pathExtension: outputURL.pathExtension) else {
            throw ReelError(.unsupported, "Reel writes .mp4, .mov, .m4v, .webm and .mkv, not '.\(outputURL.pathExtension)'",
                            subject: outputURL.path)
        }
        try self.init(outputURL: outputURL, fileType: type)
    }

    /// Whether `input` can be added: before writing starts, with settings this file type takes.
    /// - Parameter input: An input not yet in a writer.
    /// - Returns: Whether ``add(_:)`` would take it.
    public func canAdd(_ input: AssetWriterInput) -> Bool {
        status == .unknown && input.writer == nil && compatibilityProblem(input) == nil
    }

    /// Adds an input. `add(_:)`.
    /// - Parameter input: An input not yet in a writer, added before ``startWriting()``.
    /// - Throws: ``ReelError`` naming why the input cannot go into this file.
    public func add(_ input: AssetWriterInput) throws(ReelError) {
        if let problem = compatibilityProblem(input) {
            throw ReelError(.unsupported, problem, subject: outputURL.path)
        }
        let added = machine.withLock { machine in
            input.writer == nil && machine.configure { $0.inputs.append(input) }
        }
        guard added else {
            throw ReelError(.invalidState, "inputs can only be added before startWriting()", subject: outputURL.path)
        }
        input.writer = self
    }

    private func compatibilityProblem(_ input: AssetWriterInput) -> String? {
        let type = outputFileType
        if let video = input.videoSettings {
            guard input.mediaType == .video else { return "video settings on a \(input.mediaType) input" }
            guard video.width > 0, video.height > 0, video.width <= 8192, video.height <= 8192 else {
                return "a video size of \(video.width)x\(video.height) is outside 1...8192"
            }
            if video.codec != .proRes422, video.width % 2 != 0 || video.height % 2 != 0 {
                return "\(video.codec.rawValue) in 4:2:0 needs an even width and height, not \(video.width)x\(video.height)"
            }
            switch video.codec {
            case .proRes422 where type != .mov: return "ProRes goes only in .mov files"
            case .vp9 where type.isISOBaseMedia: return "VP9 goes in .webm or .mkv files"
            case .h264, .hevc: if type == .webm { return "WebM takes VP9 video, not \(video.codec.rawValue)" }
            default: break
            }
        }
        if let audio = input.audioSettings {
            guard input.mediaType == .audio else { return "audio settings on a \(input.mediaType) input" }
            guard (8000...192_000).contains(audio.sampleRate), (1...8).contains(audio.channelCount) else {
                return "audio of \(audio.channelCount) channels at \(audio.sampleRate) Hz is not supported"
            }
            if audio.codec == .opus, type.isISOBaseMedia { return "Opus goes in .webm or .mkv files" }
            if audio.codec == .aac, type == .webm { return "WebM takes Opus audio, not AAC" }
        }
        return nil
    }

    // MARK: - Writing

    /// Opens the encoders, creates the file under its temporary name and writes the
    /// header. The settings are fixed from here on. `startWriting()`.
    /// - Throws: ``ReelError`` when an encoder rejects its settings or the file cannot be created.
    public func startWriting() throws(ReelError) {
        let settings = try machine.withLock { (machine) throws(ReelError) -> AssetWriterStateMachine<WriterFiles>.Settings in
            guard case .configuring = machine.state else {
                throw ReelError(.invalidState, "startWriting() was already called", subject: outputURL.path)
            }
            guard !machine.settings.inputs.isEmpty else {
                throw ReelError(.invalidState, "add at least one input before startWriting()", subject: outputURL.path)
            }
            guard let settings = machine.beginStarting() else {
                throw ReelError(.invalidState, "startWriting() was already called", subject: outputURL.path)
            }
            return settings
        }
        if producesSegments {
            try startSegments(settings)
            return
        }
        if let streamFormat {
            try startStream(settings, formatName: streamFormat)
            return
        }
        let fragmented = settings.isFragmented
        let temporary = Self.temporaryURL(for: outputURL, fragmented: fragmented)
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: outputFileType.muxerName)
            let shared = SharedMuxer(muxer)
            for (index, input) in settings.inputs.enumerated() {
                try prepare(input, index: index, muxer: muxer, shared: shared, settings: settings)
            }
            if fragmented, outputFileType.isISOBaseMedia { Self.shiftForPriming(settings.inputs) }
            Self.writeMetadata(settings.metadata, to: muxer)
            // A fragmented recording's `.partial` file is kept on purpose when the program stops.
            if !fragmented { InProgressFiles.add(temporary) }
            try muxer.writeHeader(options: muxerOptions(settings))
            let files = WriterFiles(muxer: shared, temporaryURL: temporary, isFragmented: fragmented, inputs: settings.inputs)
            guard machine.withLock({ $0.started(files) }) else {
                files.discard(removingPartial: true)
                throw ReelError(.cancelled, "the writing was cancelled", subject: outputURL.path)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            InProgressFiles.remove(temporary)
            for input in settings.inputs { input.pipeline = nil }
            let named = fragmented ? error.about(outputURL.path) : error.renamingSubject(temporary.path, to: outputURL.path)
            machine.withLock { $0.startFailed(named) }
            throw named
        }
    }

    /// ``startWriting()`` of a segmented writer: the muxer writes into a ``SegmentAssembler``,
    /// which hands the initialization segment over before this returns.
    private func startSegments(_ settings: AssetWriterStateMachine<WriterFiles>.Settings) throws(ReelError) {
        do throws(ReelError) {
            let plan = try Self.segmentPlan(settings)
            guard let delegate = settings.delegate?.delegate else {
                throw ReelError(.invalidState, "set a delegate before startWriting(): it receives the segments")
            }
            let assembler = try SegmentAssembler(plan: plan, writer: self, delegate: delegate)
            guard let stream = assembler.stream else { throw ReelError(.outOfMemory, "no output stream") }
            let muxer = try Muxer(formatName: "mp4", stream: stream, name: outputURL.path)
            let shared = SharedMuxer(muxer)
            for (index, input) in settings.inputs.enumerated() {
                try prepare(input, index: index, muxer: muxer, shared: shared, settings: settings)
            }
            Self.shiftForPriming(settings.inputs, trimming: true)
            Self.writeMetadata(settings.metadata, to: muxer)
            let hasVideo = settings.inputs.contains { $0.mediaType == .video }
            try muxer.writeHeader(options: Self.segmentOptions(settings, plan: plan, hasVideo: hasVideo))
            muxer.flush()
            assembler.headerWritten()
            let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent(".reel-segments-\(UUID().uuidString)")
            let files = WriterFiles(muxer: shared, temporaryURL: nowhere, isFragmented: false, inputs: settings.inputs,
                                    segments: assembler)
            guard machine.withLock({ $0.started(files) }) else {
                files.discard(removingPartial: true)
                throw ReelError(.cancelled, "the writing was cancelled", subject: outputURL.path)
            }
        } catch {
            for input in settings.inputs { input.pipeline = nil }
            let named = error.about(outputURL.path)
            machine.withLock { $0.startFailed(named) }
            throw named
        }
    }

    /// ``startWriting()`` of a stream: the muxer opens the URL (connecting) and writes its header.
    private func startStream(_ settings: AssetWriterStateMachine<WriterFiles>.Settings, formatName: String) throws(ReelError) {
        do throws(ReelError) {
            let muxer = try Muxer(path: outputURL.absoluteString, formatName: formatName)
            let shared = SharedMuxer(muxer)
            for (index, input) in settings.inputs.enumerated() {
                try prepare(input, index: index, muxer: muxer, shared: shared, settings: settings)
            }
            try muxer.writeHeader(options: [:])
            let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent(".reel-stream-\(UUID().uuidString)")
            let files = WriterFiles(muxer: shared, temporaryURL: nowhere, isFragmented: false, inputs: settings.inputs)
            guard machine.withLock({ $0.started(files) }) else {
                files.discard(removingPartial: true)
                throw ReelError(.cancelled, "the writing was cancelled", subject: outputURL.absoluteString)
            }
        } catch {
            for input in settings.inputs { input.pipeline = nil }
            let named = error.about(outputURL.absoluteString)
            machine.withLock { $0.startFailed(named) }
            throw named
        }
    }

    /// When the segments are cut, from the settings, as AVFoundation checks them.
    static func segmentPlan(_ settings: AssetWriterStateMachine<WriterFiles>.Settings) throws(ReelError)
        -> SegmentAssembler.SegmentPlan {
        guard let profile = settings.outputFileTypeProfile else {
            throw ReelError(.invalidState, "set outputFileTypeProfile (.mpeg4AppleHLS or .mpeg4CMAFCompliant) before startWriting()")
        }
        guard profile == .mpeg4AppleHLS || profile == .mpeg4CMAFCompliant else {
            throw ReelError(.unsupported, "the profile \(profile) is not one Reel writes")
        }
        let interval = settings.preferredOutputSegmentInterval
        if interval.isIndefinite { return .init(interval: nil, initialStart: nil) }
        if interval.isValid, !(interval.isNumeric && interval > .zero) {
            throw ReelError(.invalidArgument, "the segment interval must be positive, indefinite or invalid (the default)")
        }
        let start = settings.initialSegmentStartTime
        if interval.isNumeric, !start.isNumeric {
            throw ReelError(.invalidArgument, "set a numeric initialSegmentStartTime with a numeric segment interval")
        }
        // Without a numeric interval (the writer's 6 s) the segments start with the session.
        guard interval.isNumeric else { return .init(interval: MediaTime(value: 6, timescale: 1), initialStart: nil) }
        return .init(interval: interval, initialStart: start)
    }

    /// The MP4 muxer's options for segments: an empty moov up front, a fragment at every
    /// keyframe (or every interval for sound alone), times relative to each moof, no
    /// trailing index. CMAF's profile adds its brand.
    ///
    /// The segments keep the session's timeline: a sample appended at `T` is at `T - start` in
    /// them, also when the first sample comes after the session's start. FFmpeg's default for
    /// a fragmented MP4 without an edit list moves the first packet to zero (`avoid_negative_ts
    /// make_zero`), which put every time, and so every cut, off by the first sample's lateness:
    /// a first picture 0.37 s into the session gave keyframes at 1.63, 3.63 … s and a first
    /// segment of 3.63 s. Here nothing is moved (`make_non_negative`: nothing is negative, the
    /// AAC priming is laid from zero), no edit list is written, and `frag_discont` makes each
    /// track's first `tfdt` its first sample's time rather than zero.
    private static func segmentOptions(_ settings: AssetWriterStateMachine<WriterFiles>.Settings,
                                       plan: SegmentAssembler.SegmentPlan, hasVideo: Bool) -> [String: String] {
        var flags = "+frag_keyframe+empty_moov+default_base_moof+skip_trailer+frag_discont"
        if settings.outputFileTypeProfile == .mpeg4CMAFCompliant { flags += "+cmaf" }
        var options = ["movflags": flags, "avoid_negative_ts": "make_non_negative", "use_editlist": "0"]
        if !hasVideo {
            let interval = plan.interval ?? MediaTime(value: 1, timescale: 1)
            options["frag_duration"] = String(interval.convertScale(1_000_000).value)
        }
        // Parts (LL-HLS): a fragment also when its media reaches a little under the part's
        // length, so that with the frame after it a part lasts at most that length.
        if let part = (settings.delegate?.delegate as? any AssetWriterPartDelegate)?.partInterval, part > .zero {
            options["frag_duration"] = String(part.multiplied(byRatio: 9, divisor: 10).convertScale(1_000_000).value)
        }
        return options
    }

    /// A fragmented MP4's moov is written before any packet, so it cannot hold the edit
    /// list that hides AAC's priming (the encoder's first frame starts before zero), and
    /// FFmpeg stretches the first sample of any track that does not start at zero. So in
    /// the `.partial` file the audio alone starts at zero, priming included (its sound one
    /// AAC frame, 21 ms at 48 kHz, after its picture), which keeps a file killed in its
    /// first second readable. The finished file takes the shift back and hides the priming
    /// with an edit list, as FFmpeg's MP4 muxer does for AAC (``finishSynchronously()``).
    ///
    /// Segments (`trimming`) have no later file to take the shift back, so there the sound
    /// is laid one AAC frame early instead: the priming then ends exactly at zero, the sound
    /// from the session's start plus that frame plays at its own time, and what came before
    /// it (the first 21 ms at 48 kHz) is not written.
    private static func shiftForPriming(_ inputs: [AssetWriterInput], trimming: Bool = false) {
        for input in inputs where input.audioSettings?.codec == .aac {
            guard let pipeline = input.pipeline else { continue }
            pipeline.timestampShift = Int64(pipeline.encoder.frameSize)
            if trimming { pipeline.leadTrim = Int64(pipeline.encoder.frameSize) }
        }
    }

    private func prepare(_ input: AssetWriterInput, index: Int, muxer: Muxer, shared: SharedMuxer,
                         settings: AssetWriterStateMachine<WriterFiles>.Settings) throws(ReelError) {
        let fragmented = settings.isFragmented
        let encoder: Encoder
        var tag: String?
        if let video = input.videoSettings {
            var configuration = EncoderChoice.video(video, fileType: outputFileType)
            configuration.globalHeader = muxer.wantsGlobalHeader
            if fragmented, video.keyFrameInterval == nil {
                // A keyframe at every fragment, so each fragment plays on its own.
                let rate = video.expectedFrameRate ?? 30
                configuration.keyFrameInterval = max(1, Int(min(10_000, (rate * settings.movieFragmentInterval.seconds).rounded())))
            }
            if producesSegments {
                // A keyframe at every segment interval and nowhere else (no scene cuts), and no
                // B-frames: two writers with the same interval and frame times cut at the same
                // times, and a segment's first picture shows at its first decode time (a
                // fragmented moov has no edit list to hide B-frames' delay).
                // With a numeric interval the keyframes are forced on the first picture at or
                // after each boundary (InputEncoder.keyframeBoundaries), by time: a source that
                // drops frames gets segments as long as the interval, not as long as a count of
                // frames takes. The encoder's own keyframes are then only a far fallback.
                let interval = (try? Self.segmentPlan(settings).interval) ?? nil
                if video.keyFrameInterval == nil {
                    let seconds = interval?.seconds ?? 2
                    let rate = video.expectedFrameRate ?? 30
                    let frames = max(1, (rate * seconds).rounded())
                    configuration.keyFrameInterval = max(1, Int(min(10_000, interval == nil ? frames : frames * 4)))
                }
                configuration.options["bf"] = "0"
                if video.codec == .h264 {
                    configuration.options["x264-params"] = "scenecut=0:sync-lookahead=0"
                    configuration.options["forced-idr"] = "1"
                }
                if video.codec == .hevc {
                    configuration.options["x265-params"] = "scenecut=0:bframes=0"
                    configuration.options["forced-idr"] = "1"
                }
            }
            if streamFormat != nil, video.codec == .h264 {
                // A live stream: each frame leaves as soon as it is encoded.
                configuration.options["tune"] = "zerolatency"
            }
            if fragmented, input.expectsMediaDataInRealTime, video.codec == .h264 || video.codec == .hevc {
                // No lookahead or B-frames: a live frame reaches its fragment, and the disk,
                // a frame after it arrives instead of half a second later, so a crash loses
                // no more than the fragment being filled.
                configuration.options["tune"] = "zerolatency"
            }
            if !input.expectsMediaDataInRealTime, video.codec == .h264, !producesSegments {
                // x264's threaded lookahead decides frame types from however many frames have
                // arrived when it runs, so the same pictures may encode differently from run to
                // run on a busy machine (2 of 24 ffmpeg CLI runs here). Without it an export is
                // the same bytes of picture every time, at the same speed: 300 frames of the
                // seed composition (640x360, medium, CRF 23) alternated ABBA 8 times each, 3.21
                // CPU-s median either way (wall 27.6 s with the threaded lookahead, 29.2 s
                // without, at load 23-35, where single runs moved from 11 to 53 s), so every
                // export keeps it (chunked joins and byte-comparing tests rely on it); live
                // capture keeps the threaded lookahead.
                configuration.options["x264-params"] = "sync-lookahead=0"
                // The lookahead then runs on the thread that feeds x264, between frames: one
                // frame more in flight than x264's own choice (1.5 a core) keeps the cores busy
                // while it runs. Measured on 2 cores (4 frame threads against 3, the same
                // preset, CRF and GOP; the bytes still the same every run): the seed
                // composition's 1050 pictures encoded alone, 5.49-5.90 s against 6.16-6.38 s.
                if configuration.threads == 0 { configuration.threads = EncoderChoice.x264FrameThreadsWithSyncLookahead }
            }
            encoder = try Encoder(video: configuration)
            if video.codec == .hevc, outputFileType.isISOBaseMedia { tag = "hvc1" }
        } else if let audio = input.audioSettings {
            var configuration = EncoderChoice.audio(audio)
            configuration.globalHeader = muxer.wantsGlobalHeader
            encoder = try Encoder(audio: configuration)
        } else {
            throw ReelError(.invalidArgument, "input \(index) has no settings")
        }
        let stream = try muxer.addStream(for: encoder, codecTag: tag)
        if input.mediaType == .video, !input.transform.isIdentity {
            try muxer.setDisplayMatrix(input.transform, streamIndex: stream)
        }
        if let language = input.languageCode { muxer.setMetadata("language", language, streamIndex: stream) }
        // A live source's sound queues far deeper than its pictures: a buffer of sound is a few
        // kilobytes and one dropped is a silent hole (a click lost), where a dropped picture is
        // a held frame. A microphone's backlog comes at once after a stall (0.4 s of 1024-sample
        // buffers is 19, of PulseAudio's 10 ms buffers 40): at 16, a loaded machine's replay
        // lost the click under a flash it showed. 256 holds 2.5 s of the smallest buffers.
        let capacity = input.expectsMediaDataInRealTime ? (input.mediaType == .audio ? 256 : 16) : 4
        input.pipeline = try InputEncoder(
            encoder: encoder, streamIndex: stream, mediaType: input.mediaType, muxer: shared, capacity: capacity,
            label: "\(input.mediaType)-\(index)", onError: { [weak self] error in self?.fail(error) })
    }

    private static func writeMetadata(_ metadata: AssetMetadata, to muxer: Muxer) {
        let date = metadata.creationDate ?? Date()
        muxer.setMetadata("creation_time", Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        if let title = metadata.title { muxer.setMetadata("title", title) }
        if let location = metadata.location { muxer.setMetadata("location", location.iso6709) }
        if let make = metadata.make { muxer.setMetadata("make", make) }
        if let model = metadata.model { muxer.setMetadata("model", model) }
    }

    private func muxerOptions(_ settings: AssetWriterStateMachine<WriterFiles>.Settings) -> [String: String] {
        guard outputFileType.isISOBaseMedia else { return [:] }
        if settings.isFragmented {
            let micros = settings.movieFragmentInterval.convertScale(1_000_000).value
            // flush_packets: each fragment reaches the file as the muxer completes it, instead
            // of waiting in the 32 kB I/O buffer, where a killed process would lose it. (The
            // moov goes first, empty, so that even a file killed in its first second is read;
            // see `shiftForPriming` for how the streams still start together.)
            return ["movflags": "+frag_keyframe+empty_moov+default_base_moof", "frag_duration": String(micros),
                    "flush_packets": "1"]
        }
        return settings.shouldOptimizeForNetworkUse ? ["movflags": "+faststart"] : [:]
    }

    static func temporaryURL(for destination: URL, fragmented: Bool) -> URL {
        let folder = destination.deletingLastPathComponent()
        let name = destination.deletingPathExtension().lastPathComponent
        let ext = destination.pathExtension
        if fragmented {
            // Never over an earlier interrupted recording: that one is kept on purpose.
            var candidate = folder.appendingPathComponent("\(name).partial.\(ext)")
            var number = 2
            while FileManager.default.fileExists(atPath: candidate.path) {
                candidate = folder.appendingPathComponent("\(name).partial-\(number).\(ext)")
                number += 1
            }
            return candidate
        }
        let token = UUID().uuidString.prefix(8)
        return folder.appendingPathComponent(".\(name).reel-\(token).\(ext)")
    }

    /// Ends the current segment: with an indefinite ``preferredOutputSegmentInterval``, the
    /// next keyframe starts a new one (segments always start on keyframes). `flushSegment()`.
    public func flushSegment() {
        machine.withLock { $0.session?.output.segments }?.flush()
    }

    /// Appended samples before `time` are dropped; `time` is zero in the file, and a sample
    /// appended at `T` is at `T - time` in it, however late the first sample comes. A segmented
    /// writer cuts its segments on ``initialSegmentStartTime``'s grid, laid on the file's
    /// timeline here (not from the first sample). `startSession(atSourceTime:)`.
    /// - Parameter time: The source time the file starts at.
    public func startSession(atSourceTime time: MediaTime) {
        guard let files = machine.withLock({ $0.startSession(at: time) }), let segments = files.segments,
            let grid = segments.sessionStarted(at: time)
        else { return }
        // Appends come only after this returns, so the encoders see the grid before any picture.
        for input in files.inputs where input.mediaType == .video { input.pipeline?.keyframeBoundaries = grid }
    }

    /// Samples at or after `time` are dropped, and the file ends there. `endSession(atSourceTime:)`.
    /// - Parameter time: The source time the file ends at.
    public func endSession(atSourceTime time: MediaTime) {
        machine.withLock { $0.endSession(at: time) }
    }

    /// Encodes what is queued, writes the index and renames the file into place, on a
    /// thread of its own. Cancelling the task cancels the writing (``cancelWriting()``).
    /// `finishWriting()`.
    /// - Throws: ``ReelError``: the first error of any input, or of the final write
    ///   (a full disk, say), or `.cancelled`. The temporary file is removed then; the
    ///   destination is untouched.
    public func finishWriting() async throws(ReelError) {
        try await BlockingWork.run(
            onCancel: { [self] in cancelWriting() },
            { [self] () throws(ReelError) in try finishSynchronously() })
    }

    /// ``finishWriting()`` on the calling thread, for command-line tools and tests.
    public func finishSynchronously() throws(ReelError) {
        let files: WriterFiles
        let session: AssetWriterStateMachine<WriterFiles>.Session
        switch machine.withLock({ $0.beginFinishing() }) {
        case .refuse(.cancelled):
            throw ReelError(.cancelled, "the writing was cancelled", subject: outputURL.path)
        case .refuse(let status):
            throw ReelError(.invalidState, "cannot finish: the writer is \(status)", subject: outputURL.path)
        case .fail(let error, let cleanup):
            cleanup?.discard()
            throw error
        case .finish(let started):
            session = started
            files = started.output
        }
        for input in files.inputs { input.markAsFinished() }
        let (start, end) = (session.start, session.end)
        do throws(ReelError) {
            for input in files.inputs {
                guard let pipeline = input.pipeline else { continue }
                pipeline.waitUntilIdle()
                try checkFinishing()
                let endTicks = end.isNumeric && start.isNumeric ? pipeline.encoder.timeBase.timestamp(end - start) : nil
                try pipeline.finish(endTicks: endTicks)
            }
            try checkFinishing()
            try files.muxer.withLock { (muxer) throws(ReelError) in try muxer.finish() }
            try checkFinishing()
            if let segments = files.segments {
                segments.finish()
            } else if streamFormat != nil {
                // The stream ended with the trailer; there is no file to put in place.
            } else if files.isFragmented, outputFileType.isISOBaseMedia {
                try completeFragmented(files, duration: end.isNumeric && start.isNumeric ? end - start : nil)
            } else {
                try machine.withLock { $0.settings.exportCheck }?.verify(files.temporaryURL, as: outputURL)
                try Self.moveIntoPlace(files.temporaryURL, destination: outputURL)
            }
            InProgressFiles.remove(files.temporaryURL)
            machine.withLock { $0.finished() }
            files.releasePipelines()
        } catch {
            let cancelled = status == .cancelled
            if !cancelled { fail(error) }
            files.discard(removingPartial: cancelled)
            throw cancelled ? error : self.error ?? error.about(outputURL.path)
        }
    }

    /// Throws when a cancel or a failure came while finishing.
    private func checkFinishing() throws(ReelError) {
        switch machine.withLock({ $0.checkFinishing() }) {
        case .goOn: return
        case .cancelled: throw ReelError(.cancelled, "the writing was cancelled", subject: outputURL.path)
        case .failed(let error): throw error
        }
    }

    /// A finished fragmented recording becomes an ordinary file with the whole index: its
    /// packets are copied (nothing is decoded) with the audio's priming shift taken back,
    /// so that an edit list hides the priming, and the sound cut where the session ends.
    /// The `.partial` file is removed once the copy is in place.
    private func completeFragmented(_ files: WriterFiles, duration: MediaTime?) throws(ReelError) {
        // Without `endSession`, the session ends where the last appended sample does (the last
        // AAC frame's padding past it is cut, as an ordinary file's edit list cuts it).
        let ends = files.inputs.compactMap { input in
            input.pipeline.flatMap { pipeline in pipeline.appendedEndTicks.map { pipeline.encoder.timeBase.time($0) } }
        }
        let duration = duration ?? ends.max()
        var earlier: [Int: MediaTime] = [:]
        for input in files.inputs {
            guard let pipeline = input.pipeline, pipeline.timestampShift != 0, pipeline.mediaType == .audio else { continue }
            let rate = Int32(clamping: pipeline.encoder.audioFormat.sampleRate)
            earlier[pipeline.streamIndex] = MediaTime(value: pipeline.timestampShift, timescale: rate)
        }
        // Where the first picture belongs: a fragmented file has no edit list, so FFmpeg moves
        // every track later by a B-frame encoder's reordering delay (its first decode time is
        // negative), which the copy takes back.
        var firstPicture: (stream: Int, time: MediaTime)?
        for input in files.inputs {
            guard let pipeline = input.pipeline, pipeline.mediaType == .video, let ticks = pipeline.firstVideoTicks else { continue }
            firstPicture = (pipeline.streamIndex, pipeline.encoder.timeBase.time(ticks))
            break
        }
        let optimize = machine.withLock { $0.settings.shouldOptimizeForNetworkUse }
        try RecordingRecovery.complete(files.temporaryURL, to: outputURL, fileType: outputFileType, earlier: earlier,
                                       firstPicture: firstPicture, duration: duration, optimizeForNetworkUse: optimize)
        try? FileManager.default.removeItem(at: files.temporaryURL)
    }

    /// Stops writing and removes the temporary file. `cancelWriting()`.
    public func cancelWriting() {
        if case .discard(let files) = machine.withLock({ $0.cancel() }) { files.discard(removingPartial: true) }
    }

    /// Records the first error; the file is closed off the encoding queue that reported it.
    func fail(_ error: ReelError) {
        let action = machine.withLock { machine in
            machine.fail(Self.reported(error, destination: outputURL, files: machine.session?.output))
        }
        if case .discard(let files) = action { DispatchQueue.global().async { files.discard() } }
    }

    /// The error as the user should read it: about the destination, not the hidden
    /// temporary name; for a fragmented recording, saying where the recording so far is.
    static func reported(_ error: ReelError, destination: URL, files: WriterFiles?) -> ReelError {
        var reported = error.about(destination.path)
        guard let files else { return reported }
        if !files.isFragmented { return error.renamingSubject(files.temporaryURL.path, to: destination.path) }
        let partial = files.temporaryURL.path
        reported.message += reported.subject == partial ? "; the recording so far is kept, playable, in that file"
            : "; the recording so far is kept, playable, in \(partial)"
        return reported
    }

    package static func moveIntoPlace(_ source: URL, destination: URL) throws(ReelError) {
        guard rename(source.path, destination.path) == 0 else {
            let message = String(cString: strerror(errno))
            throw ReelError(.io, "cannot move the finished file into place: \(message)", subject: destination.path,
                            operation: "rename")
        }
    }
}

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
public final class AssetWriter: @unchecked Sendable {
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
    /// Write a fragmented file with a fragment at least this often, so that an
    /// interrupted recording stays playable. Invalid (the default) writes one index at
    /// the end. `movieFragmentInterval`.
    public var movieFragmentInterval: MediaTime = .invalid
    /// Put the index before the media data so that playback can start while the file
    /// downloads. `shouldOptimizeForNetworkUse`.
    public var shouldOptimizeForNetworkUse = true
    /// Creation date, title and location to write. `metadata`.
    public var metadata = AssetMetadata()
    public private(set) var inputs: [AssetWriterInput] = []
    /// What the file should hold, checked from its timestamps before it is put in place
    /// (``ExportCheck``); set by exports before ``startWriting()``. Nil checks nothing.
    package var exportCheck: ExportCheck?

    private let lock = NSLockBox()
    private var _status: Status = .unknown
    private var _error: ReelError?
    private var sessionStart: MediaTime = .invalid
    private var sessionEnd: MediaTime = .invalid
    private var muxer: SharedMuxer?
    private var temporaryURL: URL?

    /// `status`.
    public var status: Status { lock.withLock { _status } }
    /// Why the writer failed. `error`.
    public var error: ReelError? { lock.withLock { _error } }
    var sessionTimes: (MediaTime, MediaTime) { lock.withLock { (sessionStart, sessionEnd) } }

    /// Where the file is being written until it is finished.
    public var inProgressURL: URL? { lock.withLock { temporaryURL } }

    /// A writer of `fileType` to `outputURL`.
    /// - Throws: ``ReelError`` `.fileNotFound` when the folder does not exist,
    ///   `.permissionDenied` when it cannot be written, `.isDirectory` when the URL is one.
    public init(outputURL: URL, fileType: FileType) throws(ReelError) {
        self.outputURL = outputURL
        outputFileType = fileType
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

    /// A writer whose file type follows the URL's extension.
    public convenience init(outputURL: URL) throws(ReelError) {
        guard let type = FileType(pathExtension: outputURL.pathExtension) else {
            throw ReelError(.unsupported, "Reel writes .mp4, .mov, .m4v, .webm and .mkv, not '.\(outputURL.pathExtension)'",
                            subject: outputURL.path)
        }
        try self.init(outputURL: outputURL, fileType: type)
    }

    /// Whether `input` can be added: before writing starts, with settings this file type takes.
    public func canAdd(_ input: AssetWriterInput) -> Bool {
        status == .unknown && input.writer == nil && compatibilityProblem(input) == nil
    }

    /// Adds an input. `add(_:)`.
    /// - Throws: ``ReelError`` naming why the input cannot go into this file.
    public func add(_ input: AssetWriterInput) throws(ReelError) {
        if let problem = compatibilityProblem(input) {
            throw ReelError(.unsupported, problem, subject: outputURL.path)
        }
        guard status == .unknown, input.writer == nil else {
            throw ReelError(.invalidState, "inputs can only be added before startWriting()", subject: outputURL.path)
        }
        input.writer = self
        inputs.append(input)
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
    /// header. `startWriting()`.
    /// - Throws: ``ReelError`` when an encoder rejects its settings or the file cannot be created.
    public func startWriting() throws(ReelError) {
        guard status == .unknown else {
            throw ReelError(.invalidState, "startWriting() was already called", subject: outputURL.path)
        }
        guard !inputs.isEmpty else {
            throw ReelError(.invalidState, "add at least one input before startWriting()", subject: outputURL.path)
        }
        let fragmented = movieFragmentInterval.isNumeric && movieFragmentInterval > .zero
        let temporary = Self.temporaryURL(for: outputURL, fragmented: fragmented)
        do throws(ReelError) {
            let muxer = try Muxer(path: temporary.path, formatName: outputFileType.muxerName)
            let shared = SharedMuxer(muxer)
            for (index, input) in inputs.enumerated() {
                try prepare(input, index: index, muxer: muxer, shared: shared, fragmented: fragmented)
            }
            if fragmented, outputFileType.isISOBaseMedia { shiftForPriming() }
            writeMetadata(muxer)
            lock.withLock { temporaryURL = temporary }
            if !fragmented { InProgressFiles.add(temporary) }
            try muxer.writeHeader(options: muxerOptions(fragmented: fragmented))
            lock.withLock {
                self.muxer = shared
                _status = .writing
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            lock.withLock { temporaryURL = nil }
            let named = fragmented ? error.about(outputURL.path) : error.renamingSubject(temporary.path, to: outputURL.path)
            fail(named)
            throw named
        }
    }

    /// A fragmented MP4's moov is written before any packet, so it cannot hold the edit
    /// list that hides AAC's priming (the encoder's first frame starts before zero), and
    /// FFmpeg stretches the first sample of any track that does not start at zero (a first
    /// picture 21 ms long, with everything after it 21 ms late). So the audio alone starts
    /// at zero, priming included: its sound comes one AAC frame (21 ms at 48 kHz) after its
    /// picture, well inside a frame and below what anyone hears, and in exchange a file
    /// killed in its first second is still readable (`delay_moov` would lose it).
    private func shiftForPriming() {
        for input in inputs where input.audioSettings?.codec == .aac {
            guard let pipeline = input.pipeline else { continue }
            pipeline.timestampShift = Int64(pipeline.encoder.frameSize)
        }
    }

    private func prepare(_ input: AssetWriterInput, index: Int, muxer: Muxer, shared: SharedMuxer,
                         fragmented: Bool) throws(ReelError) {
        let encoder: Encoder
        var tag: String?
        if let video = input.videoSettings {
            var configuration = EncoderChoice.video(video, fileType: outputFileType)
            configuration.globalHeader = muxer.wantsGlobalHeader
            if fragmented, video.keyFrameInterval == nil {
                // A keyframe at every fragment, so each fragment plays on its own.
                let rate = video.expectedFrameRate ?? 30
                configuration.keyFrameInterval = max(1, Int((rate * movieFragmentInterval.seconds).rounded()))
            }
            if fragmented, input.expectsMediaDataInRealTime, video.codec == .h264 || video.codec == .hevc {
                // No lookahead or B-frames: a live frame reaches its fragment, and the disk,
                // a frame after it arrives instead of half a second later, so a crash loses
                // no more than the fragment being filled.
                configuration.options["tune"] = "zerolatency"
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
        let capacity = input.expectsMediaDataInRealTime ? 16 : 4
        input.pipeline = try InputEncoder(
            encoder: encoder, streamIndex: stream, mediaType: input.mediaType, muxer: shared, capacity: capacity,
            label: "\(input.mediaType)-\(index)", onError: { [weak self] error in self?.fail(error) })
    }

    private func writeMetadata(_ muxer: Muxer) {
        let date = metadata.creationDate ?? Date()
        muxer.setMetadata("creation_time", Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        if let title = metadata.title { muxer.setMetadata("title", title) }
        if let location = metadata.location { muxer.setMetadata("location", location.iso6709) }
        if let make = metadata.make { muxer.setMetadata("make", make) }
        if let model = metadata.model { muxer.setMetadata("model", model) }
    }

    private func muxerOptions(fragmented: Bool) -> [String: String] {
        guard outputFileType.isISOBaseMedia else { return [:] }
        if fragmented {
            let micros = movieFragmentInterval.convertScale(1_000_000).value
            // flush_packets: each fragment reaches the file as the muxer completes it, instead
            // of waiting in the 32 kB I/O buffer, where a killed process would lose it. (The
            // moov goes first, empty, so that even a file killed in its first second is read;
            // see `shiftForPriming` for how the streams still start together.)
            return ["movflags": "+frag_keyframe+empty_moov+default_base_moof", "frag_duration": String(micros),
                    "flush_packets": "1"]
        }
        return shouldOptimizeForNetworkUse ? ["movflags": "+faststart"] : [:]
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

    /// Appended samples before `time` are dropped; `time` is zero in the file.
    /// `startSession(atSourceTime:)`.
    public func startSession(atSourceTime time: MediaTime) {
        lock.withLock { if !sessionStart.isValid, time.isNumeric { sessionStart = time } }
    }

    /// Samples at or after `time` are dropped, and the file ends there. `endSession(atSourceTime:)`.
    public func endSession(atSourceTime time: MediaTime) {
        lock.withLock { if time.isNumeric { sessionEnd = time } }
    }

    /// Encodes what is queued, writes the index and renames the file into place.
    /// `finishWriting()`.
    /// - Throws: ``ReelError``: the first error of any input, or of the final write
    ///   (a full disk, say). The temporary file is removed then; the destination is untouched.
    public func finishWriting() async throws(ReelError) {
        let result: Result<Void, ReelError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                do throws(ReelError) {
                    try finishSynchronously()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    /// ``finishWriting()`` on the calling thread, for command-line tools and tests.
    public func finishSynchronously() throws(ReelError) {
        guard status == .writing, let muxer, let temporary = inProgressURL else {
            if let error {
                discardAfterFailure()
                throw error
            }
            throw ReelError(.invalidState, "cannot finish: the writer is \(status)", subject: outputURL.path)
        }
        for input in inputs { input.markAsFinished() }
        let (start, end) = sessionTimes
        do throws(ReelError) {
            for input in inputs {
                guard let pipeline = input.pipeline else { continue }
                pipeline.waitUntilIdle()
                if let error { throw error }
                let endTicks = end.isNumeric && start.isNumeric ? pipeline.encoder.timeBase.timestamp(end - start) : nil
                try pipeline.finish(endTicks: endTicks)
            }
            if let error { throw error }
            try muxer.withLock { (muxer) throws(ReelError) in try muxer.finish() }
            try exportCheck?.verify(temporary, as: outputURL)
            try Self.moveIntoPlace(temporary, destination: outputURL)
            InProgressFiles.remove(temporary)
            lock.withLock {
                _status = .completed
                temporaryURL = nil
            }
            releasePipelines()
        } catch {
            fail(error)
            discardAfterFailure()
            throw self.error ?? error.about(outputURL.path)
        }
    }

    /// Stops writing and removes the temporary file. `cancelWriting()`.
    public func cancelWriting() {
        guard status == .writing || status == .unknown else { return }
        lock.withLock { _status = .cancelled }
        for input in inputs {
            input.markAsFinished()
            input.pipeline?.waitUntilIdle()
        }
        try? muxer?.withLock { $0.abandon() }
        if let temporary = inProgressURL {
            try? FileManager.default.removeItem(at: temporary)
            InProgressFiles.remove(temporary)
        }
        lock.withLock { temporaryURL = nil }
        releasePipelines()
    }

    private func releasePipelines() {
        for input in inputs { input.pipeline = nil }
        lock.withLock { muxer = nil }
    }

    func fail(_ error: ReelError) {
        let fragmented = movieFragmentInterval.isNumeric && movieFragmentInterval > .zero
        var reported = error.about(outputURL.path)
        // The hidden temporary name means nothing to the user; the destination does.
        if !fragmented, let temporary = inProgressURL { reported = error.renamingSubject(temporary.path, to: outputURL.path) }
        if fragmented, let partial = inProgressURL {
            reported.message += reported.subject == partial.path ? "; the recording so far is kept, playable, in that file"
                : "; the recording so far is kept, playable, in \(partial.path)"
        }
        let first = lock.withLock { () -> Bool in
            let first = _error == nil
            if first { _error = reported }
            if _status != .cancelled { _status = .failed }
            return first
        }
        // An encoding queue reports this; clean up from outside it, so its own work can end.
        if first { DispatchQueue.global().async { [self] in discardAfterFailure() } }
    }

    private var discarded = false

    /// Closes and removes the temporary file of a failed write (a fragmented recording
    /// keeps its `.partial` file: it is playable up to its last fragment). Idempotent.
    private func discardAfterFailure() {
        let go = lock.withLock { () -> Bool in
            defer { discarded = true }
            return !discarded && temporaryURL != nil
        }
        guard go else { return }
        for input in inputs { input.pipeline?.waitUntilIdle() }
        try? lock.withLock { muxer }?.withLock { $0.abandon() }
        let fragmented = movieFragmentInterval.isNumeric && movieFragmentInterval > .zero
        if let temporary = inProgressURL, !fragmented {
            try? FileManager.default.removeItem(at: temporary)
            InProgressFiles.remove(temporary)
        }
        lock.withLock { temporaryURL = nil }
        releasePipelines()
    }

    package static func moveIntoPlace(_ source: URL, destination: URL) throws(ReelError) {
        guard rename(source.path, destination.path) == 0 else {
            let message = String(cString: strerror(errno))
            throw ReelError(.io, "cannot move the finished file into place: \(message)", subject: destination.path,
                            operation: "rename")
        }
    }
}

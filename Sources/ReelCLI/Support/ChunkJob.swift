import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// A chunked export written down in `JOB/job.json`: what to render (a spec, a file, or
/// clips to merge, all by absolute path, so that any process on any node that sees `JOB/`
/// can rebuild the same composition), the preset, the cut list and where the joined file goes.
/// `reel plan` writes it; `reel render-chunk`, `render-sound`, `join` and `jobs` read it.
struct ChunkJob: Codable, Sendable {
    /// What the composition is built from.
    struct Source: Codable, Sendable {
        /// `compose` (a spec), `export` (one file) or `merge` (clips one after another).
        var kind: String
        var spec: String?
        var files: [String]?
        var transition: String?
        var size: String?

        /// The spec and the files the job reads.
        var inputPaths: [String] { (spec.map { [$0] } ?? []) + (files ?? []) }
    }

    /// A rational time, exact in JSON.
    struct Time: Codable, Sendable {
        var value: Int64
        var timescale: Int32
        var seconds: Double

        init(_ time: MediaTime) {
            value = time.value
            timescale = time.timescale
            seconds = time.seconds
        }

        var mediaTime: MediaTime { MediaTime(value: value, timescale: timescale) }
    }

    struct Chunk: Codable, Sendable {
        /// Its place in the render order (longest first); also its file's number.
        var index: Int
        var start: Time
        var end: Time
        var frames: Int
        var file: String
    }

    var version = 1
    var source: Source
    var preset: String
    /// The joined file.
    var output: String
    var frameDuration: Time
    var duration: Time
    var framesPerGOP: Int
    var chunks: [Chunk]
    /// The sound's file in `JOB/`, or nil when the composition is silent.
    var sound: String?
    /// Where cuts may not fall (transitions, animated overlays), in seconds, for people.
    var keptWhole: [[Double]]
    /// The `reel` that cluster tasks run.
    var reel: String
    /// Whether each chunk is its part of the whole timeline's smart render (its untouched GOPs
    /// copied); absent in jobs written before smart chunks, which render every frame.
    var smart: Bool?

    static let fileName = "job.json"

    /// The plan the job was written from.
    var plan: ChunkPlan {
        ChunkPlan(frameDuration: frameDuration.mediaTime, duration: duration.mediaTime, framesPerGOP: framesPerGOP,
                  chunks: chunks.map { ChunkPlan.Chunk(range: MediaTimeRange(start: $0.start.mediaTime, end: $0.end.mediaTime),
                                                       frameCount: $0.frames) },
                  keptWhole: [], smart: smart ?? false)
    }

    init(source: Source, preset: ExportPreset, output: URL, plan: ChunkPlan, withSound: Bool, reel: String) {
        self.source = source
        self.preset = preset.rawValue
        self.output = output.path
        frameDuration = Time(plan.frameDuration)
        duration = Time(plan.duration)
        framesPerGOP = plan.framesPerGOP
        chunks = plan.chunks.enumerated().map { index, chunk in
            Chunk(index: index, start: Time(chunk.range.start), end: Time(chunk.range.end), frames: chunk.frameCount,
                  file: String(format: "chunk-%04d.mp4", index))
        }
        sound = withSound ? "sound.mp4" : nil
        keptWhole = plan.keptWhole.map { [$0.start.seconds, $0.end.seconds] }
        self.reel = reel
        smart = plan.smart
    }

    // MARK: - The folder

    /// The names in `folder` when it is empty or holds an earlier job (its `job.json`, chunks,
    /// sound, state, Slurm files and joined output, and their temporary files) and nothing else.
    /// - Throws: ``ReelError`` naming the folder and a file that is not a job's.
    static func earlierJobsFiles(in folder: URL) throws(ReelError) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard !names.isEmpty else { return [] }
        let earlier = try? load(folder)
        let output = earlier.flatMap { job in
            URL(fileURLWithPath: job.output).deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path
                ? URL(fileURLWithPath: job.output).lastPathComponent : nil
        }
        func isJobs(_ name: String) -> Bool {
            let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
            return bare == fileName || bare.hasPrefix("\(fileName).") || bare.hasPrefix("chunk-") || bare.hasPrefix("sound.")
                || name == "state" || name == "slurm" || name == output
        }
        if earlier == nil || !names.allSatisfy(isJobs) {
            let stranger = names.first { earlier == nil || !isJobs($0) } ?? names[0]
            throw ReelError(.invalidArgument,
                            "holds \(ReelError.quoted(stranger)), which is not an earlier Reel job's; give an empty or new folder for the job",
                            subject: folder.path)
        }
        return names
    }

    /// Whether `path` is in `folder` or below it (symbolic links followed).
    static func isInside(_ path: String, folder: URL) -> Bool {
        let inner = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let outer = folder.standardizedFileURL.resolvingSymlinksInPath().path
        return inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
    }

    /// Reads `JOB/job.json`.
    /// - Throws: ``ReelError`` naming the folder when it is missing or holds no readable job.
    static func load(_ folder: URL) throws(ReelError) -> ChunkJob {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) else {
            throw ReelError(.fileNotFound, "no such job folder", subject: folder.path)
        }
        guard isFolder.boolValue else { throw ReelError(.invalidArgument, "is not a folder (give the JOB/ folder reel plan wrote)", subject: folder.path) }
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReelError(.fileNotFound, "holds no \(fileName): not a job folder (reel plan writes one)", subject: folder.path)
        }
        do {
            let job = try JSONDecoder().decode(ChunkJob.self, from: data)
            guard job.version == 1, !job.chunks.isEmpty, job.chunks.count <= ChunkPlan.maximumChunks else {
                throw ReelError(.invalidData, "is a job of another version or without chunks", subject: url.path)
            }
            // Written by reel plan, but read from a shared folder: numbers out of range are refused, not trusted.
            let times = [job.frameDuration, job.duration] + job.chunks.flatMap { [$0.start, $0.end] }
            guard (1...100_000).contains(job.framesPerGOP), times.allSatisfy({ $0.timescale > 0 }),
                  job.frameDuration.value > 0, job.duration.value > 0,
                  job.chunks.allSatisfy({ (0...Int(Int32.max)).contains($0.frames) && !$0.file.contains("/") && $0.file.hasSuffix(".mp4") }),
                  job.sound.map({ !$0.contains("/") }) ?? true else {
                throw ReelError(.invalidData, "holds a GOP, time, frame count or file name out of range", subject: url.path)
            }
            return job
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.invalidData, "cannot be read as a job: \(error)", subject: url.path)
        }
    }

    /// Creates `folder` when it is missing (its parent must exist) and writes `job.json` into it
    /// under a temporary name, renamed when complete; clears what an earlier job left.
    /// - Throws: ``ReelError`` naming the folder when it cannot be made or written.
    func write(to folder: URL) throws(ReelError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw ReelError(.invalidArgument, "exists and is not a folder", subject: folder.path) }
        } else {
            let parent = folder.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw ReelError(.fileNotFound, "cannot be made: the folder \(parent.path) does not exist", subject: folder.path)
            }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            } catch {
                throw ReelError(.io, "cannot be made: \(Self.reason(error))", subject: folder.path)
            }
        }
        guard access(folder.path, W_OK | X_OK) == 0 else { throw ReelError(.permissionDenied, "is not writable", subject: folder.path) }
        // What an earlier job in this folder left would be taken for this one's work, so it is
        // cleared; which is why a folder is reused only when it holds an earlier job and nothing
        // else, and none of this job's inputs (a clip named sound.mp4 would go with the rest).
        let leftovers = try Self.earlierJobsFiles(in: folder)
        if let input = source.inputPaths.first(where: { Self.isInside($0, folder: folder) }) {
            throw ReelError(.invalidArgument, "holds the input \(input): give the job a folder of its own", subject: folder.path)
        }
        for name in leftovers where name.hasPrefix("chunk-") || name.hasPrefix("sound.") || name == "state" || name == "slurm" {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = folder.appendingPathComponent(Self.fileName)
        let temporary = folder.appendingPathComponent(".\(Self.fileName).\(UUID().uuidString.prefix(8))")
        do {
            try encoder.encode(self).write(to: temporary)
            guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ReelError(.io, "cannot write \(Self.fileName): \(Self.reason(error))", subject: folder.path)
        }
        do {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
        } catch {
            throw ReelError(.io, "cannot make its state folder: \(Self.reason(error))", subject: folder.path)
        }
    }

    static func reason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return (error as NSError).localizedDescription
    }

    // MARK: - Building the composition

    /// The export this job's processes share: the composition built from the source, with the preset.
    /// - Throws: ``ReelError`` naming the spec path or file that cannot be read.
    func session() throws(ReelError) -> ExportSession {
        try Self.session(source, preset: preset)
    }

    /// The export `source` describes, with the preset named `name` (nil: the spec's, else
    /// `highest` for one file and `1280x720` for clips to merge, as `reel compose`, `export`
    /// and `merge` choose).
    /// - Throws: ``ReelError`` naming the spec path, the file or the preset.
    static func session(_ source: Source, preset name: String?) throws(ReelError) -> ExportSession {
        func preset(_ fallback: ExportPreset) throws(ReelError) -> ExportPreset {
            guard let name else { return fallback }
            guard let preset = ExportPreset.allCases.first(where: { $0.rawValue == name }) else {
                throw ReelError(.invalidArgument, "is one of \(ExportPreset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'",
                                subject: "--preset")
            }
            return preset
        }
        switch source.kind {
        case "compose":
            guard let path = source.spec else { throw ReelError(.invalidData, "has no spec", subject: "job.json source") }
            let url = URL(fileURLWithPath: path)
            let spec = try CompositionSpec(contentsOf: url)
            try SpecRenderLimits.check(spec, at: url, for: "a chunked export")
            let built: BuiltComposition
            do {
                built = try spec.build(relativeTo: url.deletingLastPathComponent())
            } catch {
                throw ReelError(error.code, error.message, subject: "\(url.path): \(error.subject ?? "spec")")
            }
            let session = ExportSession(composition: built.composition, preset: try preset(built.preset))
            session.videoComposition = built.videoComposition
            session.audioMix = built.audioMix
            return session
        case "export":
            guard let path = source.files?.first else { throw ReelError(.invalidData, "has no file", subject: "job.json source") }
            let sequence = try ClipSequence(assets: [try CompositionExport.videoAsset(path)])
            let session = ExportSession(composition: sequence.composition, preset: try preset(.highestQuality))
            session.videoComposition = sequence.videoComposition
            session.audioMix = sequence.audioMix
            return session
        case "merge":
            guard let files = source.files, !files.isEmpty else { throw ReelError(.invalidData, "has no clips", subject: "job.json source") }
            let transition = source.transition.flatMap { Transition(spec: $0) } ?? .none
            let size = source.size.flatMap { text -> Size? in
                let parts = text.split(separator: "x").compactMap { Int($0) }
                return parts.count == 2 ? Size(width: Double(parts[0]), height: Double(parts[1])) : nil
            }
            var assets: [Asset] = []
            for path in files { assets.append(try Asset(path: path)) }
            let sequence = try ClipSequence(clips: assets.map { ClipSequence.Clip(pictureOf: $0) }, transitions: [transition],
                                            renderSize: size)
            let session = ExportSession(composition: sequence.composition, preset: try preset(.preset1280x720))
            session.videoComposition = sequence.videoComposition
            session.audioMix = sequence.audioMix
            return session
        default:
            throw ReelError(.invalidData, "has a source of unknown kind '\(source.kind)'", subject: "job.json")
        }
    }

    /// Writes a job for `session` into `folder`: the plan, made now, and the description. The
    /// chunks are smart (each its part of the whole timeline's smart render) when
    /// `session.smartRender` is on and the smart render copies anything.
    /// - Throws: ``ReelError`` naming the option, the spec path or the folder.
    static func prepare(source: Source, session: ExportSession, request: ChunkPlan.Request, folder: URL, output: URL,
                        reel: String) throws(ReelError) -> ChunkJob {
        guard session.preset != .passthrough else {
            throw ReelError(.invalidArgument, "passthrough copies without rendering: there is nothing to cut into chunks",
                            subject: "--preset")
        }
        let plan = try ChunkPlan.make(for: session, request: request, smart: try ChunkedExport.smartPlan(for: session))
        let job = ChunkJob(source: source, preset: session.preset, output: output.standardizedFileURL, plan: plan,
                           withSound: ChunkedExport.hasSound(session), reel: reel)
        try job.write(to: folder)
        return job
    }

    /// This process's own executable, for the processes a job starts.
    static var ownExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A chunk's file in `folder`.
    func chunkFile(_ index: Int, in folder: URL) -> URL { folder.appendingPathComponent(chunks[index].file) }
}

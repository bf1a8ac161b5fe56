public import Foundation
public import ReelCore

/// An adaptive-streaming package of a movie: its picture at several heights (a ladder) and
/// its sound once, each a folder of fMP4 segments written by segmented ``AssetWriter``s,
/// with an HLS master playlist (`master.m3u8`) and/or a DASH manifest (`manifest.mpd`)
/// over the one segment set.
///
/// Every rendition encodes the same frames with a keyframe at every segment interval and
/// none elsewhere, so their segments start at the same times (a player switches between
/// them at any boundary). The package is written under a hidden temporary name beside
/// `destination` and renamed when complete: a failure leaves nothing behind.
public struct AdaptivePackage: Sendable {
    /// One picture rendition in the package.
    public struct Rendition: Sendable, Equatable {
        /// Its folder in the package (`720p`).
        public var name: String
        public var width: Int
        public var height: Int
        /// Bits a second over its segments.
        public var bandwidth: Int
        /// Its segments' start times, the same for every rendition.
        public var segmentStarts: [MediaTime]
        /// The sum of its segments' durations.
        public var duration: MediaTime
    }

    /// What to write.
    public struct Options: Sendable {
        /// Picture heights, tallest first; heights above the source's are left out (the
        /// source's own height is used when none is left).
        public var ladder: [Int]
        /// Write `master.m3u8` and the renditions' media playlists.
        public var hls: Bool
        /// Write `manifest.mpd`.
        public var dash: Bool
        /// The segment length.
        public var segmentInterval: MediaTime
        /// x264's speed preset.
        public var preset: String

        /// - Parameters:
        ///   - ladder: Picture heights (even, 2…4320).
        ///   - hls: Whether to write the HLS playlists.
        ///   - dash: Whether to write the DASH manifest.
        ///   - segmentInterval: The segment length (2 s by default).
        ///   - preset: x264's speed preset (`fast` by default).
        public init(
            ladder: [Int], hls: Bool = true, dash: Bool = false,
            segmentInterval: MediaTime = MediaTime(value: 2, timescale: 1), preset: String = "fast"
        ) {
            self.ladder = ladder
            self.hls = hls
            self.dash = dash
            self.segmentInterval = segmentInterval
            self.preset = preset
        }
    }

    /// The renditions written, tallest first.
    public var renditions: [Rendition]
    /// Whether the package has a sound rendition.
    public var hasAudio: Bool
    /// Where it was written.
    public var folder: URL

    /// Checks that `destination` can take a package: a new name in a writable folder, or an
    /// empty folder.
    /// - Parameter destination: The package's folder.
    /// - Throws: ``ReelError`` naming the folder and the cause.
    public static func checkDestination(_ destination: URL) throws(ReelError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        // A symbolic link, to a folder or to nothing, cannot be replaced by the finished package
        // (found only after every rendition was encoded): refused before any work.
        var status = stat()
        if lstat(destination.path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            throw ReelError(.invalidArgument, "is a symbolic link; the package needs a new or empty folder", subject: destination.path)
        }
        if manager.fileExists(atPath: destination.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw ReelError(
                    .invalidArgument, "exists and is a file; the package needs a new or empty folder",
                    subject: destination.path)
            }
            let contents = (try? manager.contentsOfDirectory(atPath: destination.path)) ?? []
            guard contents.isEmpty else {
                throw ReelError(
                    .invalidArgument, "exists and is not empty; the package goes only into a new or empty folder",
                    subject: destination.path)
            }
        }
        let parent = destination.deletingLastPathComponent().path
        guard manager.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReelError(.fileNotFound, "the folder \(parent) does not exist", subject: destination.path)
        }
        guard access(parent, W_OK) == 0 else {
            throw ReelError(
                .permissionDenied, "cannot write in \(parent): \(String(cString: strerror(errno)))",
                subject: destination.path)
        }
    }

    /// Writes the package of `source` into `destination`.
    /// - Parameters:
    ///   - source: A movie with a picture track.
    ///   - destination: A new name, or an empty folder (replaced when the package is whole).
    ///   - options: The ladder, the manifests and the segment length.
    ///   - progress: Told the name of each rendition as it starts.
    /// - Returns: What was written.
    /// - Throws: ``ReelError`` from reading, encoding or writing; nothing is left behind then.
    public static func write(
        source: URL, to destination: URL, options: Options,
        progress: @Sendable (String) -> Void = { _ in }
    ) async throws(ReelError) -> AdaptivePackage {
        try checkDestination(destination)
        let asset = try Asset(url: source)
        guard let track = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track: nothing to package", subject: source.path)
        }
        let display = track.naturalSize.applying(track.preferredTransform)
        let sourceWidth = abs(display.width), sourceHeight = abs(display.height)
        guard sourceWidth >= 2, sourceHeight >= 2 else {
            throw ReelError(.invalidData, "has a picture of \(sourceWidth)x\(sourceHeight)", subject: source.path)
        }
        var heights = options.ladder.filter { Double($0) <= sourceHeight.rounded() }
        if heights.isEmpty { heights = [Int(min(4320, sourceHeight.rounded())) / 2 * 2] }
        let frameRate = track.nominalFrameRate > 0 ? track.nominalFrameRate : 30
        let sound = asset.tracks(withMediaType: .audio).first
        // Every rendition keeps the source's timeline from its earliest track's start: each
        // writer's session and segment grid start there, so a picture that starts after its
        // sound stays on it. (Each session started at its own track's start: a picture 0.5 s
        // late came out 0.5 s early against the sound.)
        let origin = [track.timeRange.start, sound?.timeRange.start].compactMap { $0 }.min() ?? .zero

        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).reel-\(UUID().uuidString.prefix(8))")
        InProgressFiles.add(temporary)
        defer { InProgressFiles.remove(temporary) }
        do throws(ReelError) {
            try createFolder(temporary)
            var renditions: [Rendition] = []
            var folders: [String: SegmentFolderWriter] = [:]
            for height in heights.sorted(by: >) {
                let width = max(2, Int(min(8192, (sourceWidth * Double(height) / sourceHeight).rounded())) / 2 * 2)
                let name = "\(height)p"
                progress(name)
                let folder = temporary.appendingPathComponent(name)
                try createFolder(folder)
                let files = try SegmentFolderWriter(folder: folder)
                try await encodeVideo(
                    asset: asset, track: track, width: width, height: height, frameRate: frameRate,
                    options: options, from: origin, into: files)
                try files.finish()
                folders[name] = files
                renditions.append(
                    Rendition(
                        name: name, width: width, height: height, bandwidth: files.bandwidth,
                        segmentStarts: files.segments.map(\.start), duration: files.totalDuration))
            }
            if let first = renditions.first, let odd = renditions.first(where: { $0.segmentStarts != first.segmentStarts }) {
                throw ReelError(
                    .invalidState, "the \(odd.name) rendition's segments do not start where the \(first.name) one's do",
                    subject: destination.path)
            }
            var audio: SegmentFolderWriter?
            if let sound {
                progress("audio")
                let folder = temporary.appendingPathComponent("audio")
                try createFolder(folder)
                let files = try SegmentFolderWriter(folder: folder)
                try await encodeAudio(asset: asset, track: sound, options: options, from: origin, into: files)
                try files.finish()
                audio = files
            }
            let package = AdaptivePackage(renditions: renditions, hasAudio: audio != nil, folder: destination)
            if options.hls {
                try SegmentFolderWriter.write(
                    package.masterPlaylist(folders: folders, audio: audio, frameRate: frameRate),
                    to: temporary.appendingPathComponent("master.m3u8"))
            }
            if options.dash {
                try SegmentFolderWriter.write(
                    package.manifest(folders: folders, audio: audio),
                    to: temporary.appendingPathComponent("manifest.mpd"))
            }
            // The renditions' own one-rendition manifests would only confuse next to the package's.
            for name in renditions.map(\.name) + (audio == nil ? [] : ["audio"]) {
                try? FileManager.default.removeItem(
                    at: temporary.appendingPathComponent(name).appendingPathComponent("manifest.mpd"))
                if !options.hls {
                    try? FileManager.default.removeItem(
                        at: temporary.appendingPathComponent(name).appendingPathComponent("playlist.m3u8"))
                }
            }
            // An empty folder given as the destination is replaced; anything else was refused above.
            if FileManager.default.fileExists(atPath: destination.path) { rmdir(destination.path) }
            guard rename(temporary.path, destination.path) == 0 else {
                throw ReelError(
                    .io, "cannot move the finished package into place: \(String(cString: strerror(errno)))",
                    subject: destination.path, operation: "rename")
            }
            return package
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error.about(destination.path)
        }
    }

    private static func createFolder(_ url: URL) throws(ReelError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            throw ReelError(.io, "cannot create the folder: \(error.localizedDescription)", subject: url.path)
        }
    }

    /// A segmented writer whose segments are cut on the grid from `origin`.
    private static func segmentedWriter(
        _ options: Options, from origin: MediaTime, delegate: SegmentFolderWriter
    ) throws(ReelError) -> AssetWriter {
        let writer = try AssetWriter(fileType: .mp4)
        writer.outputFileTypeProfile = .mpeg4AppleHLS
        writer.preferredOutputSegmentInterval = options.segmentInterval
        writer.initialSegmentStartTime = origin
        writer.delegate = delegate
        return writer
    }

    private static func encodeVideo(
        asset: Asset, track: AssetTrack, width: Int, height: Int, frameRate: Double,
        options: Options, from origin: MediaTime, into files: SegmentFolderWriter
    ) async throws(ReelError) {
        let reader = try AssetReader(asset: asset)
        // The reader scales the stored picture, then turns it upright: a picture stored on its
        // side (a phone's portrait clip) is scaled to the rendition's size on its side.
        let turned = track.orientation?.swapsDimensions ?? false
        let output = AssetReaderTrackOutput(
            track: track,
            videoSettings: VideoOutputSettings(
                pixelFormat: .yuv420p, width: turned ? height : width,
                height: turned ? width : height))
        output.appliesPreferredTrackTransform = true
        try reader.add(output)
        let writer = try segmentedWriter(options, from: origin, delegate: files)
        let input = AssetWriterInput(
            mediaType: .video,
            outputSettings: VideoSettings(
                width: width, height: height, profile: "high", preset: options.preset, expectedFrameRate: frameRate))
        try writer.add(input)
        try reader.startReading()
        try writer.startWriting()
        writer.startSession(atSourceTime: origin)
        try await copy(from: output, to: input, of: writer)
    }

    private static func encodeAudio(
        asset: Asset, track: AssetTrack, options: Options, from origin: MediaTime,
        into files: SegmentFolderWriter
    ) async throws(ReelError) {
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(sampleRate: 48000, channelCount: 2))
        try reader.add(output)
        let writer = try segmentedWriter(options, from: origin, delegate: files)
        let input = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: 2))
        try writer.add(input)
        try reader.startReading()
        try writer.startWriting()
        writer.startSession(atSourceTime: origin)
        try await copy(from: output, to: input, of: writer)
    }

    /// Appends every sample `output` reads to `input`, waiting while the input is not ready,
    /// then finishes the writer; on any error the writer is cancelled.
    private static func copy(
        from output: AssetReaderTrackOutput, to input: AssetWriterInput, of writer: AssetWriter
    ) async throws(ReelError) {
        do throws(ReelError) {
            while let sample = try output.copyNextSampleBuffer() {
                while !input.isReadyForMoreMediaData {
                    if let error = writer.error { throw error }
                    usleep(1000)
                }
                try input.append(sample)
            }
            try await writer.finishWriting()
        } catch {
            writer.cancelWriting()
            throw error
        }
    }

    // MARK: - Manifests

    func masterPlaylist(folders: [String: SegmentFolderWriter], audio: SegmentFolderWriter?, frameRate: Double) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        let audioCodec = audio?.codecs.first
        if audio != nil {
            lines.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"main\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\","
                    + "URI=\"audio/playlist.m3u8\"")
        }
        for rendition in renditions {
            let videoCodec = folders[rendition.name]?.codecs.first ?? "avc1"
            let codecs = [videoCodec, audioCodec].compactMap { $0 }.joined(separator: ",")
            let bandwidth = rendition.bandwidth + (audio?.bandwidth ?? 0)
            var attributes =
                "BANDWIDTH=\(bandwidth),AVERAGE-BANDWIDTH=\(bandwidth),CODECS=\"\(codecs)\","
                + "RESOLUTION=\(rendition.width)x\(rendition.height),FRAME-RATE=\(String(format: "%.3f", frameRate))"
            if audio != nil { attributes += ",AUDIO=\"audio\"" }
            lines.append("#EXT-X-STREAM-INF:\(attributes)")
            lines.append("\(rendition.name)/playlist.m3u8")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func manifest(folders: [String: SegmentFolderWriter], audio: SegmentFolderWriter?) -> String {
        var representations: [DASHManifest.Representation] = renditions.compactMap { rendition in
            guard let files = folders[rendition.name] else { return nil }
            return .init(
                id: rendition.name, path: "\(rendition.name)/", codecs: files.codecs.first ?? "avc1", kind: .video,
                bandwidth: rendition.bandwidth, width: rendition.width, height: rendition.height, segments: files.segments)
        }
        if let audio {
            representations.append(
                .init(
                    id: "audio", path: "audio/", codecs: audio.codecs.first ?? "mp4a.40.2", kind: .audio,
                    bandwidth: audio.bandwidth, width: nil, height: nil, segments: audio.segments))
        }
        // The presentation lasts to the end of the track that ends last, on the package's
        // timeline: a picture that starts late ends that much after its segments' sum, and
        // the sound may outlast the picture.
        let duration = representations.compactMap { $0.segments.last.map { $0.start + $0.duration } }.max() ?? .zero
        return DASHManifest(duration: duration, representations: representations).text
    }
}

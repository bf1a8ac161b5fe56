import Foundation
import ReelAsset
import ReelCore
import ReelTestSupport
import Testing

/// `AssetWriter(fileType:)` with an HLS profile: the delegate gets the initialization segment
/// and each media segment with its report, and ffprobe agrees with the reports.
@Suite struct SegmentedWriterTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-segments")
    }

    final class Collector: AssetWriterDelegate, @unchecked Sendable {
        let lock = NSLock()
        var received: [(Data, AssetSegmentType, AssetSegmentReport?)] = []
        func assetWriter(
            _ writer: AssetWriter, didOutputSegmentData segmentData: Data, segmentType: AssetSegmentType,
            segmentReport: AssetSegmentReport?
        ) {
            lock.lock()
            received.append((segmentData, segmentType, segmentReport))
            lock.unlock()
        }
    }

    /// Writes `frames` indexed pictures at 30 fps and as long a tone into a segmented writer.
    private func writeSegments(
        frames: Int, interval: MediaTime, delegate: any AssetWriterDelegate,
        profile: FileTypeProfile = .mpeg4AppleHLS, flushAt: Int? = nil
    ) async throws -> AssetWriter {
        let writer = try AssetWriter(fileType: .mp4)
        writer.outputFileTypeProfile = profile
        writer.preferredOutputSegmentInterval = interval
        writer.initialSegmentStartTime = .zero
        writer.delegate = delegate
        var settings = VideoSettings(width: 320, height: 240, quality: 8, preset: "veryfast")
        settings.expectedFrameRate = 30
        let video = AssetWriterInput(mediaType: .video, outputSettings: settings)
        try writer.add(video)
        let audio = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: 1))
        try writer.add(audio)
        let adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: video, sourcePixelFormat: .yuv420p)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        let tone = try TestPatterns.sine(frequency: 1000, seconds: Double(frames) / 30)
        try audio.append(SampleBuffer(audioBuffer: tone, presentationTime: .zero))
        for index in 0..<frames {
            while !video.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            if index == flushAt { writer.flushSegment() }
            try adaptor.append(
                try TestPatterns.indexedFrame(index, pool: adaptor.pixelBufferPool),
                withPresentationTime: MediaTime(value: Int64(index), timescale: 30))
        }
        try await writer.finishWriting()
        return writer
    }

    /// Key flags and times of a file's video packets, from ffprobe.
    private func videoPackets(_ url: URL) throws -> [(time: Double, key: Bool)] {
        let result = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", url.path,
            ])
        return result.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[0]) else { return nil }
            return (time, fields[1].contains("K"))
        }
    }

    @Test func segmentsComeWithReportsOnKeyframesAtEachInterval() async throws {
        let collector = Collector()
        let writer = try await writeSegments(frames: 150, interval: MediaTime(value: 1, timescale: 1), delegate: collector)
        #expect(writer.status == .completed)
        let received = collector.received
        try #require(received.count >= 2)
        #expect(received[0].1 == .initialization)
        let initTracks = received[0].2?.trackReports.map(\.mediaType) ?? []
        #expect(initTracks == [.video, .audio])
        #expect(received.dropFirst().allSatisfy { $0.1 == .separable })
        let segments = Array(received.dropFirst())
        #expect(segments.count == 5)

        var videoTotal = MediaTime.zero
        var audioTotal = MediaTime.zero
        for (index, segment) in segments.enumerated() {
            let report = try #require(segment.2)
            let video = try #require(report.trackReports.first { $0.mediaType == .video })
            #expect(report.segmentType == .separable && video.trackID == 1)
            let first = try #require(video.firstVideoSampleInformation)
            #expect(first.presentationTimeStamp == video.earliestPresentationTimeStamp)
            let expected = AssetSegmentTrackReport(
                trackID: 1, mediaType: .video, earliestPresentationTimeStamp: MediaTime(value: Int64(index), timescale: 1),
                duration: MediaTime(value: 1, timescale: 1),
                firstVideoSampleInformation: AssetSegmentReportSampleInformation(
                    presentationTimeStamp: MediaTime(value: Int64(index), timescale: 1), offset: first.offset,
                    length: first.length, isSyncSample: true))
            #expect(video == expected)
            #expect(first.isSyncSample, "segment \(index) starts with a keyframe")
            #expect(
                video.earliestPresentationTimeStamp == MediaTime(value: Int64(index), timescale: 1),
                "segment \(index) starts at \(video.earliestPresentationTimeStamp.seconds) s")
            #expect(video.duration == MediaTime(value: 1, timescale: 1))
            // The first picture's bytes are where the report says: an H.264 length-prefixed NAL.
            #expect(first.offset > 0 && first.offset + first.length <= segment.0.count)
            videoTotal = videoTotal + video.duration
            if let audio = report.trackReports.first(where: { $0.mediaType == .audio }) {
                audioTotal = audioTotal + audio.duration
            }
        }
        #expect(videoTotal == MediaTime(value: 5, timescale: 1))
        #expect(abs(audioTotal.seconds - 5) <= 1024.0 / 48000 + 1e-9, "sound lasts \(audioTotal.seconds) s")

        // ffprobe on the initialization segment plus all media segments: 150 pictures,
        // keyframes exactly at 0, 1, 2, 3, 4 s.
        var whole = received[0].0
        for segment in segments { whole.append(segment.0) }
        let url = directory.appendingPathComponent("whole.mp4")
        try whole.write(to: url)
        let packets = try videoPackets(url)
        #expect(packets.count == 150)
        #expect(packets.filter(\.key).map(\.time) == [0, 1, 2, 3, 4])
        // And each media segment plays on its own after the initialization segment.
        for (index, segment) in segments.enumerated() {
            let part = directory.appendingPathComponent("part-\(index).mp4")
            try (received[0].0 + segment.0).write(to: part)
            let parts = try videoPackets(part)
            #expect(parts.count == 30 && parts.first?.key == true && parts.first?.time == Double(index))
            // As an asset, the part is the second it holds, however FFmpeg's header reads
            // (a fragment's end time as its duration: 1 s at 1 s read as 2 s long).
            let asset = try Asset(url: part)
            let range = try #require(asset.tracks(withMediaType: .video).first).timeRange
            #expect(range.start == MediaTime(value: Int64(index), timescale: 1) && range.duration == MediaTime(value: 1, timescale: 1),
                    "segment \(index): \(range.start.seconds) s + \(range.duration.seconds) s")
            #expect(abs(asset.duration.seconds - Double(index + 1)) < 0.03, "segment \(index) ends at \(asset.duration.seconds) s")
        }
    }

    /// A session started at 10 s of the source (`initialSegmentStartTime` the same, as Apple's
    /// sample sets them) whose first picture and sound come 11/30 s (0.37 s) later: the segments
    /// keep the session's timeline (the first picture at 0.367 s, not moved to zero) and are cut
    /// at 2, 4 and 6 s of it, each on a keyframe, the playlist's durations those ffprobe reads.
    /// (FFmpeg moved the first sample to zero: keyframes at 0, 1.63, 3.63, 5.63 s and segments
    /// of 3.63, 2, 1.37 s.)
    @Test func aLateFirstSampleKeepsTheCutsOnTheSessionsGrid() async throws {
        let folder = directory.appendingPathComponent("late")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = try SegmentFolderWriter(folder: folder)
        let start = MediaTime(value: 10, timescale: 1)
        let writer = try AssetWriter(fileType: .mp4)
        writer.outputFileTypeProfile = .mpeg4AppleHLS
        writer.preferredOutputSegmentInterval = MediaTime(value: 2, timescale: 1)
        writer.initialSegmentStartTime = start
        writer.delegate = files
        var settings = VideoSettings(width: 320, height: 240, quality: 8, preset: "veryfast")
        settings.expectedFrameRate = 30
        let video = AssetWriterInput(mediaType: .video, outputSettings: settings)
        try writer.add(video)
        let audio = AssetWriterInput(mediaType: .audio, outputSettings: AudioSettings(sampleRate: 48000, channelCount: 1))
        try writer.add(audio)
        let adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: video, sourcePixelFormat: .yuv420p)
        try writer.startWriting()
        writer.startSession(atSourceTime: start)
        // Pictures 11…209 of the session's 30 fps (0.367 s to 7 s), the sound from the first.
        let (first, end) = (11, 210)
        let tone = try TestPatterns.sine(frequency: 1000, seconds: Double(end - first) / 30)
        try audio.append(SampleBuffer(audioBuffer: tone, presentationTime: start + MediaTime(value: Int64(first), timescale: 30)))
        for index in first..<end {
            while !video.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            try adaptor.append(
                try TestPatterns.indexedFrame(index, pool: adaptor.pixelBufferPool),
                withPresentationTime: start + MediaTime(value: Int64(index), timescale: 30))
        }
        try await writer.finishWriting()
        try files.finish()

        let segments = files.segments
        let initial = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
        var whole = initial
        var starts: [Double] = []
        var ends: [Double] = []
        for (index, segment) in segments.enumerated() {
            let data = try Data(contentsOf: folder.appendingPathComponent(segment.name))
            whole.append(data)
            let part = directory.appendingPathComponent("late-\(index).mp4")
            try (initial + data).write(to: part)
            let found = try videoPackets(part)
            let head = try #require(found.first), tail = try #require(found.last)
            #expect(head.key, "segment \(index + 1) starts without a keyframe")
            starts.append(head.time)
            ends.append(tail.time + 1.0 / 30)
        }
        // Cut at the session's 2, 4 and 6 s, the first segment from the first picture.
        #expect(starts.count == 4, "\(starts)")
        let expected = [Double(first) / 30, 2, 4, 6]
        #expect(
            starts.count == expected.count && zip(starts, expected).allSatisfy { abs($0 - $1) < 1e-3 },
            "segments start at \(starts) s, not \(expected) s")
        // The playlist's durations are the segments' as ffprobe reads them.
        let playlist = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        let listed = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst(8).prefix { $0 != "," }) }
        let probed = zip(starts, starts.dropFirst().map { $0 } + [ends.last ?? 0]).map { $1 - $0 }
        #expect(
            listed.count == probed.count && zip(listed, probed).allSatisfy { abs($0 - $1) < 2e-3 },
            "playlist \(listed), ffprobe \(probed)")
        #expect(zip(segments, probed).allSatisfy { abs($0.duration.seconds - $1) < 2e-3 })
        // The whole: every picture once, keyframes only at the cuts, the sound with the first picture.
        let url = directory.appendingPathComponent("late-whole.mp4")
        try whole.write(to: url)
        let packets = try videoPackets(url)
        #expect(packets.count == end - first)
        #expect(packets.filter(\.key).map { ($0.time * 1000).rounded() / 1000 } == expected.map { ($0 * 1000).rounded() / 1000 })
        // (Its first packet is the AAC priming, laid to end where the sound starts.)
        let sound = try ProcessRunner.run(
            "/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", url.path])
        let soundStart = (sound.standardOutput.split(separator: "\n").first.flatMap { Double($0) } ?? -1) + 1024.0 / 48000
        #expect(abs(soundStart - Double(first) / 30) < 1e-3, "the sound starts at \(soundStart) s")
        print("late first sample: segments start at \(starts) s, playlist \(listed) s, sound at \(soundStart) s")
    }

    @Test func indefiniteIntervalGivesOneSegmentUnlessFlushed() async throws {
        let collector = Collector()
        _ = try await writeSegments(frames: 60, interval: .indefinite, delegate: collector)
        #expect(collector.received.map(\.1) == [.initialization, .separable])
        // flushSegment() ends the segment at the next keyframe (every 2 s without an interval).
        let flushed = Collector()
        _ = try await writeSegments(frames: 90, interval: .indefinite, delegate: flushed, flushAt: 30)
        #expect(flushed.received.map(\.1) == [.initialization, .separable, .separable])
        let starts = flushed.received.filter { $0.1 == .separable }
            .compactMap { $0.2?.trackReports.first?.earliestPresentationTimeStamp }
        #expect(starts.map(\.seconds) == [0, 2], "the second segment starts at the keyframe after the flush")
    }

    @Test func folderWriterWritesPlaylistManifestAndSegments() async throws {
        let folder = directory.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = try SegmentFolderWriter(folder: folder)
        _ = try await writeSegments(
            frames: 90, interval: MediaTime(value: 1, timescale: 1), delegate: files,
            profile: .mpeg4CMAFCompliant)
        try files.finish()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(
            names == [
                "init.mp4", "manifest.mpd", "playlist.m3u8", "segment-00001.m4s", "segment-00002.m4s",
                "segment-00003.m4s",
            ])
        let playlist = try String(contentsOf: folder.appendingPathComponent("playlist.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-MAP:URI=\"init.mp4\""))
        #expect(playlist.components(separatedBy: "#EXTINF:1.000000,").count == 4)
        #expect(files.codecs.first?.hasPrefix("avc1.64") == true && files.codecs.last == "mp4a.40.2")
        let manifest = try String(contentsOf: folder.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(manifest.contains("<S t=\"0\" d=\"") && manifest.contains("media=\"segment-$Number%05d$.m4s\""))
    }

    @Test func segmentedWriterRefusesIncompleteSettings() async throws {
        let collector = Collector()
        func attempt(_ change: (AssetWriter) -> Void) throws -> ReelError? {
            let writer = try AssetWriter(fileType: .mp4)
            writer.delegate = collector
            writer.outputFileTypeProfile = .mpeg4AppleHLS
            writer.preferredOutputSegmentInterval = MediaTime(value: 2, timescale: 1)
            writer.initialSegmentStartTime = .zero
            change(writer)
            try writer.add(AssetWriterInput(mediaType: .video, outputSettings: VideoSettings(width: 64, height: 64)))
            do {
                try writer.startWriting()
                writer.cancelWriting()
                return nil
            } catch {
                #expect(writer.status == .failed)
                return error
            }
        }
        #expect(try attempt { $0.outputFileTypeProfile = nil }?.message.contains("outputFileTypeProfile") == true)
        #expect(try attempt { $0.delegate = nil }?.message.contains("delegate") == true)
        #expect(try attempt { $0.initialSegmentStartTime = .invalid }?.message.contains("initialSegmentStartTime") == true)
        #expect(
            try attempt { $0.preferredOutputSegmentInterval = MediaTime(value: -1, timescale: 1) }?.message
                .contains("positive") == true)
        #expect(try attempt { _ in } == nil)
        #expect(throws: ReelError.self) { try AssetWriter(fileType: .webm) }
        #expect(collector.received.count == 1, "only the writer that started handed over its initialization segment")
    }
}

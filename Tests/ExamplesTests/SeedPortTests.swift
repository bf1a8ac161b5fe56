import Foundation
import ReelTestSupport
import Testing

/// The seeds' capture and editing code, ported call by call in Examples/ (issue 15), run
/// and checked as the seeds' authors would look at their results: upright pictures where
/// the phone held them upright, no ghosts (frames against a reference render, block means
/// within ±3 per channel), durations within one frame, sound present and ending with the
/// picture. On the seed clips when ../shared is here, on generated clips otherwise.
@Suite(.serialized) struct SeedPortTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-seed-ports")
    }

    /// One AAC packet at 48 kHz: how far sound may end from the picture beyond a frame.
    let aacPacket = 1024.0 / 48000

    private func streams(_ url: URL) throws -> (video: FFprobe.Stream, audio: FFprobe.Stream?) {
        let probe = try FFprobe.probe(url)
        let video = try #require(probe.streams(ofType: "video").first, "\(url.path) has no video")
        return (video, probe.streams(ofType: "audio").first)
    }

    /// The duration the seeds insert for a clip: `asset.duration`, the container's.
    private func assetDuration(_ url: URL) throws -> Double {
        let probe = try FFprobe.probe(url)
        return probe.duration ?? probe.streams.compactMap(\.duration).max() ?? 0
    }

    // MARK: - Seed 001

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func seed001CaptureSetUp() throws {
        let output = try SeedMedia.run("SeedCapture", [directory.path])
        // Flash auto on the back camera; after the switch the front camera has none.
        let lines = output.split(separator: "\n").map(String.init)
        let order = ["flash mode: auto", "camera: front", "flash mode: off"].map { text in lines.firstIndex { $0.hasPrefix(text) } }
        #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(output)")
        for name in ["photo-back.jpg", "photo-front.jpg"] {
            let photo = try streams(directory.appendingPathComponent(name)).video
            #expect(photo.codecName == "mjpeg" && photo.width == 1280 && photo.height == 720, "\(name)")
        }
        let movie = try streams(directory.appendingPathComponent("movie.mov"))
        // The connection's portrait orientation is the display matrix: a quarter turn clockwise (ffprobe's −90).
        #expect(movie.video.rotation == -90, "rotation \(movie.video.rotation)")
        let videoDuration = try #require(movie.video.duration)
        #expect(abs(videoDuration - 2) <= 1.0 / 30 + 1e-3, "maxRecordedDuration 2 s, recorded \(videoDuration) s")
        let audio = try #require(movie.audio, "the movie has no sound")
        let audioDuration = try #require(audio.duration)
        #expect(abs(audioDuration - videoDuration) <= 1.0 / 30 + aacPacket, "sound \(audioDuration) s, picture \(videoDuration) s")
    }

    // MARK: - Seed 002

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func seed002SegmentsMergedAndExportedWithTheRotationLine() throws {
        let output = try SeedMedia.run("SeedRecording", [directory.path, "3", "1", "--keep-segments"])
        let mergedPath = try #require(output.split(separator: "\n").last { $0.hasPrefix("merge done: ") }?.dropFirst(12))
        let merged = URL(fileURLWithPath: String(mergedPath))
        let segments = (1...3).map { directory.appendingPathComponent("output-\($0).mov") }
        let (video, audio) = try streams(merged)
        let first = try streams(segments[0]).video
        // Written as recorded, turned by the display matrix: a quarter turn clockwise (ffprobe's −90).
        #expect(video.rotation == -90, "rotation \(video.rotation)")
        #expect(video.width == first.width && video.height == first.height)
        // As long as the segments the seed inserts (each asset's duration), within a frame.
        let durations = try segments.map(assetDuration)
        let total = durations.reduce(0, +)
        let videoDuration = try #require(video.duration)
        #expect(abs(videoDuration - total) <= 1.0 / 30 + 1e-3, "merged \(videoDuration) s, segments \(total) s")
        let sound = try #require(audio, "no sound")
        let audioDuration = try #require(sound.duration)
        #expect(abs(audioDuration - videoDuration) <= 1.0 / 30 + aacPacket, "sound \(audioDuration) s, picture \(videoDuration) s")
        // Each segment's middle frame, in the merged file, as stored.
        let mergedTimes = try SeedMedia.frameTimes(merged)
        let width = try #require(video.width), height = try #require(video.height)
        var start = 0.0
        for (segment, duration) in zip(segments, durations) {
            let times = try SeedMedia.frameTimes(segment)
            let local = times[times.count / 2]
            let outIndex = SeedMedia.index(showingAt: start + local + 0.001, in: mergedTimes)
            let shown = mergedTimes[outIndex] - start
            let reference = try SeedMedia.frame(segment, index: SeedMedia.index(showingAt: shown, in: times), autorotate: false,
                                                in: directory)
            let picture = try SeedMedia.frame(merged, index: outIndex, autorotate: false, in: directory)
            let (difference, place) = SeedMedia.blockDifference(picture, reference, width: width, height: height)
            #expect(difference <= 3, "\(segment.lastPathComponent) at \(shown) s: \(difference) at \(place)")
            start += duration
        }
    }

    // MARK: - Seed 003

    /// The clips: a portrait one always (the rotation the seed's code is about); the seed
    /// clips with sound, cut to 2 s, when they are here, else generated landscape clips.
    private func clips() throws -> (landscape: [URL], portrait: URL) {
        let portrait = try SeedMedia.clip("portrait", in: directory, hue: 120, portrait: true)
        if Paths.seedClipsAvailable {
            return (try ["01_nebula.mp4", "04_quasar.mp4"].map { try SeedMedia.seedClip($0, seconds: 2, in: directory) }, portrait)
        }
        return (try [0, 240].map { try SeedMedia.clip("landscape-\($0)", in: directory, hue: $0) }, portrait)
    }

    @Test func seed003SpeedChangeFast() throws {
        let (landscape, portrait) = try clips()
        for source in [portrait, landscape[0]] {
            let out = directory.appendingPathComponent("fast-\(source.lastPathComponent).mov")
            try SeedMedia.run("SeedSpeedMerge", ["speed", source.path, out.path, "fast"])
            let (video, audio) = try streams(out)
            let original = try streams(source).video
            // The seed's rotation line gives the track the clip's own turn: played upright.
            #expect(video.rotation == original.rotation, "rotation \(video.rotation), the clip's \(original.rotation)")
            #expect(video.width == original.width && video.height == original.height)
            let expected = try assetDuration(source) / 5
            let frame = 1 / (video.averageFrameRate ?? 30)
            let videoDuration = try #require(video.duration)
            #expect(abs(videoDuration - expected) <= frame + 1e-3, "\(videoDuration) s, expected \(expected) s")
            if try streams(source).audio != nil {
                let sound = try #require(audio, "no sound")
                let audioDuration = try #require(sound.duration)
                #expect(abs(audioDuration - videoDuration) <= frame + aacPacket, "sound \(audioDuration) s, picture \(videoDuration) s")
            }
            // Frames are the clip's at five times the pace.
            let outTimes = try SeedMedia.frameTimes(out), sourceTimes = try SeedMedia.frameTimes(source)
            let width = try #require(video.width), height = try #require(video.height)
            for index in [1, outTimes.count / 2, outTimes.count - 2] where index >= 0 && index < outTimes.count {
                let sourceIndex = SeedMedia.index(showingAt: (sourceTimes.first ?? 0) + outTimes[index] * 5, in: sourceTimes)
                let reference = try SeedMedia.frame(source, index: sourceIndex, autorotate: false, in: directory)
                let picture = try SeedMedia.frame(out, index: index, autorotate: false, in: directory)
                let (difference, place) = SeedMedia.blockDifference(picture, reference, width: width, height: height)
                #expect(difference <= 3, "\(source.lastPathComponent) frame \(index): \(difference) at \(place)")
            }
        }
    }

    @Test func seed003SpeedChangeSlow() throws {
        let source = try SeedMedia.clip("short-portrait", in: directory, seconds: 0.6, hue: 60, portrait: true)
        let out = directory.appendingPathComponent("slow.mov")
        try SeedMedia.run("SeedSpeedMerge", ["speed", source.path, out.path, "slow"])
        let (video, audio) = try streams(out)
        #expect(video.rotation == -90)
        let expected = try assetDuration(source) * 4
        let frame = 1 / (video.averageFrameRate ?? 30)
        let videoDuration = try #require(video.duration)
        #expect(abs(videoDuration - expected) <= frame + 1e-3, "\(videoDuration) s, expected \(expected) s")
        let sound = try #require(audio, "no sound")
        let audioDuration = try #require(sound.duration)
        #expect(abs(audioDuration - videoDuration) <= frame + aacPacket, "sound \(audioDuration) s, picture \(videoDuration) s")
        // Frames are the clip's at a quarter of the pace: each source frame shown four times.
        let outTimes = try SeedMedia.frameTimes(out), sourceTimes = try SeedMedia.frameTimes(source)
        let width = try #require(video.width), height = try #require(video.height)
        for index in [2, outTimes.count / 2, outTimes.count - 3] where index >= 0 && index < outTimes.count {
            let sourceIndex = SeedMedia.index(showingAt: outTimes[index] / 4, in: sourceTimes)
            let reference = try SeedMedia.frame(source, index: sourceIndex, autorotate: false, in: directory)
            let picture = try SeedMedia.frame(out, index: index, autorotate: false, in: directory)
            let (difference, place) = SeedMedia.blockDifference(picture, reference, width: width, height: height)
            #expect(difference <= 3, "slow frame \(index): \(difference) at \(place)")
        }
    }

    /// The seed's merge: one track, a layer instruction per clip naming that track, each clip
    /// fitted to 720 wide, portrait filling 720x1280, landscape centred with bars.
    @Test func seed003MixedOrientationMerge() throws {
        let (landscape, portrait) = try clips()
        let inputs = [landscape[0], portrait, landscape[1]]
        let out = directory.appendingPathComponent("merged.mov")
        try SeedMedia.run("SeedSpeedMerge", ["merge", out.path] + inputs.map(\.path))
        let (video, audio) = try streams(out)
        #expect(video.width == 720 && video.height == 1280 && video.rotation == 0)
        let durations = try inputs.map(assetDuration)
        let videoDuration = try #require(video.duration)
        #expect(abs(videoDuration - durations.reduce(0, +)) <= 1.0 / 25 + 1e-3, "\(videoDuration) s, clips \(durations)")
        let sound = try #require(audio, "no sound")
        let audioDuration = try #require(sound.duration)
        #expect(abs(audioDuration - videoDuration) <= 1.0 / 25 + aacPacket, "sound \(audioDuration) s, picture \(videoDuration) s")

        // Each clip alone, upright, where the seed's transform puts it: against ffmpeg's render
        // of that clip by itself (turned by its matrix, scaled to 720 wide, centred).
        let outTimes = try SeedMedia.frameTimes(out)
        var start = 0.0
        for (clip, duration) in zip(inputs, durations) {
            let stored = try streams(clip).video
            let turned = stored.rotation != 0
            let (w, h) = turned ? (stored.height ?? 0, stored.width ?? 0) : (stored.width ?? 0, stored.height ?? 0)
            // The seed puts a portrait clip at the top (it fills the frame) and a landscape one
            // 437.5 rows down: half a row, so the reference is drawn at twice the height and
            // averaged down in pairs of rows.
            let fitted = Double(h) * 720 / Double(w)
            let filter = turned ? "scale=720:1280:flags=bicubic"
                : "scale=720:\(Int((fitted * 2).rounded())):flags=bicubic,pad=720:2560:0:875:black,scale=720:1280:flags=area"
            // The rows where a letterboxed picture's edges fall.
            let top = 437, bottom = Int(437.5 + fitted)
            let edges: Set<Int> = turned ? [] : Set((top - 3)...(top + 3)).union((bottom - 3)...(bottom + 3))
            let sourceTimes = try SeedMedia.frameTimes(clip)
            for fraction in [0.25, 0.75] {
                let outIndex = SeedMedia.index(showingAt: start + duration * fraction, in: outTimes)
                let local = outTimes[outIndex] - start
                guard local < (stored.duration ?? duration) - 0.05 else { continue }
                let reference = try SeedMedia.frame(clip, index: SeedMedia.index(showingAt: (sourceTimes.first ?? 0) + local, in: sourceTimes),
                                                    filter: filter, in: directory)
                let picture = try SeedMedia.frame(out, index: outIndex, in: directory)
                let (difference, place) = SeedMedia.blockDifference(picture, reference, width: 720, height: 1280, skipRows: edges)
                #expect(difference <= 3, "\(clip.lastPathComponent) at \(local) s: \(difference) at \(place)")
            }
            start += duration
        }
    }

    // MARK: - Seed 004

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func seed004PermissionFlowAndPresetFallback() throws {
        let photo = directory.appendingPathComponent("photo.jpg")
        let output = try SeedMedia.run("SeedPermissions", [photo.path])
        #expect(output.contains("permission: authorized") && output.contains("preset: high"), "\(output)")
        let picture = try streams(photo).video
        #expect(picture.codecName == "mjpeg" && picture.width == 1920 && picture.height == 1080)
    }
}

import Foundation
import ReelTestSupport
import Testing

/// `reel export IN --hls DIR --dash DIR --ladder …`: an adaptive package whose renditions'
/// segments start on keyframes at the same times (ffprobe), whose durations add up to the
/// source's, and which plays to its end in headless Chromium (HLS and DASH).
@Suite struct PackageExportTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-cli-package")
    }

    /// A 5-second 640x360 30 fps clip with a 1 kHz tone.
    private func source(name: String = "source.mp4") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=5",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=5",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-shortest", url.path,
        ])
        return url
    }

    /// Packet times and key flags of a file's first stream, from ffprobe.
    private func packets(_ url: URL) throws -> [(time: Double, duration: Double, key: Bool)] {
        let result = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "packet=pts_time,duration_time,flags", "-of", "csv=p=0", url.path,
            ])
        return result.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            // ffprobe gives no duration (N/A) for a fragment's first sound packet.
            guard fields.count >= 3, let time = Double(fields[0]) else { return nil }
            return (time, Double(fields[1]) ?? 0, fields[2].contains("K"))
        }
    }

    private func segmentNames(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".m4s") }.sorted()
    }

    /// What is beside `url` in its folder that Reel left (hidden temporary names).
    private func leftovers(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".reel-") }
    }

    @Test func hlsAndDashPackageHasAlignedKeyframesAndWholeDurations() throws {
        let input = try source()
        let package = directory.appendingPathComponent("package")
        let result = try ProcessRunner.reel(
            [
                "export", input.path, "--hls", package.path, "--dash", package.path,
                "--ladder", "360,240",
            ], timeout: 300)
        try #require(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("640x360, 426x240 and sound"))
        for name in ["master.m3u8", "manifest.mpd", "360p/playlist.m3u8", "240p/playlist.m3u8", "audio/playlist.m3u8"] {
            #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent(name).path), "\(name)")
        }
        #expect(try leftovers(in: directory).isEmpty)
        let master = try String(contentsOf: package.appendingPathComponent("master.m3u8"), encoding: .utf8)
        #expect(master.contains("RESOLUTION=640x360") && master.contains("RESOLUTION=426x240"))
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO") && master.components(separatedBy: "AUDIO=\"audio\"").count == 3)

        let sourceVideo = try packets(input).count
        #expect(sourceVideo > 0)
        var startsByRendition: [[Double]] = []
        for rendition in ["360p", "240p", "audio"] {
            let folder = package.appendingPathComponent(rendition)
            let initial = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
            var whole = initial
            var starts: [Double] = []
            for name in try segmentNames(folder) {
                let segment = try Data(contentsOf: folder.appendingPathComponent(name))
                whole.append(segment)
                let part = directory.appendingPathComponent("\(rendition)-\(name).mp4")
                try (initial + segment).write(to: part)
                let inPart = try packets(part)
                let first = try #require(inPart.first)
                #expect(first.key, "\(rendition)/\(name) starts on a keyframe")
                starts.append(first.time)
            }
            startsByRendition.append(starts)
            let file = directory.appendingPathComponent("\(rendition)-whole.mp4")
            try whole.write(to: file)
            let all = try packets(file)
            let last = try #require(all.last)
            let total = last.time + last.duration - (all.first?.time ?? 0)
            if rendition == "audio" {
                // The sound adds up to the source's 5 s within one AAC frame.
                #expect(abs(total - 5) <= 1024.0 / 48000, "audio lasts \(total) s")
            } else {
                #expect(all.count == 150, "\(rendition) has \(all.count) pictures")
                // The pictures add up to the source's 5 s within one frame.
                #expect(abs(total - 5) <= 1.0 / 30 + 1e-6, "\(rendition) lasts \(total) s")
                #expect(all.filter(\.key).map(\.time) == [0, 2, 4], "\(rendition) keyframes")
            }
        }
        #expect(startsByRendition[0] == [0, 2, 4])
        #expect(startsByRendition[0] == startsByRendition[1], "both renditions cut at the same times")
        #expect(startsByRendition[2].count == 3 && startsByRendition[2].first == 0)

        guard BrowserPlayer.available else { return }
        let hls = try PackagePlayer.play("hls", folder: package)
        let mse = hls.filter { $0.mode == "mse" }
        #expect(mse.map(\.resolution) == ["640x360", "426x240"])
        for report in mse + (try PackagePlayer.play("dash", folder: package)) {
            #expect(report.error == nil && report.ended, "\(report.mode) \(report.resolution ?? "") \(report.error ?? "")")
            #expect(abs(report.currentTime - 5) < 0.05 && report.frames >= 145, "\(report)")
            // Picture and sound both buffered from zero to the end.
            #expect(report.buffered.count == 2 && report.buffered.allSatisfy { $0[0] == 0 && abs($0[1] - 5) < 0.05 })
        }
        if let native = hls.first(where: { $0.mode == "native" }), native.nativeSupported {
            #expect(native.error == nil && native.ended && native.frames >= 145, "native HLS: \(native)")
        }
    }

    /// The sound rendition sits on the picture: a flash-and-click clip packaged, one
    /// rendition's segments and the sound's joined and muxed together by stream copy, measured.
    @Test func soundRenditionStaysInSyncWithPicture() throws {
        let kind = FlashClick(rate: (30, 1), seconds: 4)
        let input = directory.appendingPathComponent("flash.mp4")
        try kind.write(to: input)
        let parts = try packagedAndJoined(input, name: "flash")
        let muxed = directory.appendingPathComponent("flash-muxed.mp4")
        try ProcessRunner.ffmpeg(["-i", parts.picture.path, "-i", parts.sound.path, "-map", "0:v", "-map", "1:a", "-c", "copy", muxed.path])
        let verdict = SyncMeter.judge(try SyncMeter.measure(muxed), expected: kind.events, duration: kind.pictureSeconds)
        print("sync package: \(verdict)")
        #expect(verdict.failures().isEmpty, "\(verdict.failures())")
        #expect(verdict.worstOffset < 0.005, "sound within 5 ms of its picture, not \(verdict.worstOffset)")
    }

    /// A source whose picture starts 0.5 s after its sound (a Matroska file trimmed by its
    /// picture, its times kept): every flash is still on its click and at its own time, each
    /// rendition measured on its own as a player takes its times from the segments. (Each
    /// writer started its session at its own track's start: the picture came out 0.5 s early,
    /// its flashes 500 ms before their clicks. Muxed into one MP4, FFmpeg's reading moves the
    /// first picture to zero whatever the edit list says, so the parts are measured apart.)
    @Test func aPictureStartingAfterItsSoundStaysOnIt() throws {
        let kind = FlashClick(rate: (30, 1), seconds: 4)
        let clip = directory.appendingPathComponent("late-source.mp4")
        try kind.write(to: clip)
        let input = directory.appendingPathComponent("late.mkv")
        try ProcessRunner.ffmpeg([
            "-i", clip.path, "-map", "0:v", "-map", "0:a", "-vf", "trim=start=0.5", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "copy", input.path,
        ])
        let parts = try packagedAndJoined(input, name: "late")
        let (picture, sound) = (try SyncMeter.measure(parts.picture), try SyncMeter.measure(parts.sound))
        // The source's own times: Matroska keeps the AAC priming as 21 ms more on both tracks.
        let source = try SyncMeter.measure(input)
        let expected = source.clicks
        let flashes = SyncMeter.match(picture.flashes, expected: expected, window: 0.6)
        let clicks = SyncMeter.match(sound.clicks, expected: expected, window: 0.6)
        print("late picture package: flashes \(picture.flashes), clicks \(sound.clicks); the source's flashes \(source.flashes), clicks \(expected)")
        #expect(source.flashes.count == 4 && SyncMeter.match(source.flashes, expected: expected, window: 0.1).lost == 0)
        #expect(!expected.isEmpty && flashes.lost == 0 && clicks.lost == 0)
        #expect(flashes.offsets.allSatisfy { abs($0) <= 1.0 / 30 + 1e-3 }, "flashes off by \(flashes.offsets)")
        #expect(clicks.offsets.allSatisfy { abs($0) <= 0.005 }, "clicks off by \(clicks.offsets)")
        // DASH's presentation lasts to the last track's end on that timeline (it was the
        // picture's segments' sum, 0.5 s short: a DASH player stops at it).
        let manifest = try String(contentsOf: directory.appendingPathComponent("late-package/manifest.mpd"), encoding: .utf8)
        let stated = manifest.firstMatch(of: /mediaPresentationDuration="PT([0-9.]+)S"/).flatMap { Double($0.1) } ?? 0
        let end = max(picture.videoEnd, sound.audioEnd)
        #expect(abs(stated - end) < 0.05, "the MPD says \(stated) s, the package ends at \(end) s")
    }

    /// A phone's portrait clip (stored on its side with a 90° display matrix) is packaged
    /// upright at each rung: 90x160 with its bright half on top. (It was refused: "the picture
    /// is 160x90 but this input writes 90x160", as the reader scaled the stored picture to the
    /// upright size and then turned it.)
    @Test func aPortraitPhoneClipIsPackagedUpright() throws {
        let phone = directory.appendingPathComponent("phone.mp4")
        try PortraitClip.write(to: phone, width: 180, height: 320, seconds: 2)
        let package = directory.appendingPathComponent("phone-package")
        let result = try ProcessRunner.reel(["export", phone.path, "--hls", package.path, "--ladder", "160", "--segment", "1"],
                                            timeout: 300)
        try #require(result.status == 0, "\(result.standardError)")
        let joined = try joinedSegments(package.appendingPathComponent("160p"), to: directory.appendingPathComponent("phone-160p.mp4"))
        let video = try #require(try FFprobe.probe(joined).streams(ofType: "video").first)
        #expect(video.width == 90 && video.height == 160, "\(video.width ?? 0)x\(video.height ?? 0)")
        // The package as a player shows it, beside the source as FFmpeg shows it (turned by its matrix).
        for (file, label) in [(joined, "the package"), (phone, "the source")] {
            let (top, bottom) = try PortraitClip.halves(of: file, width: 90, height: 160)
            #expect(top > 200 && bottom < 40, "\(label): top half \(top), bottom half \(bottom)")
        }
    }

    /// A rendition's segments joined behind its initialization segment, at `file`.
    private func joinedSegments(_ folder: URL, to file: URL) throws -> URL {
        var whole = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
        for segment in try segmentNames(folder) { whole.append(try Data(contentsOf: folder.appendingPathComponent(segment))) }
        try whole.write(to: file)
        return file
    }

    /// `input` packaged with one 90p rendition in 1 s segments; that rendition's segments and the
    /// sound's, each joined behind their initialization segment.
    private func packagedAndJoined(_ input: URL, name: String) throws -> (picture: URL, sound: URL) {
        let package = directory.appendingPathComponent("\(name)-package")
        let result = try ProcessRunner.reel(
            [
                "export", input.path, "--hls", package.path, "--dash", package.path, "--ladder", "90",
                "--segment", "1",
            ], timeout: 300)
        try #require(result.status == 0, "\(result.standardError)")
        let parts = try ["90p", "audio"].map { rendition in
            try joinedSegments(package.appendingPathComponent(rendition), to: directory.appendingPathComponent("\(name)-\(rendition).mp4"))
        }
        return (parts[0], parts[1])
    }

    @Test func specIsRenderedThenPackaged() throws {
        let input = try source(name: "clip.mp4")
        let spec = directory.appendingPathComponent("spec.json")
        try Data("{ \"clips\": [ { \"file\": \"clip.mp4\", \"range\": { \"start\": 1, \"end\": 4 } } ] }".utf8).write(to: spec)
        _ = input
        let package = directory.appendingPathComponent("from-spec")
        let result = try ProcessRunner.reel(["export", spec.path, "--hls", package.path, "--ladder", "240"], timeout: 300)
        try #require(result.status == 0, "\(result.standardError)")
        let folder = package.appendingPathComponent("240p")
        var whole = try Data(contentsOf: folder.appendingPathComponent("init.mp4"))
        for name in try segmentNames(folder) { whole.append(try Data(contentsOf: folder.appendingPathComponent(name))) }
        let file = directory.appendingPathComponent("spec-whole.mp4")
        try whole.write(to: file)
        let pictures = try packets(file)
        #expect(pictures.count == 90, "3 s of the clip at 30 fps, not \(pictures.count)")
        #expect(try leftovers(in: directory).isEmpty, "the rendered spec is removed")
    }

    /// Ctrl-C in the middle of a package: the hidden folder goes, nothing is left.
    @Test func interruptedPackageLeavesNothing() throws {
        let input = directory.appendingPathComponent("long.mp4")
        try ProcessRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=30", "-c:v", "libx264", "-preset", "ultrafast",
            "-pix_fmt", "yuv420p", input.path,
        ])
        let package = directory.appendingPathComponent("interrupted")
        let process = Process()
        process.executableURL = Paths.reelBinary
        process.arguments = ["export", input.path, "--hls", package.path, "--ladder", "720,480"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupted once the hidden folder exists (the encoding is under way).
        let deadline = Date().addingTimeInterval(30)
        while try leftovers(in: directory).isEmpty, process.isRunning, Date() < deadline { usleep(50_000) }
        usleep(500_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(!FileManager.default.fileExists(atPath: package.path))
        #expect(try leftovers(in: directory).isEmpty)
    }

    @Test func badInputGetsOneLineAndLeavesNothing() throws {
        let input = try source()
        let full = directory.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: full.appendingPathComponent("mine.txt"))
        let aFile = directory.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: aFile)
        let fresh = directory.appendingPathComponent("fresh").path
        // Symbolic links, to an empty folder and to nothing: refused before encoding (the
        // package could not be put in place, found after every rendition was encoded).
        let empty = directory.appendingPathComponent("empty-target")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let linked = directory.appendingPathComponent("linked"), dangling = directory.appendingPathComponent("dangling")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: empty)
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: directory.appendingPathComponent("gone"))
        let cases: [([String], String)] = [
            (["--hls", linked.path], "is a symbolic link"),
            (["--dash", dangling.path], "is a symbolic link"),
            (["--hls", fresh, "--ladder", "720,abc"], "--ladder takes even picture heights"),
            (["--hls", fresh, "--ladder", "0"], "not '0'"),
            (["--hls", fresh, "--ladder", "721"], "not '721'"),
            (["--hls", fresh, "--ladder", "-480"], "--ladder"),
            (["--hls", fresh, "--ladder", "480,,360"], "not ''"),
            (["--hls", fresh, "--ladder", "480,480"], "names 480 twice"),
            (["--hls", fresh, "--ladder", "99999999999999999999"], "--ladder"),
            (["--hls", fresh, "--segment", "0"], "--segment"),
            (["--hls", full.path], "exists and is not empty"),
            (["--hls", aFile.path], "exists and is a file"),
            (["--hls", "/proc/1/package"], "cannot write in /proc/1"),
            (["--hls", directory.appendingPathComponent("missing/package").path], "does not exist"),
            (["--hls", fresh, "--dash", directory.appendingPathComponent("other").path], "same DIR"),
            (["--hls", fresh, "-o", directory.appendingPathComponent("x.mp4").path], "give no -o"),
        ]
        for (arguments, expected) in cases {
            let result = try ProcessRunner.reel(["export", input.path] + arguments)
            let lines = result.standardError.split(separator: "\n")
            #expect(result.status != 0 && !result.crashed, "\(arguments)")
            #expect(lines.count == 1 && result.standardError.contains(expected), "\(arguments): \(result.standardError)")
        }
        // A missing input is refused before anything is made.
        let missing = try ProcessRunner.reel(["export", directory.appendingPathComponent("nope.mp4").path, "--hls", fresh])
        #expect(missing.status != 0 && missing.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: fresh))
        #expect(try FileManager.default.contentsOfDirectory(atPath: full.path) == ["mine.txt"])
        #expect(try leftovers(in: directory).isEmpty)
    }
}

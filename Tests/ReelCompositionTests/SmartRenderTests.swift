import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// Smart render: the frames an edit leaves untouched are the sources' own, bit for bit;
/// transitions, overlays and trims inside a GOP are rendered, and the splices decode in
/// FFmpeg and in Chromium. Judged by the ffmpeg CLI (decoded checksums, frame numbers
/// drawn into the pictures) and headless Chromium.
@Suite struct SmartRenderTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-smart")
    }

    // MARK: - Clips and measures

    /// What ffprobe says while decoding every frame: nothing, for a sound file.
    private func decodingErrors(_ url: URL) throws -> String {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                                       "-of", "csv", url.path])
        return result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The codec tag of the first video stream (`avc1`, `avc3`).
    private func videoTag(_ url: URL) throws -> String {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string",
                                                       "-of", "csv=p=0", url.path])
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func export(_ sequence: ClipSequence, to name: String, smart: Bool = true) throws -> (URL, ExportSession) {
        let url = directory.appendingPathComponent(name)
        let session = sequence.exportSession(preset: .highestQuality, to: url, fileType: .mp4)
        session.smartRender = smart
        try session.exportSynchronously()
        return (url, session)
    }

    // MARK: - Tests

    /// A clip trimmed 10 frames into its first GOP, a 0.5 s dissolve, and a clip coded at
    /// another CRF (so its parameter sets differ and go in the stream, `avc3`): the trim is
    /// rendered from the cut to the next keyframe, the dissolve and the second clip up to
    /// its next keyframe are rendered, the rest is copied; every frame outside the dissolve
    /// is the right one, in FFmpeg and in Chromium, and every copied frame is bit-identical.
    @Test func trimDissolveAndInBandParameterSetsSpliceFrameExactly() throws {
        let a = try NumberedClips.make("a.mp4", in: directory, offset: 0), b = try NumberedClips.make("b.mp4", in: directory, offset: 128, crf: 30)
        let third = MediaTime(value: 1, timescale: 3)  // frame 10, not a keyframe (those are 0, 30, 60)
        let sequence = try ClipSequence(
            clips: [ClipSequence.Clip(asset: try Asset(url: a), range: MediaTimeRange(start: third, end: MediaTime(value: 3, timescale: 1))),
                    ClipSequence.Clip(pictureOf: try Asset(url: b))],
            transitions: [.dissolve(duration: MediaTime(value: 1, timescale: 2))])
        let (url, session) = try export(sequence, to: "trim-dissolve.mp4")
        let plan = try #require(session.smartRenderPlan)
        // 80 frames of a (10…89), 90 of b (128…217), 15 overlapping.
        #expect(plan.frameCount == 155)
        let rendered = plan.ranges.filter { $0.action == .render }
        #expect(rendered.map(\.firstFrame) == [0, 65, 80])
        #expect(rendered.map(\.frameCount) == [20, 15, 15])
        #expect(rendered[0].reason?.contains("starts inside a GOP") == true)
        #expect(rendered[1].reason?.contains("transition") == true)
        #expect(plan.copiedFrames == 105)

        let numbers = try NumberedClips.frameNumbers(url, scratch: directory)
        #expect(numbers.count == 155)
        func expected(_ frame: Int) -> Int { frame < 80 ? 10 + frame : 128 + 15 + (frame - 80) }
        let dissolve = 65..<80
        let wrong = numbers.indices.filter { !dissolve.contains($0) && numbers[$0] != expected($0) }
        #expect(wrong.isEmpty, "frames showing the wrong number: \(wrong.prefix(10))")
        // Copied frames decode to exactly the sources' frames.
        let out = try NumberedClips.checksums(url), sourceA = try NumberedClips.checksums(a), sourceB = try NumberedClips.checksums(b)
        for range in plan.ranges where range.action == .copy {
            for frame in range.firstFrame..<(range.firstFrame + range.frameCount) {
                let source = frame < 80 ? sourceA[expected(frame)] : sourceB[expected(frame) - 128]
                #expect(out[frame] == source, "frame \(frame) differs from its source")
            }
        }
        #expect(try videoTag(url) == "avc3")
        #expect(try decodingErrors(url) == "")
        let probe = try FFprobe.probe(url)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 155.0 / 30) < 0.001)
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 155.0 / 30) < 0.03)

        if BrowserPlayer.available {
            // Either side of every splice (frames 19|20, 64|65, 79|80, 94|95) and the ends.
            let frames = [0, 19, 20, 64, 80, 94, 95, 154]
            let script = Paths.packageRoot.appendingPathComponent("Tests/browser/frames.py").path
            let result = try ProcessRunner.run("/usr/bin/python3", [script, url.path] + frames.map { String((Double($0) + 0.5) / 30) },
                                               timeout: 120)
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [Any],
                                    "frames.py: \(result.standardError)")
            let shown = rows.compactMap { ($0 as? [Double]).map { Int($0[1]) } }
            #expect(shown == frames.map(expected), "Chromium showed \(shown)")
            let played = rows.last as? [String: Any]
            #expect(played?["ended"] as? Bool == true && played?["error"] is NSNull, "Chromium playing through: \(String(describing: played))")
        }
    }

    /// A title over a clip: only the title's frames are rendered, plus the rest of the GOPs
    /// it starts and ends in; the copied frames are the source's, and the parameter sets match
    /// the source's (one `avc1` sample description).
    @Test func aTitleReencodesItsWindowAndGOPPaddingOnly() throws {
        let clip = try NumberedClips.make("long.mp4", in: directory, offset: 0, seconds: 6, gop: 15)
        let sequence = try ClipSequence(assets: [try Asset(url: clip)])
        var video = sequence.videoComposition
        let root = OverlayLayer(frame: Rect(origin: .zero, size: video.renderSize))
        let title = OverlayLayer(content: .color(red: 1, green: 0, blue: 0), frame: Rect(x: 0, y: 120, width: 320, height: 40), opacity: 0)
        // Shown from 2.1 s (frame 63) for just under 1 s: frames 63…92.
        title.add(KeyframeAnimation(keyPath: .opacity, values: [1, 1], keyTimes: [0, 1], beginTime: 2.1, duration: 0.99,
                                    isRemovedOnCompletion: true))
        root.addSublayer(title)
        video.animationTool = root
        let url = directory.appendingPathComponent("title.mp4")
        let session = sequence.exportSession(preset: .highestQuality, to: url, fileType: .mp4)
        session.videoComposition = video
        try session.exportSynchronously()
        let plan = try #require(session.smartRenderPlan)
        #expect(plan.frameCount == 180)
        let overlay = try #require(plan.ranges.first { $0.reason == "an overlay is drawn" })
        #expect(overlay.firstFrame == 63 && overlay.frameCount == 30)
        // At most the two GOPs the title starts and ends in besides the title itself.
        #expect(plan.renderedFrames >= 30 && plan.renderedFrames <= 30 + 2 * 15, "rendered \(plan.renderedFrames)")
        let out = try NumberedClips.checksums(url), source = try NumberedClips.checksums(clip)
        #expect(out.count == 180)
        for range in plan.ranges where range.action == .copy {
            for frame in range.firstFrame..<(range.firstFrame + range.frameCount) { #expect(out[frame] == source[frame]) }
        }
        let numbers = try NumberedClips.frameNumbers(url, scratch: directory)
        #expect(numbers == Array(0..<180).map { $0 % 256 })
        #expect(try videoTag(url) == "avc1")
        #expect(try decodingErrors(url) == "")
    }

    /// With smart render off, or where no source fits the output (another render size),
    /// every frame is rendered as before and no plan is reported.
    @Test func offOrUnfitRendersEveryFrame() throws {
        let clip = try NumberedClips.make("plain.mp4", in: directory, offset: 0, seconds: 1)
        let (_, off) = try export(try ClipSequence(assets: [try Asset(url: clip)]), to: "off.mp4", smart: false)
        #expect(off.smartRenderPlan == nil)
        let resized = try ClipSequence(assets: [try Asset(url: clip)], renderSize: Size(width: 160, height: 90))
        let plan = try SmartRenderPlan.make(for: resized.exportSession(preset: .highestQuality, to: directory.appendingPathComponent("x.mp4"),
                                                                       fileType: .mp4))
        #expect(plan.copiedFrames == 0)
        #expect(plan.ranges.allSatisfy { $0.action == .render && $0.reason?.isEmpty == false })
        let (url, session) = try export(resized, to: "resized.mp4")
        #expect(session.smartRenderPlan == nil)
        #expect(try FFprobe.countFrames(url) == 30)
        let hevc = ExportSession(composition: resized.composition, preset: .hevcHighestQuality)
        #expect(try SmartRenderPlan.make(for: hevc).refusal?.contains("H.264 only") == true)
    }
}

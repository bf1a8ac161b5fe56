import Foundation
import ReelComposition
import ReelTestSupport
import Testing

/// Subtitles (issue 22 item 4): burned in by libass at exactly the cues' frames, written as a
/// `mov_text` track that ffprobe reads back, as WebVTT that Chromium parses, through
/// `reel compose` and `reel subtitles`; hostile subtitle files refused by file and line.
@Suite struct SubtitleTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-subtitles")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=black:size=320x180:rate=25:duration=4",
                                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                                  directory.appendingPathComponent("black.mp4").path])
    }

    private func write(_ text: String, _ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    private let srt = """
        1
        00:00:01,000 --> 00:00:02,000
        HELLO

        2
        00:00:02,500 --> 00:00:03,240
        <i>second</i> cue
        on two lines

        """

    /// The gray pictures of a movie, 320x180 each.
    private func frames(_ movie: URL) throws -> [UInt8] {
        let raw = directory.appendingPathComponent(movie.deletingPathExtension().lastPathComponent + ".gray")
        try ProcessRunner.ffmpeg(["-i", movie.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        return [UInt8](try Data(contentsOf: raw))
    }

    /// A cue from 1.000 to 2.000 s burned in at 25 fps: frames 25 to 49 (1.00 to 1.96 s) have
    /// bright text in the bottom third and nothing anywhere else; frames 24 and 50 (0.96 and
    /// 2.00 s), just before the start and at the end, are black throughout. The second cue,
    /// 2.5 to 3.24 s, shows from frame 63 (2.52 s) to 80 (3.20 s), not at 62 or 81.
    @Test func burnedTextShowsExactlyDuringItsCue() throws {
        _ = try write(srt, "cues.srt")
        let spec = try write("""
            {"renderSize": {"width": 320, "height": 180}, "frameRate": 25, "clips": [{"file": "black.mp4"}],
             "subtitles": {"file": "cues.srt", "burn": true, "style": {"fontSize": 28, "marginV": 12}}}
            """, "burn.json")
        let out = directory.appendingPathComponent("burned.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let pictures = try frames(out)
        let size = 320 * 180
        #expect(pictures.count == 100 * size)
        func bright(_ frame: Int, rows: Range<Int>) -> Int {
            var count = 0
            for y in rows { for x in 0..<320 where pictures[frame * size + y * 320 + x] > 100 { count += 1 } }
            return count
        }
        for frame in [0, 24, 50, 62, 81, 99] {
            #expect(bright(frame, rows: 0..<180) == 0, "frame \(frame) should be black, has \(bright(frame, rows: 0..<180)) bright pixels")
        }
        for frame in [25, 37, 49, 63, 80] {
            let text = bright(frame, rows: 110..<180)
            #expect(text > 80, "frame \(frame): \(text) bright pixels in the bottom third")
            #expect(bright(frame, rows: 0..<110) == 0, "frame \(frame): text above the bottom third")
        }
    }

    /// Soft: the picture and sound are as without subtitles, and a `mov_text` stream carries one
    /// sample per cue at the cue's times (ffprobe's packets, empty gap samples aside), whose
    /// text ffmpeg reads back; the WebVTT beside the movie has both cues with their times.
    @Test func softTrackCuesReadBack() throws {
        _ = try write(srt, "cues.srt")
        let spec = try write("""
            {"clips": [{"file": "black.mp4"}], "subtitles": {"file": "cues.srt", "language": "eng"}}
            """, "soft.json")
        let out = directory.appendingPathComponent("soft.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", out.path])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries",
                                                                "stream=codec_name:stream_tags=language:packet=pts_time,duration_time,size",
                                                                "-show_packets", "-of", "json", out.path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(probe.standardOutput.utf8)) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == "mov_text")
        #expect((stream["tags"] as? [String: Any])?["language"] as? String == "eng")
        let packets = (json["packets"] as? [[String: Any]] ?? []).filter { Int($0["size"] as? String ?? "0") ?? 0 > 2 }
        let times = packets.map { (Double($0["pts_time"] as? String ?? "") ?? -1, Double($0["duration_time"] as? String ?? "") ?? -1) }
        #expect(times.count == 2, "\(packets)")
        for (got, want) in zip(times, [(1.0, 1.0), (2.5, 0.74)]) {
            #expect(abs(got.0 - want.0) < 0.0005 && abs(got.1 - want.1) < 0.0005, "cue at \(got), wanted \(want)")
        }
        let readBack = directory.appendingPathComponent("readback.srt")
        try ProcessRunner.ffmpeg(["-i", out.path, "-map", "0:s", readBack.path])
        let text = try String(contentsOf: readBack, encoding: .utf8)
        #expect(text.contains("00:00:01,000 --> 00:00:02,000") && text.contains("HELLO"), "\(text)")
        #expect(text.contains("00:00:02,500 --> 00:00:03,240") && text.contains("second") && text.contains("on two lines"), "\(text)")
        // What a player gets: each sample is the cue's plain text (its italics a style record
        // beside it), the font named once in the track's sample description. ffmpeg's SubRip
        // writer wraps the text in <font face=…> only because that font is not its default
        // (Arial); its ASS reading of the same track has no font override.
        let raw = directory.appendingPathComponent("samples.bin")
        try ProcessRunner.ffmpeg(["-y", "-i", out.path, "-map", "0:s", "-c", "copy", "-f", "data", raw.path])
        let bytes = try Data(contentsOf: raw)
        #expect(bytes.range(of: Data("HELLO".utf8)) != nil && bytes.range(of: Data("second cue".utf8)) != nil
                && bytes.range(of: Data("<font".utf8)) == nil && bytes.range(of: Data("<i>".utf8)) == nil, "\(bytes.count) bytes")
        let ass = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:s", "-f", "ass", "-"])
        #expect(ass.standardOutput.contains(",HELLO") && !ass.standardOutput.contains("\\fn"), "\(ass.standardOutput)")
        // The movie's own streams are those of a render without subtitles: 100 pictures, 4 s of sound.
        #expect(try FFprobe.countFrames(out) == 100)
        let vtt = try String(contentsOf: directory.appendingPathComponent("soft.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n"))
        #expect(vtt.contains("00:00:01.000 --> 00:00:02.000\nHELLO\n"))
        #expect(vtt.contains("00:00:02.500 --> 00:00:03.240\n<i>second</i> cue\non two lines\n"))
        // No temporary file is left beside the output.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "\(left)")
    }

    /// The WebVTT beside the movie plays in headless Chromium as a `<track>`: it loads, and
    /// `track.cues` has both cues with their times and text.
    @Test(.enabled(if: BrowserPlayer.available, "needs chromium and chromedriver (make deps)"))
    func webVTTLoadsInChromium() throws {
        _ = try write(srt + "\n3\n00:00:03,300 --> 00:00:03,900\nA & B <not a tag> -->\n", "cues3.srt")
        let movie = directory.appendingPathComponent("track.mp4")
        let result = try ProcessRunner.reel(["subtitles", directory.appendingPathComponent("black.mp4").path,
                                             "--srt", directory.appendingPathComponent("cues3.srt").path, "-o", movie.path])
        #expect(result.status == 0, "\(result.standardError)")
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/tracks.py").path
        let run = try ProcessRunner.run("/usr/bin/python3", [script, movie.path, directory.appendingPathComponent("track.vtt").path],
                                        timeout: 120)
        let line = try #require(run.standardOutput.split(separator: "\n").last, "\(run.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["readyState"] as? Int == 2, "\(report)")
        #expect(report["count"] as? Int == 3, "\(report)")
        let cues = report["cues"] as? [[Any]] ?? []
        let expected: [(Double, Double, String)] = [(1, 2, "HELLO"), (2.5, 3.24, "<i>second</i> cue\non two lines"),
                                                    (3.3, 3.9, "A &amp; B &lt;not a tag&gt; -- &gt;")]
        for (cue, want) in zip(cues, expected) {
            #expect(abs((cue[0] as? Double ?? -1) - want.0) < 0.0005 && abs((cue[1] as? Double ?? -1) - want.1) < 0.0005, "\(cue)")
            #expect(cue[2] as? String == want.2, "\(cue)")
        }
    }

    /// `reel subtitles --burn` draws the cues (bright text in the bottom third at 1.48 s, none
    /// at 0.48 s; the default size, an 18th of 180 lines, makes "HELLO" 65 bright pixels).
    @Test func subtitlesCommandBurns() throws {
        let srtFile = try write(srt, "cli.srt")
        let out = directory.appendingPathComponent("cli-burned.mp4")
        let result = try ProcessRunner.reel(["subtitles", directory.appendingPathComponent("black.mp4").path, "--srt", srtFile.path,
                                             "-o", out.path, "--burn"])
        #expect(result.status == 0, "\(result.standardError)")
        let pictures = try frames(out)
        let size = 320 * 180
        let at = { (frame: Int) in (110 * 320..<size).filter { pictures[frame * size + $0] > 100 }.count }
        let before = at(12), during = at(37)
        #expect(before == 0 && during > 30, "\(before) and \(during) bright pixels")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("cli-burned.vtt").path))
    }

    /// Hostile subtitle files: each refused in one line naming the file and its line (or, for a
    /// missing file, the file), through `reel compose` and `reel subtitles`, with nothing written.
    @Test(arguments: [
        ("1\n00:00:01,000 -> 00:00:02,000\nbad arrow\n", "bad.srt:2: wants a timing line"),
        ("1\n00:00:01,000 --> 00:00:02,000\none\n\n2\n00:00:01,500 --> 00:00:03,000\ntwo\n",
         "overlap.srt:6: the cue starts at 00:00:01,500, before the cue at line 2 ends (00:00:02,000)"),
        ("1\n-00:00:01,000 --> 00:00:02,000\nnegative\n", "negative.srt:2: a time is negative"),
        ("1\n00:00:03,000 --> 00:00:02,000\nbackwards\n", "backwards.srt:2: the cue ends (00:00:02,000) at or before it starts"),
        ("1\n00:00:01,000 --> 00:00:02,000\nok\n\nnot a number\n", "words.srt:5: wants a cue number or a timing line"),
        ("1\n00:00:09,000 --> 00:00:10,000\nlate\n", "late.srt:2: the cue starts at 00:00:09,000, at or after the composition's end"),
        ("[Script Info]\n\n[Events]\nFormat: Layer, Start, End, Style, Text\nDialogue: 0,0:00:01.00,0:00:0x.00,Default,Hi\n",
         "broken.ass:5: cannot read the times"),
        ("1\r\n00:00:01,000 --> 00:00:02,000\r\nok\r\n\r\n2\r\n00:00:01,000 --> 00:00:0x,500\r\nbad\r\n", "crlf.srt:6: cannot read the times"),
        ("1\n00:00:01,000 --> 00:00:02,000\n" + String(repeating: "x", count: 20000) + "\n", "huge.srt:2: the cue's text is 20000 characters"),
    ])
    func hostileSubtitleFilesAreRefusedByFileAndLine(contents: String, expected: String) throws {
        let name = String(expected.prefix { $0 != ":" })
        _ = try write(contents, name)
        let spec = try write(#"{"clips": [{"file": "black.mp4"}], "subtitles": {"file": "\#(name)", "burn": true}}"#, "hostile-\(name).json")
        let out = directory.appendingPathComponent("hostile-\(name).mp4")
        for arguments in [["compose", spec.path, "-o", out.path],
                          ["subtitles", directory.appendingPathComponent("black.mp4").path, "--srt",
                           directory.appendingPathComponent(name).path, "-o", out.path]] {
            let result = try ProcessRunner.reel(arguments)
            #expect(result.status != 0)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(result.standardError)")
            #expect(result.standardError.contains(expected), "\(arguments[0]): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// A SubRip file from Windows (a byte-order mark, CR LF line ends) reads as any other.
    @Test func windowsLineEndsRead() throws {
        let url = try write("\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,000\r\nfirst\r\n\r\n2\r\n00:00:02,500 --> 00:00:03,000\r\nsecond\r\nline\r\n",
                            "windows.srt")
        let document = try SubtitleDocument(contentsOf: url)
        #expect(document.cues.map(\.start) == [1000, 2500] && document.cues.map(\.end) == [2000, 3000])
        #expect(document.cues.map(\.text) == ["first", "second\nline"])
        #expect(document.cues.map(\.line) == [2, 6])
    }

    @Test func aMissingSubtitleFileIsNamed() throws {
        let spec = try write(#"{"clips": [{"file": "black.mp4"}], "subtitles": {"file": "absent.srt"}}"#, "missing.json")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", directory.appendingPathComponent("missing.mp4").path])
        #expect(result.status != 0)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("subtitles.file") && result.standardError.contains("absent.srt: no such subtitle file"),
                "\(result.standardError)")
        let cli = try ProcessRunner.reel(["subtitles", directory.appendingPathComponent("black.mp4").path, "--srt",
                                          directory.appendingPathComponent("absent.srt").path, "-o",
                                          directory.appendingPathComponent("missing.mp4").path])
        #expect(cli.status != 0 && cli.standardError.contains("absent.srt: no such subtitle file"), "\(cli.standardError)")
    }
}

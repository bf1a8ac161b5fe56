import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

/// `docs/examples/composition-v2.json`, which uses every spec v2 feature at once (easing of
/// every kind, a still with EXIF orientation, `fit` and a Ken Burns move, a freeze, a
/// reversed sped-up clip, a boomerang with a look, video layers (picture in picture with a
/// look, corners and border, a keyed green screen, a ProRes 4444 logo with alpha, a PNG
/// sequence with alpha), per-clip sound fades, loudness,
/// GIF palettes per scene, the sound alone as .m4a), rendered from generated media
/// to a movie and a GIF; its contact sheet and timeline picture are kept beside them.
@Suite struct SpecV2ExampleTests {
    @Test func theExampleRendersWithEveryFeature() throws {
        let directory = try Paths.temporaryDirectory("reel-spec-v2-example")
        let spec = directory.appendingPathComponent("composition-v2.json")
        try FileManager.default.copyItem(at: Paths.packageRoot.appendingPathComponent("docs/examples/composition-v2.json"), to: spec)
        try FileManager.default.copyItem(at: Paths.packageRoot.appendingPathComponent("docs/examples/composition-v2.srt"),
                                         to: directory.appendingPathComponent("composition-v2.srt"))
        for (name, seconds, tone) in [("arrival.mp4", 4, 440), ("departure.mp4", 2, 660)] {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=\(seconds)",
                                      "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000:duration=\(seconds)",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest",
                                      directory.appendingPathComponent(name).path])
        }
        // Layers: a green-screen shot (a red and white card on green) and a ProRes 4444 logo with alpha (a disc).
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=0x00FF00:s=160x90:r=25:d=3,drawbox=x=50:y=20:w=60:h=50:color=red:t=fill,drawbox=x=65:y=32:w=30:h=26:color=white:t=fill",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                  directory.appendingPathComponent("greenscreen.mp4").path])
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=black:s=64x64:r=25:d=3,format=rgba,geq=r=255:g=200:b=0:a='255*clip(29-hypot(X-31.5\\,Y-31.5)\\,0\\,1)'",
                                  "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le",
                                  directory.appendingPathComponent("logo.mov").path])
        // A PNG-sequence badge with alpha: 24 pictures (2 s at 12 fps) of a magenta disc that grows.
        let badge = directory.appendingPathComponent("badge")
        try FileManager.default.createDirectory(at: badge, withIntermediateDirectories: true)
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "color=black:s=48x48:r=12:d=2,format=rgba,geq=r=255:g=0:b=200:a='255*clip(8+N/2-hypot(X-23.5\\,Y-23.5)\\,0\\,1)'",
                                  "-start_number", "0", badge.appendingPathComponent("badge-%03d.png").path])
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "anoisesrc=color=brown:amplitude=0.2:duration=10:sample_rate=48000",
                                  "-c:a", "aac", directory.appendingPathComponent("music.m4a").path])
        // A portrait photo stored on its side (EXIF orientation 6).
        let photo = try PixelBuffer(width: 320, height: 180, pixelFormat: .rgba)
        photo.fillRect(x: 0, y: 0, width: 320, height: 180, rgba: (30, 60, 200, 255))
        photo.fillRect(x: 0, y: 0, width: 160, height: 180, rgba: (240, 200, 40, 255))
        try ImageFile.data(photo, format: .jpeg(quality: 2), metadata: ImageMetadata(orientation: .right))
            .write(to: directory.appendingPathComponent("portrait.jpg"))

        // 3 s + a 0.5 s freeze (13 frames: 0.52 s) + 2 s + 2 s at twice the speed + 2 s, less
        // overlaps of 0.4 s and 0.8 s: 7.32 s, 183 frames.
        let movie = directory.appendingPathComponent("example.mp4")
        let result = try ProcessRunner.reel(["compose", spec.path, "-o", movie.path], timeout: 1200)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("loudness: measured"), "\(result.standardOutput)")
        let probe = try FFprobe.probe(movie)
        #expect(abs((probe.streams(ofType: "video").first?.duration ?? 0) - 7.32) <= 0.001, "\(probe.streams)")
        #expect(abs((probe.streams(ofType: "audio").first?.duration ?? 0) - 7.32) <= 0.03)
        #expect(try FFprobe.countFrames(movie) == 183)
        // The badge shows from 2 s to 4 s, at (8, 8) 48x48: its middle is magenta at 3 s (frame
        // 75), and the corner of its square, outside the disc, is not.
        func pixel(_ index: Int, _ x: Int, _ y: Int) throws -> [Int] {
            let raw = directory.appendingPathComponent("example-\(index).rgb")
            try ProcessRunner.ffmpeg(["-y", "-i", movie.path, "-vf", "select=eq(n\\,\(index)),format=rgb24,crop=1:1:\(x):\(y)", "-frames:v", "1",
                                      "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            return [UInt8](try Data(contentsOf: raw)).map(Int.init)
        }
        let middle = try pixel(75, 32, 32), corner = try pixel(75, 9, 9)
        #expect(middle.count == 3 && middle[0] > 200 && middle[1] < 70 && middle[2] > 150, "the badge's middle: \(middle)")
        #expect(corner.count == 3 && !(corner[0] > 200 && corner[1] < 70 && corner[2] > 150), "outside its disc: \(corner)")

        let gif = directory.appendingPathComponent("example.gif")
        let animated = try ProcessRunner.reel(["compose", spec.path, "-o", gif.path], timeout: 1200)
        #expect(animated.status == 0, "\(animated.standardError)")
        #expect(try FFprobe.countFrames(gif) == 183)

        // The sound alone, as .m4a: one AAC stream as long as the movie's.
        let sound = directory.appendingPathComponent("example.m4a")
        let soundOnly = try ProcessRunner.reel(["compose", spec.path, "-o", sound.path], timeout: 1200)
        #expect(soundOnly.status == 0, "\(soundOnly.standardError)")
        let soundProbe = try FFprobe.probe(sound)
        #expect(soundProbe.streams(ofType: "video").isEmpty && soundProbe.streams(ofType: "audio").first?.codecName == "aac")
        #expect(abs((soundProbe.duration ?? 0) - 7.32) <= 0.03, "\(soundProbe.duration ?? 0)")

        // Kept for a look: a contact sheet and the timeline picture.
        let sheet = directory.appendingPathComponent("example-sheet.png")
        try ProcessRunner.ffmpeg(["-i", movie.path, "-vf", "select=not(mod(n\\,12)),scale=160:90,tile=4x4", "-frames:v", "1", sheet.path])
        let timeline = try ProcessRunner.reel(["timeline", spec.path, "-o", directory.appendingPathComponent("example-timeline.png").path,
                                               "--width", "900"])
        #expect(timeline.status == 0, "\(timeline.standardError)")
        print("spec v2 example: \(movie.path), \(gif.path), \(sheet.path)")
    }
}

public import Foundation

/// A flash-and-click clip: a dark picture with one white frame every second, and silence
/// with a 10 ms 1 kHz click starting at the same instant, as the sync suite's sources.
/// Made by the ffmpeg CLI from raw frames and samples (an outside encoder, whose MP4
/// muxer hides the AAC priming with an edit list), so the sources are right by
/// construction and every edit's output can be measured against them.
public struct FlashClick: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second as a fraction: 25/1, 30000/1001, 30/1.
    public var rateNumerator: Int
    public var rateDenominator: Int
    public var sampleRate: Int
    /// The picture's length in seconds (a whole number: one event a second).
    public var seconds: Int
    /// The sound starts this late (its first sample at this time), in seconds.
    public var soundDelay: Double
    /// The sound lasts this much longer than the picture, in seconds.
    public var soundExtra: Double
    /// Frames 20 and 40 ms apart in turn (a variable frame rate), flashes kept.
    public var variableRate: Bool
    /// Where in each second the flash falls (0.5: at 0.5 s, 1.5 s…).
    public var phase: Double
    /// Frames each flash lasts: a speed-up by N keeps one frame in N, so its sources flash for N.
    public var flashLength: Int
    /// The track's last sample is stored this much longer than a frame, in seconds, and the
    /// picture is coded with B-frames, as in a HandBrake file: FFmpeg's MP4 reader then gives
    /// the video packets no duration, and only the track's length says how long the last
    /// picture lasts. The muxer's edit list presents part of the hold (ffprobe's duration
    /// says how much: 40 ms of 80 at 25 fps), so ``pictureSeconds`` leaves it out.
    public var heldLastFrame: Double

    public init(rate: (Int, Int) = (25, 1), sampleRate: Int = 48000, seconds: Int = 3, soundDelay: Double = 0,
                soundExtra: Double = 0, variableRate: Bool = false, phase: Double = 0.5, flashLength: Int = 1,
                heldLastFrame: Double = 0) {
        rateNumerator = rate.0
        rateDenominator = rate.1
        self.sampleRate = sampleRate
        self.seconds = seconds
        self.soundDelay = soundDelay
        self.soundExtra = soundExtra
        self.variableRate = variableRate
        self.phase = phase
        self.flashLength = max(1, flashLength)
        self.heldLastFrame = max(0, heldLastFrame)
    }

    public var frameRate: Double { variableRate ? 50 : Double(rateNumerator) / Double(rateDenominator) }
    public var frameDuration: Double { 1 / frameRate }
    /// The picture's length in seconds: whole frames, so 3.003 s for 3 s at 29.97 fps (90 frames).
    public var pictureSeconds: Double {
        let rate = variableRate ? 50 : frameRate
        return (Double(seconds) * rate).rounded() / rate
    }

    /// The picture times of the flashes (the first frame at or after `k + phase`), where the clicks start too.
    public var events: [Double] {
        (0..<seconds).compactMap { k in
            let ideal = Double(k) + phase
            let frame = (ideal * frameRate - 1e-9).rounded(.up)
            let time = frame / frameRate
            return time >= soundDelay && time < Double(seconds) ? time : nil
        }
    }

    public var description: String {
        var text = variableRate ? "vfr" : (rateDenominator == 1 ? "\(rateNumerator)fps" : String(format: "%.2ffps", frameRate))
        text += " \(sampleRate / 1000).\(sampleRate % 1000 / 100)k"
        if soundDelay > 0 { text += " late\(soundDelay)" }
        if soundExtra > 0 { text += " long\(soundExtra)" }
        if flashLength > 1 { text += " flash\(flashLength)" }
        if heldLastFrame > 0 { text += " held\(heldLastFrame)" }
        return text
    }

    /// Writes the clip (160x90 H.264 + mono AAC) to `url`.
    public func write(to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        let stem = "\(url.deletingPathExtension().lastPathComponent)-\(UUID().uuidString.prefix(6))"
        let pictures = folder.appendingPathComponent("\(stem).gray")
        let sound = folder.appendingPathComponent("\(stem).f32")
        defer {
            try? FileManager.default.removeItem(at: pictures)
            try? FileManager.default.removeItem(at: sound)
        }
        // Pictures: for a variable rate, made at 50 fps and thinned below (flash frames kept).
        let rate = variableRate ? 50 : frameRate
        let frameCount = Int((Double(seconds) * rate).rounded())
        let flashFrames = Set(events.flatMap { event in
            (0..<(variableRate ? 1 : flashLength)).map { Int((event * rate).rounded()) + $0 }
        })
        let frameSize = 160 * 90
        var frames = [UInt8](repeating: 30, count: frameCount * frameSize)
        for frame in flashFrames where frame >= 0 && frame < frameCount {
            for i in 0..<frameSize { frames[frame * frameSize + i] = 235 }
        }
        try Data(frames).write(to: pictures)
        // Sound: from soundDelay to the picture's end plus soundExtra, a click at each event.
        let total = Int(((Double(seconds) + soundExtra - soundDelay) * Double(sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: total)
        let clickLength = sampleRate / 100
        for event in events {
            let first = Int(((event - soundDelay) * Double(sampleRate)).rounded())
            for i in 0..<clickLength where first + i >= 0 && first + i < total {
                samples[first + i] = 0.9 * Float(sin(2 * Double.pi * 1000 * Double(i) / Double(sampleRate)))
            }
        }
        try samples.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: sound)
        let rateText = variableRate ? "50" : "\(rateNumerator)/\(rateDenominator)"
        var arguments = ["-f", "rawvideo", "-pix_fmt", "gray", "-s", "160x90", "-r", rateText, "-i", pictures.path]
        if soundDelay > 0 { arguments += ["-itsoffset", String(soundDelay)] }
        arguments += ["-f", "f32le", "-ar", "\(sampleRate)", "-ac", "1", "-i", sound.path]
        if variableRate {
            // Keep two frames of three (20 and 40 ms apart in turn) and every flash.
            let keep = flashFrames.map { "eq(n\\,\($0))" }.joined(separator: "+")
            arguments += ["-vf", "select='not(eq(mod(n\\,3)\\,0))+\(keep)'", "-fps_mode", "vfr"]
        }
        guard heldLastFrame > 0 else {
            arguments += ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
                          "-c:a", "aac", "-b:a", "96k", url.path]
            try ProcessRunner.ffmpeg(arguments)
            return
        }
        // B-frames, then a copy that stores the last packet in decode order (whose duration
        // ends the track; FFmpeg's reader gives it none, so DURATION is 0) as lasting a frame
        // and the hold.
        let coded = folder.appendingPathComponent("\(stem)-coded.mp4")
        defer { try? FileManager.default.removeItem(at: coded) }
        arguments += ["-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "25", "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-b:a", "96k", coded.path]
        try ProcessRunner.ffmpeg(arguments)
        let last = "(\(rateDenominator)/\(rateNumerator)+\(heldLastFrame))/TB"
        try ProcessRunner.ffmpeg(["-i", coded.path, "-c", "copy", "-bsf:v",
                                  "setts=pts=PTS:dts=DTS:duration=if(eq(N\\,\(frameCount - 1))\\,\(last)\\,DURATION)", url.path])
    }
}

import Foundation
import ReelTestSupport

/// Clips whose pictures are coded losslessly (x264 at `-qp 0`), for tests that read exact
/// pixel values back from what `reel compose` wrote.
enum LosslessClips {
    /// Writes an FFmpeg lavfi picture with a sine tone under it, x264 losslessly, cut to the
    /// shorter of the two.
    /// - Parameters:
    ///   - picture: The lavfi video source and filters (its size, rate and duration).
    ///   - frequency: The tone's frequency in Hz (48 kHz).
    ///   - seconds: The tone's duration.
    ///   - url: Where to write the clip.
    static func make(_ picture: String, tone frequency: Int, seconds: Int, to url: URL) throws {
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", picture,
                                  "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=\(seconds)",
                                  "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-shortest", url.path])
    }
}

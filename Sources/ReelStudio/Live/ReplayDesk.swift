import Dispatch
import Foundation
import ReelCapture
import ReelCore

/// `reel studio --replay-buffer N`: the last N seconds of the camera and microphone kept on
/// disk, as `reel record --replay-buffer` keeps them (a ``ReplayBuffer`` fed by a
/// ``LiveStreamer``'s segmented writer from data outputs of their own on the studio's
/// session), saved into the library's videos folder by the page's Save replay button or
/// `POST /api/replay`, without stopping anything. The buffer's hidden folder is in the
/// videos folder too, which the gallery does not list; each replay written is announced as
/// a `library` event, so every gallery shows it.
final class ReplayDesk: @unchecked Sendable {
    let buffer: ReplayBuffer
    private let streamer: LiveStreamer
    private let pictures = VideoDataOutput()
    private let sound = AudioDataOutput()

    /// - Parameters:
    ///   - seconds: The seconds kept (and saved).
    ///   - camera: The studio's capture, whose session gets the buffer's two data outputs.
    ///   - folder: Where replays go (the library's videos folder).
    ///   - events: Told of each replay written (`library` and `replay` events).
    ///   - report: Told of a failure, in words.
    /// - Throws: ``ReelError`` when the buffer's folder cannot be made or the outputs added.
    init(seconds: Double, camera: LiveCamera, folder: URL, events: EventHub, report: @escaping @Sendable (String) -> Void)
        throws(ReelError)
    {
        buffer = try ReplayBuffer(
            seconds: seconds, beside: folder.appendingPathComponent("studio.mp4"), destination: folder,
            report: { line in if line.hasPrefix("replay buffer:") { report(line) } },
            saved: { url in
                events.publish("library", ["added": url.lastPathComponent])
                events.publish("replay", ["saved": url.lastPathComponent])
            })
        let streamer = LiveStreamer(
            hls: nil, replay: buffer, withAudio: camera.currentMicrophone != nil, frameRate: camera.session.frameRate, report: report)
        self.streamer = streamer
        pictures.setSampleBufferHandler(queue: DispatchQueue(label: "reel.studio.replay-video")) { sample in
            streamer.appendVideo(sample)
        }
        sound.setSampleBufferHandler(queue: DispatchQueue(label: "reel.studio.replay-audio")) { sample in
            streamer.appendAudio(sample)
        }
        do throws(ReelError) {
            try camera.session.add(pictures)
            try camera.session.add(sound)
        } catch {
            buffer.finish()
            throw error
        }
    }

    /// The seconds a save keeps.
    var seconds: Double { buffer.length.seconds }

    /// Saves the last N seconds once the segment holding the newest frame lands (about a
    /// second); the `replay` event says when the file is in place.
    func save() { buffer.save() }

    /// Ends the buffer's writer and removes its folder (the studio is stopping).
    func close() { streamer.stop() }
}

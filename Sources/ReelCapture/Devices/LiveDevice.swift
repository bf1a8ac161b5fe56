import Foundation
import ReelAsset
import ReelAV
import ReelCore

/// A hardware (or server) device read through libavdevice on a thread of its own:
/// `pulse:NAME`, `alsa:NAME`, `x11:DISPLAY`, `v4l2:/dev/videoN`. Reads block until the
/// device has data, so they cannot run on the session's timers; the thread keeps the
/// newest picture, or the sound not yet taken, for the session's ticks to collect.
final class LiveDevice: @unchecked Sendable {
    /// How libavdevice opens a source: its input format, URL and private options.
    struct Opening: Sendable, Hashable {
        var inputFormat: String
        var url: String
        var options: [String: String]
        var mediaType: MediaType
    }

    private static let devices = PosixMutex<[String: LiveDevice]>([:])

    let id: String
    private let lock = NSLock()
    private var generation = 0
    private var running = false
    private var samples: [Float] = []
    private var newest: PixelBuffer?
    private var pictureCount = 0
    private var _failure: ReelError?
    private var finished: DispatchSemaphore?

    /// The live reader of a device (a session's ticks and the device share it).
    static func shared(for device: CaptureDevice) -> LiveDevice? {
        guard device.source.opening(frameRate: 30) != nil else { return nil }
        return devices.withLock { devices in
            if let live = devices[device.uniqueID] { return live }
            let live = LiveDevice(id: device.uniqueID)
            devices[device.uniqueID] = live
            return live
        }
    }

    private init(id: String) { self.id = id }

    /// Opens the device once and closes it: what `device(withUniqueID:)` checks, so that a
    /// wrong name fails there, with libavdevice's message, and not mid-session.
    static func probe(_ opening: Opening, id: String) throws(ReelError) -> (width: Int, height: Int) {
        let input = try LiveInput(url: opening.url, inputFormat: opening.inputFormat, options: opening.options, subject: id,
                                  mediaType: opening.mediaType)
        return (input.width, input.height)
    }

    /// Starts reading on a new thread; an earlier reader is stopped first.
    func start(_ opening: Opening) {
        stop()
        let done = DispatchSemaphore(value: 0)
        let current = lock.withLock { () -> Int in
            generation += 1
            running = true
            samples = []
            newest = nil
            pictureCount = 0
            _failure = nil
            finished = done
            return generation
        }
        let thread = Thread { [self] in
            defer { done.signal() }
            read(opening, generation: current)
        }
        thread.name = "reel.live \(id)"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Stops the reader and waits (up to a second: a read returns within a frame or a
    /// fragment of sound) for it to close the device.
    func stop() {
        let done = lock.withLock { () -> DispatchSemaphore? in
            running = false
            generation += 1
            defer { finished = nil }
            return finished
        }
        _ = done?.wait(timeout: .now() + 1)
    }

    /// Why the device stopped giving media, once it has.
    var failure: ReelError? { lock.withLock { _failure } }

    /// The newest picture, and how many have come so far.
    var newestPicture: (picture: PixelBuffer?, count: Int) { lock.withLock { (newest, pictureCount) } }

    /// Takes the first `count` samples of sound not yet taken, or nil when fewer have come.
    func takeSamples(_ count: Int) -> [Float]? {
        lock.withLock {
            guard samples.count >= count else { return nil }
            defer { samples.removeFirst(count) }
            return Array(samples.prefix(count))
        }
    }

    /// Samples waiting to be taken.
    var bufferedSampleCount: Int { lock.withLock { samples.count } }

    private func isCurrent(_ current: Int) -> Bool { lock.withLock { running && generation == current } }

    private func read(_ opening: Opening, generation current: Int) {
        var opened = false
        do throws(ReelError) {
            let input = try LiveInput(url: opening.url, inputFormat: opening.inputFormat, options: opening.options,
                                      subject: id, mediaType: opening.mediaType)
            opened = true
            // At most ten seconds of sound wait for a session that has stopped collecting.
            let limit = LiveInput.sampleRate * 10
            while isCurrent(current) {
                if opening.mediaType == .audio {
                    guard let buffer = try input.readAudio() else { break }
                    let more = buffer.floatSamples(channel: 0)
                    lock.withLock {
                        guard generation == current else { return }
                        samples += more
                        if samples.count > limit { samples.removeFirst(samples.count - limit) }
                    }
                } else {
                    guard let picture = try input.readPicture() else { break }
                    lock.withLock {
                        guard generation == current else { return }
                        newest = picture
                        pictureCount += 1
                    }
                }
            }
            if isCurrent(current) { fail(ReelError(.io, "the device stopped giving media", subject: id), current) }
        } catch {
            // A read that fails after the device opened means it went away (unplugged,
            // the sound server stopped); libavdevice's own words follow.
            var failure = error
            if opened { failure.message = "the device went away: \(error.message)" }
            fail(failure, current)
        }
    }

    private func fail(_ error: ReelError, _ current: Int) {
        lock.withLock { if generation == current { _failure = error } }
    }
}

extension CaptureDevice.Source {
    /// How libavdevice opens this source, at `frameRate` for a camera; nil for the
    /// sources Reel makes itself.
    func opening(frameRate: Double) -> LiveDevice.Opening? {
        let rate = String(Int(frameRate.rounded()))
        switch self {
        case .pulse(let name):
            // 20 ms fragments (s16 mono): the server's default holds sound back for a second
            // or more, which a stop would cut off.
            return .init(inputFormat: "pulse", url: name,
                         options: ["sample_rate": "48000", "channels": "1", "fragment_size": "1920"], mediaType: .audio)
        case .alsa(let name):
            return .init(inputFormat: "alsa", url: name, options: ["sample_rate": "48000", "channels": "1"],
                         mediaType: .audio)
        case .x11(let display):
            return .init(inputFormat: "x11grab", url: display, options: ["framerate": rate, "draw_mouse": "0"],
                         mediaType: .video)
        case .v4l2(let path):
            return V4L2Camera.frameOpening(path: path, rate: frameRate)
        case .virtualCamera, .virtualMicrophone, .file:
            return nil
        }
    }
}

extension LiveDevice: FrameSource {
    /// The newest picture the device's thread has read, scaled to the session's size. A
    /// V4L2 camera takes the controls first, and is checked for being unplugged.
    func draw(frame index: Int64, at seconds: Double, rate: Double, flash: Bool, of device: CaptureDevice,
              into picture: PixelBuffer) -> FrameOutcome {
        if let v4l2 = V4L2Camera.shared(for: device) {
            let controls = device.advanceControls(by: 1 / rate, scene: nil)
            do throws(ReelError) {
                try v4l2.apply(controls, frameRate: rate)
                if index % 10 == 0 { try v4l2.checkConnected() }
            } catch {
                return .lost(error)
            }
        }
        if let failure { return .lost(failure) }
        guard let newest = newestPicture.picture else { return .notYet }
        do throws(ReelError) { try PixelScaler.scale(newest, into: picture) } catch { return .lost(error) }
        return .drawn
    }
}

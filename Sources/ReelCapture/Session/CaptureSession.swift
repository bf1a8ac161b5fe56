import Dispatch
import Foundation
import ReelAsset
public import ReelCore
public import ReelFilters

/// A device feeding a session. `AVCaptureDeviceInput`.
public final class CaptureDeviceInput: Sendable {
    public let device: CaptureDevice

    /// - Throws: ``ReelError`` `.permissionDenied` when the process may not open the device.
    public init(device: CaptureDevice) throws(ReelError) {
        guard device.isAuthorized else {
            throw ReelError(.permissionDenied, "this user may not open the device", subject: device.uniqueID)
        }
        self.device = device
    }
}

/// Somewhere a session's media goes: the data outputs and the movie file output.
public class CaptureOutput: @unchecked Sendable {
    func deliver(_ sample: SampleBuffer) {}
    func sessionDidStop() {}
}

/// Live capture: devices in, outputs out, a preset for the size, and a filter applied
/// once to each frame so that every output gets the same filtered picture. `AVCaptureSession`.
///
/// `startRunning()` returns at once; frames arrive on the session's own queues with
/// timestamps from the device clock (frame `i` at `i / fps` from the start).
public final class CaptureSession: @unchecked Sendable {
    /// `AVCaptureSession.Preset`.
    public struct Preset: RawRepresentable, Sendable, Hashable, CaseIterable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let photo = Preset(rawValue: "photo")
        public static let high = Preset(rawValue: "high")
        public static let medium = Preset(rawValue: "medium")
        public static let low = Preset(rawValue: "low")
        public static let vga640x480 = Preset(rawValue: "640x480")
        public static let iFrame960x540 = Preset(rawValue: "iFrame960x540")
        public static let hd1280x720 = Preset(rawValue: "1280x720")
        public static let hd1920x1080 = Preset(rawValue: "1920x1080")
        public static let hd4K3840x2160 = Preset(rawValue: "3840x2160")
        public static let allCases: [Preset] = [.photo, .high, .medium, .low, .vga640x480, .iFrame960x540, .hd1280x720,
                                                .hd1920x1080, .hd4K3840x2160]

        /// The frame size the preset asks for.
        var size: (Int, Int) {
            switch self {
            case .photo, .hd4K3840x2160: (3840, 2160)
            case .high, .hd1920x1080: (1920, 1080)
            case .medium, .vga640x480: (640, 480)
            case .low: (480, 360)
            case .iFrame960x540: (960, 540)
            default: (1280, 720)
            }
        }
    }

    private let lock = NSLock()
    private var _preset: Preset = .high
    private var _inputs: [CaptureDeviceInput] = []
    private var _outputs: [CaptureOutput] = []
    private var _running = false
    private var configuring = 0
    private var videoTimer: (any DispatchSourceTimer)?
    private var audioTimer: (any DispatchSourceTimer)?
    private let videoQueue = DispatchQueue(label: "reel.capture.video")
    private let audioQueue = DispatchQueue(label: "reel.capture.audio")
    private var startTime: UInt64 = 0
    private var nextFrame: Int64 = 0
    private var nextSample: Int64 = 0
    private var pool: PixelBufferPool?
    /// Guards the counters and the filter, which the video queue uses and anyone may read or
    /// set. Not `lock`: that one stays held between begin- and commitConfiguration.
    private let stateLock = NSLock()
    private var counts = (dropped: 0, delivered: 0)
    private var _videoFilter: FilterChain?
    /// Frames the session rendered late and skipped.
    public var droppedFrames: Int { stateLock.withLock { counts.dropped } }
    /// Frames delivered since `startRunning()`.
    public var deliveredFrames: Int { stateLock.withLock { counts.delivered } }

    /// Applied once to every frame before any output sees it (the seed's live filter). It may
    /// be replaced while running; the next frame uses the new one.
    public var videoFilter: FilterChain? {
        get { stateLock.withLock { _videoFilter } }
        set { stateLock.withLock { _videoFilter = newValue } }
    }

    public init() {}

    /// `sessionPreset`. Setting one the inputs cannot do is ignored; check ``canSetSessionPreset(_:)``.
    public var sessionPreset: Preset {
        get { lock.withLock { _preset } }
        set { if canSetSessionPreset(newValue) { lock.withLock { _preset = newValue } } }
    }

    /// Whether the camera has a format at least as large as the preset. `canSetSessionPreset(_:)`.
    public func canSetSessionPreset(_ preset: Preset) -> Bool {
        let (width, height) = preset.size
        guard let camera = inputs.first(where: { $0.device.mediaType == .video })?.device else { return true }
        return camera.formats.contains { $0.width >= width && $0.height >= height } || camera.uniqueID.hasPrefix("file:")
    }

    public var inputs: [CaptureDeviceInput] { lock.withLock { _inputs } }
    public var outputs: [CaptureOutput] { lock.withLock { _outputs } }
    public var isRunning: Bool { lock.withLock { _running } }

    /// One input per medium. `canAddInput(_:)`.
    public func canAddInput(_ input: CaptureDeviceInput) -> Bool {
        !inputs.contains { $0.device.mediaType == input.device.mediaType }
    }

    /// - Throws: ``ReelError`` `.invalidState` when ``canAddInput(_:)`` is false. `addInput(_:)`.
    public func addInput(_ input: CaptureDeviceInput) throws(ReelError) {
        guard canAddInput(input) else {
            throw ReelError(.invalidState, "the session already has a \(input.device.mediaType) input", subject: input.device.uniqueID)
        }
        lock.withLock { _inputs.append(input) }
    }

    /// `removeInput(_:)`: inside begin/commitConfiguration, the replacement takes over on the next frame.
    public func removeInput(_ input: CaptureDeviceInput) {
        lock.withLock { _inputs.removeAll { $0 === input } }
    }

    public func canAddOutput(_ output: CaptureOutput) -> Bool { !outputs.contains { $0 === output } }

    public func addOutput(_ output: CaptureOutput) throws(ReelError) {
        guard canAddOutput(output) else { throw ReelError(.invalidState, "the output is already in the session") }
        lock.withLock { _outputs.append(output) }
        (output as? MovieFileOutput)?.session = self
    }

    public func removeOutput(_ output: CaptureOutput) { lock.withLock { _outputs.removeAll { $0 === output } } }

    /// Changes between begin and commit take effect together, at a frame boundary.
    /// `beginConfiguration()`.
    public func beginConfiguration() {
        lock.lock()
        configuring += 1
    }

    /// `commitConfiguration()`.
    public func commitConfiguration() {
        configuring -= 1
        lock.unlock()
    }

    /// The size frames are made at: the preset's, within the camera's formats.
    public var frameSize: (width: Int, height: Int) {
        let (width, height) = sessionPreset.size
        guard let camera = inputs.first(where: { $0.device.mediaType == .video })?.device,
              let format = camera.formats.filter({ $0.width <= width && $0.height <= height })
                .max(by: { $0.width * $0.height < $1.width * $1.height }) ?? camera.formats.first,
              format.width > 0 else { return (width, height) }
        return (format.width, format.height)
    }

    /// The frame rate of the camera.
    public var frameRate: Double {
        inputs.first { $0.device.mediaType == .video }?.device.activeFrameRate ?? 30
    }

    /// Starts the devices; returns at once. `startRunning()`.
    public func startRunning() {
        let already = lock.withLock { () -> Bool in
            defer { _running = true }
            return _running
        }
        guard !already else { return }
        startTime = DispatchTime.now().uptimeNanoseconds
        nextFrame = 0
        nextSample = 0
        let rate = frameRate
        if inputs.contains(where: { $0.device.mediaType == .video }) {
            let timer = DispatchSource.makeTimerSource(queue: videoQueue)
            timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(1e9 / rate / 2)), leeway: .milliseconds(1))
            timer.setEventHandler { [weak self] in self?.videoTick() }
            timer.resume()
            videoTimer = timer
        }
        if inputs.contains(where: { $0.device.mediaType == .audio }) {
            let timer = DispatchSource.makeTimerSource(queue: audioQueue)
            timer.schedule(deadline: .now(), repeating: .milliseconds(10), leeway: .milliseconds(2))
            timer.setEventHandler { [weak self] in self?.audioTick() }
            timer.resume()
            audioTimer = timer
        }
    }

    /// Stops the devices and waits for the last frame to be delivered. `stopRunning()`.
    public func stopRunning() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { _running = false }
            return _running
        }
        guard wasRunning else { return }
        videoTimer?.cancel()
        audioTimer?.cancel()
        videoQueue.sync {}
        audioQueue.sync {}
        for output in outputs { output.sessionDidStop() }
    }

    private func elapsedNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds &- startTime }

    private func videoTick() {
        let rate = frameRate
        let due = Int64(Double(elapsedNanoseconds()) / 1e9 * rate)
        // Behind by more than a few frames: skip ahead (a camera drops what it cannot deliver).
        if due - nextFrame > 8 {
            let skipped = Int(due - nextFrame - 1)
            stateLock.withLock { counts.dropped += skipped }
            nextFrame = due - 1
        }
        while nextFrame <= due {
            deliverFrame(nextFrame, rate: rate)
            nextFrame += 1
        }
    }

    private func deliverFrame(_ index: Int64, rate: Double) {
        let (width, height) = frameSize
        if pool?.width != width || pool?.height != height {
            pool = try? PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 24)
        }
        guard let pool else { return }
        let picture = pool.makePixelBuffer()
        let camera = lock.withLock { _inputs.first { $0.device.mediaType == .video }?.device }
        if let camera, camera.uniqueID.hasPrefix("file:") {
            FileCamera.shared(for: camera.uniqueID)?.render(frame: index, rate: rate, into: picture)
        } else {
            VirtualCamera.render(frame: index, rate: rate, into: picture)
        }
        var shown = picture
        if let filter = videoFilter, let filtered = try? filter.apply(picture) { shown = filtered }
        let time = MediaTime(value: index * 90000 / Int64(max(1, rate.rounded())), timescale: 90000)
        let sample = SampleBuffer(pixelBuffer: shown, presentationTime: time,
                                  duration: MediaTime(value: 90000 / Int64(max(1, rate.rounded())), timescale: 90000))
        stateLock.withLock { counts.delivered += 1 }
        for output in outputs { output.deliver(sample) }
    }

    private func audioTick() {
        let rate = Int64(VirtualMicrophone.sampleRate)
        let due = Int64(Double(elapsedNanoseconds()) / 1e9 * Double(rate))
        while nextSample + 1024 <= due {
            let samples = VirtualMicrophone.samples(start: nextSample, count: 1024)
            if let buffer = try? AudioBuffer.float(channels: [samples], sampleRate: Int(rate)) {
                let sample = SampleBuffer(audioBuffer: buffer, presentationTime: MediaTime(value: nextSample, timescale: Int32(rate)))
                for output in outputs { output.deliver(sample) }
            }
            nextSample += 1024
        }
    }
}

import Dispatch
import Foundation
import ReelAV
public import ReelCore
public import ReelFilters

/// Live capture: devices in, outputs out, a preset for the size, and a filter applied
/// once to each frame so that every output gets the same filtered picture. `AVCaptureSession`.
///
/// `startRunning()` returns at once; frames arrive on the session's own queues with
/// timestamps from the session clock (frame `i` at `i / fps` from the start). Changes
/// between ``beginConfiguration()`` and ``commitConfiguration()`` are staged and take
/// effect together at the next frame, without stopping the outputs: switching cameras
/// that way keeps a recording going in one file.
public final class CaptureSession: @unchecked Sendable {
    /// Inputs, outputs and preset: what ``beginConfiguration()`` stages and
    /// ``commitConfiguration()`` swaps in at once.
    struct Configuration {
        var preset: Preset = .high
        var inputs: [CaptureDeviceInput] = []
        var outputs: [CaptureOutput] = []

        var camera: CaptureDevice? { inputs.first { $0.device.mediaType == .video }?.device }
        var microphone: CaptureDevice? {
            inputs.first { $0.device.mediaType == .audio }?.device
                ?? inputs.first { $0.device.deviceType == .file && $0.device.hasMediaType(.audio) }?.device
        }

        /// The size frames are made at: the preset's, within the camera's formats.
        var frameSize: (width: Int, height: Int) {
            let (width, height) = preset.size
            guard let camera,
                  let format = camera.formats.filter({ $0.width <= width && $0.height <= height })
                    .max(by: { $0.width * $0.height < $1.width * $1.height }) ?? camera.formats.first,
                  format.width > 0 else { return (width, height) }
            return (format.width, format.height)
        }
    }

    /// A photo output's request for the next frame.
    struct StillRequest {
        let flash: Bool
        let handler: @Sendable (SampleBuffer) -> Void
    }

    private let lock = NSLock()
    private var committed = Configuration()
    private var staged: Configuration?
    private var configurationDepth = 0
    private var _running = false
    private var _videoFilter: FilterChain?
    private var _interrupted = false
    private var stillRequests: [StillRequest] = []
    private var _droppedFrames = 0
    private var _deliveredFrames = 0
    private var pipelineNanoseconds: UInt64 = 0

    private var videoTimer: (any DispatchSourceTimer)?
    private var audioTimer: (any DispatchSourceTimer)?
    private let videoQueue = DispatchQueue(label: "reel.capture.video", qos: .userInteractive)
    private let audioQueue = DispatchQueue(label: "reel.capture.audio", qos: .userInteractive)
    // Owned by the video queue.
    private var clock = FrameClock(rate: 30)
    private var nextFrame: Int64 = 0
    private var pool: PixelBufferPool?
    private var monitor = SubjectAreaMonitor()
    private var lastCamera: CaptureDevice?
    // Owned by the audio queue.
    private var audioStart: UInt64 = 0
    private var nextSample: Int64 = 0
    /// Whether a live microphone's first sound has been placed on the session clock.
    private var liveAudioPlaced = false

    public init() {}

    // MARK: - Configuration

    private func read<T>(_ body: (Configuration) -> T) -> T { lock.withLock { body(staged ?? committed) } }

    private func change(_ body: (inout Configuration) -> Void) {
        lock.withLock {
            if staged != nil { body(&staged!) } else { body(&committed) }
        }
    }

    /// `sessionPreset`. Setting one the camera cannot do is ignored; check ``canSetSessionPreset(_:)``.
    public var sessionPreset: Preset {
        get { read(\.preset) }
        set { if canSetSessionPreset(newValue) { change { $0.preset = newValue } } }
    }

    /// Whether the camera has a format at least as large as the preset. `canSetSessionPreset(_:)`.
    public func canSetSessionPreset(_ preset: Preset) -> Bool {
        let (width, height) = preset.size
        guard let camera = read(\.camera) else { return true }
        return camera.deviceType == .file || camera.formats.contains { $0.width >= width && $0.height >= height }
    }

    public var inputs: [CaptureDeviceInput] { read(\.inputs) }
    public var outputs: [CaptureOutput] { read(\.outputs) }
    public var isRunning: Bool { lock.withLock { _running } }
    /// Whether a device has gone away and frames have stopped. `isInterrupted`.
    public var isInterrupted: Bool { lock.withLock { _interrupted } }

    /// Applied once to every frame before any output sees it (the seed's live filter).
    public var videoFilter: FilterChain? {
        get { lock.withLock { _videoFilter } }
        set { lock.withLock { _videoFilter = newValue } }
    }

    /// Frames the session rendered late and skipped.
    public var droppedFrames: Int { lock.withLock { _droppedFrames } }
    /// Frames delivered since `startRunning()`.
    public var deliveredFrames: Int { lock.withLock { _deliveredFrames } }
    /// The mean time from starting a frame to having handed it to every output: the
    /// camera's picture, the filter and the outputs' share (encoding runs on its own queue).
    public var averageFrameTime: Double {
        lock.withLock { _deliveredFrames > 0 ? Double(pipelineNanoseconds) / 1e9 / Double(_deliveredFrames) : 0 }
    }

    /// One input per medium (a file camera gives both). `canAddInput(_:)`.
    public func canAddInput(_ input: CaptureDeviceInput) -> Bool {
        read { configuration in
            !configuration.inputs.contains { existing in
                existing === input || existing.device.mediaType == input.device.mediaType
            }
        }
    }

    /// Adds `input` when ``canAddInput(_:)`` allows it, and does nothing otherwise (where
    /// AVFoundation raises an exception). `addInput(_:)`.
    /// - Returns: whether the input was added.
    @discardableResult
    public func addInput(_ input: CaptureDeviceInput) -> Bool {
        do throws(ReelError) { try add(input) } catch { return false }
        return true
    }

    /// Adds `input`, or says why not.
    /// - Throws: ``ReelError`` `.invalidState` when ``canAddInput(_:)`` is false.
    public func add(_ input: CaptureDeviceInput) throws(ReelError) {
        guard canAddInput(input) else {
            throw ReelError(.invalidState, "the session already has a \(input.device.mediaType) input", subject: input.device.uniqueID)
        }
        change { $0.inputs.append(input) }
    }

    /// `removeInput(_:)`: inside begin/commitConfiguration, the replacement takes over on the next frame.
    public func removeInput(_ input: CaptureDeviceInput) { change { $0.inputs.removeAll { $0 === input } } }

    public func canAddOutput(_ output: CaptureOutput) -> Bool { !outputs.contains { $0 === output } }

    /// Adds `output` when ``canAddOutput(_:)`` allows it, and does nothing otherwise (where
    /// AVFoundation raises an exception). `addOutput(_:)`.
    /// - Returns: whether the output was added.
    @discardableResult
    public func addOutput(_ output: CaptureOutput) -> Bool {
        do throws(ReelError) { try add(output) } catch { return false }
        return true
    }

    /// Adds `output`, or says why not.
    /// - Throws: ``ReelError`` `.invalidState` when the output is already in the session.
    public func add(_ output: CaptureOutput) throws(ReelError) {
        guard canAddOutput(output) else { throw ReelError(.invalidState, "the output is already in the session") }
        output.session = self
        change { $0.outputs.append(output) }
    }

    public func removeOutput(_ output: CaptureOutput) { change { $0.outputs.removeAll { $0 === output } } }

    /// Starts staging changes; they take effect together at ``commitConfiguration()``.
    /// Calls nest. `beginConfiguration()`.
    public func beginConfiguration() {
        lock.withLock {
            if configurationDepth == 0 { staged = committed }
            configurationDepth += 1
        }
    }

    /// Applies the staged changes at the next frame. A new file camera is opened first,
    /// on the caller's thread, so that the switch costs the frames nothing. `commitConfiguration()`.
    public func commitConfiguration() {
        let pending = lock.withLock { () -> Configuration? in
            configurationDepth = max(0, configurationDepth - 1)
            return configurationDepth == 0 ? staged : nil
        }
        guard let pending else { return }
        if let camera = pending.camera, case .file = camera.source {
            // At the size frames are being made at, which a recording keeps through the switch.
            let current = videoQueue.sync { pool.map { (width: $0.width, height: $0.height) } }
            let recording = pending.outputs.contains { ($0 as? MovieFileOutput)?.isRecording == true }
            let size = recording ? current ?? pending.frameSize : pending.frameSize
            FileCamera.shared(for: camera)?.prepare(width: size.width, height: size.height)
        }
        let previous = lock.withLock { (committed.camera, committed.microphone, _running) }
        if previous.2 {
            if let camera = pending.camera, camera !== previous.0 { startLive(camera) }
            if let microphone = pending.microphone, microphone !== previous.1 { startLive(microphone) }
        }
        lock.withLock {
            committed = pending
            staged = nil
        }
    }

    /// The size frames are made at: the preset's, within the camera's formats.
    public var frameSize: (width: Int, height: Int) { read(\.frameSize) }

    /// The frame rate of the camera.
    public var frameRate: Double { read(\.camera)?.activeFrameRate ?? 30 }

    // MARK: - Running

    /// Starts the devices; returns at once. `startRunning()`.
    public func startRunning() {
        let configuration = lock.withLock { () -> Configuration? in
            guard !_running else { return nil }
            _running = true
            _interrupted = false
            _droppedFrames = 0
            _deliveredFrames = 0
            pipelineNanoseconds = 0
            return committed
        }
        guard let configuration else { return }
        if let camera = configuration.camera { startLive(camera) }
        if let microphone = configuration.microphone, microphone !== configuration.camera { startLive(microphone) }
        let now = DispatchTime.now().uptimeNanoseconds
        if let camera = configuration.camera {
            let rate = camera.activeFrameRate
            videoQueue.sync {
                clock = FrameClock(rate: rate, startNanoseconds: now)
                nextFrame = 0
                monitor.reset()
                lastCamera = nil
            }
            let timer = DispatchSource.makeTimerSource(queue: videoQueue)
            timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(1e9 / rate / 2)), leeway: .milliseconds(1))
            timer.setEventHandler { [weak self] in self?.videoTick() }
            timer.resume()
            videoTimer = timer
        }
        if configuration.microphone != nil {
            audioQueue.sync {
                audioStart = now
                nextSample = 0
                liveAudioPlaced = false
            }
            let timer = DispatchSource.makeTimerSource(queue: audioQueue)
            timer.schedule(deadline: .now(), repeating: .milliseconds(10), leeway: .milliseconds(2))
            timer.setEventHandler { [weak self] in self?.audioTick() }
            timer.resume()
            audioTimer = timer
        }
        post(Self.didStartRunningNotification)
    }

    /// Starts a live device's reader (a microphone, a screen or a V4L2 camera); nothing for the others.
    private func startLive(_ device: CaptureDevice) {
        guard let opening = device.source.opening(frameRate: device.activeFrameRate) else { return }
        LiveDevice.shared(for: device)?.start(opening)
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
        videoTimer = nil
        audioTimer = nil
        let devices = lock.withLock { [committed.camera, committed.microphone] }
        for device in devices.compactMap({ $0 }) { LiveDevice.shared(for: device)?.stop() }
        for output in outputs { output.sessionDidStop() }
        post(Self.didStopRunningNotification)
    }

    /// Hands the next frame to `handler` as well as to the outputs, lit by the flash if
    /// `flash` (the photo output's way in).
    func requestStill(flash: Bool, _ handler: @escaping @Sendable (SampleBuffer) -> Void) throws(ReelError) {
        try lock.locked { () throws(ReelError) -> Void in
            guard _running, committed.camera != nil else {
                throw ReelError(.invalidState, "start the session, with a camera, before taking a photo")
            }
            stillRequests.append(StillRequest(flash: flash, handler: handler))
        }
    }

    // MARK: - Frames

    private func videoTick() {
        let (configuration, filter) = lock.withLock { (committed, _videoFilter) }
        guard let camera = configuration.camera else { return }
        let rate = camera.activeFrameRate
        let now = DispatchTime.now().uptimeNanoseconds
        if rate != clock.rate {
            clock = clock.rebased(at: nextFrame, rate: rate)
            videoTimer?.schedule(deadline: .now(), repeating: .nanoseconds(Int(1e9 / rate / 2)), leeway: .milliseconds(1))
        }
        let due = clock.frameIndex(atNanoseconds: now)
        // Behind by more than a few frames: skip ahead (a camera drops what it cannot deliver).
        if due - nextFrame > 8 {
            lock.withLock { _droppedFrames += Int(due - nextFrame - 1) }
            nextFrame = due - 1
        }
        while nextFrame <= due {
            deliverFrame(nextFrame, camera: camera, configuration: configuration, filter: filter)
            nextFrame += 1
        }
    }

    private func deliverFrame(_ index: Int64, camera: CaptureDevice, configuration: Configuration, filter: FilterChain?) {
        var (width, height) = configuration.frameSize
        // A recording keeps its size through a camera switch: the new camera's picture is
        // made at the size the file has.
        if let pool, pool.width != width || pool.height != height,
           configuration.outputs.contains(where: { ($0 as? MovieFileOutput)?.isRecording == true }) {
            (width, height) = (pool.width, pool.height)
        }
        if pool?.width != width || pool?.height != height {
            pool = try? PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 24)
        }
        guard let pool else { return }
        let began = DispatchTime.now().uptimeNanoseconds
        if lastCamera !== camera {
            lastCamera = camera
            monitor.reset()
        }
        let stills = lock.withLock { () -> [StillRequest] in
            defer { stillRequests = [] }
            return stillRequests
        }
        guard let source = camera.frameSource else {
            return camera.hasMediaType(.video) ? interrupt(camera, reason: .videoDeviceNotAvailable) : ()
        }
        let picture = pool.makePixelBuffer()
        switch source.draw(frame: index, at: clock.seconds(of: index), rate: clock.rate, flash: stills.contains(where: \.flash),
                           of: camera, into: picture) {
        case .drawn: break
        case .notYet:
            // A photo asked for waits for the first picture.
            return lock.withLock { stillRequests = stills + stillRequests }
        case .lost(let error): return interrupt(camera, reason: .videoDeviceNotAvailable, error: error)
        }
        var shown = picture
        if let filter {
            do throws(ReelError) { shown = try filter.apply(picture) } catch {
                post(Self.runtimeErrorNotification, userInfo: [Self.errorKey: error])
            }
        }
        if camera.isSubjectAreaChangeMonitoringEnabled, monitor.observe(shown) {
            post(Self.subjectAreaDidChangeNotification, object: camera)
        }
        let sample = SampleBuffer(pixelBuffer: shown, presentationTime: clock.time(of: index), duration: clock.frameDuration)
        for output in configuration.outputs { output.deliver(sample) }
        for still in stills { still.handler(sample) }
        let spent = DispatchTime.now().uptimeNanoseconds &- began
        lock.withLock {
            _deliveredFrames += 1
            pipelineNanoseconds += spent
        }
    }

    /// A device went away: frames stop, outputs finish what they were doing, and the app hears of it.
    private func interrupt(_ device: CaptureDevice, reason: InterruptionReason, error: ReelError? = nil) {
        let first = lock.withLock { () -> Bool in
            defer { _interrupted = true }
            return !_interrupted
        }
        guard first else { return }
        let timers = [videoTimer, audioTimer].compactMap { $0 }
        for timer in timers { timer.suspend() }
        let failure = error ?? ReelError(.io, "the device went away", subject: device.uniqueID)
        for output in outputs { output.sessionWasInterrupted(failure) }
        post(Self.wasInterruptedNotification, userInfo: [Self.interruptionReasonKey: reason.rawValue, Self.errorKey: failure])
        // A suspended source must be resumed before it is cancelled and released.
        for timer in timers {
            timer.resume()
            timer.cancel()
        }
    }

    private func audioTick() {
        let microphone = lock.withLock { committed.microphone }
        guard let microphone else { return }
        if let live = LiveDevice.shared(for: microphone) { return liveAudioTick(microphone, live) }
        let rate = Int64(VirtualMicrophone.sampleRate)
        let due = Int64(Double(DispatchTime.now().uptimeNanoseconds &- audioStart) / 1e9 * Double(rate))
        while nextSample + 1024 <= due {
            let samples: [Float]
            if case .file = microphone.source, let source = FileCamera.shared(for: microphone) {
                samples = source.samples(start: nextSample, count: 1024, sampleRate: Int(rate))
            } else {
                samples = VirtualMicrophone.samples(start: nextSample, count: 1024)
            }
            if let buffer = try? AudioBuffer.float(channels: [samples], sampleRate: Int(rate)) {
                let sample = SampleBuffer(audioBuffer: buffer, presentationTime: MediaTime(value: nextSample, timescale: Int32(rate)))
                for output in outputs where lock.withLock({ committed.outputs.contains { $0 === output } }) {
                    output.deliver(sample)
                }
            }
            nextSample += 1024
        }
    }

    /// Hands on a live microphone's sound in 1024-sample buffers. The first sound is placed
    /// on the session clock where it was heard (now, less what has piled up); the rest
    /// follows on without gaps, as the device's own clock runs.
    private func liveAudioTick(_ microphone: CaptureDevice, _ live: LiveDevice) {
        if let failure = live.failure { return interrupt(microphone, reason: .audioDeviceNotAvailable, error: failure) }
        let rate = Int64(LiveInput.sampleRate)
        if !liveAudioPlaced {
            let waiting = Int64(live.bufferedSampleCount)
            guard waiting > 0 else { return }
            let heard = Int64(Double(DispatchTime.now().uptimeNanoseconds &- audioStart) / 1e9 * Double(rate))
            nextSample = max(0, heard - waiting)
            liveAudioPlaced = true
        }
        while let samples = live.takeSamples(1024) {
            if let buffer = try? AudioBuffer.float(channels: [samples], sampleRate: Int(rate)) {
                let sample = SampleBuffer(audioBuffer: buffer, presentationTime: MediaTime(value: nextSample, timescale: Int32(rate)))
                for output in outputs where lock.withLock({ committed.outputs.contains { $0 === output } }) {
                    output.deliver(sample)
                }
            }
            nextSample += 1024
        }
    }
}

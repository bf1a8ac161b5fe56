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
    struct Configuration: Sendable {
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
    struct StillRequest: Sendable {
        let flash: Bool
        let handler: @Sendable (SampleBuffer) -> Void
    }

    /// Configuration, running state (with the run's timers), counters and photo requests:
    /// one state, one lock.
    private let state = PosixMutex(CaptureSessionStateMachine())
    private let videoQueue = DispatchQueue(label: "reel.capture.video", qos: .userInteractive)
    private let audioQueue = DispatchQueue(label: "reel.capture.audio", qos: .userInteractive)
    /// Notifications are posted from here (or by a `stopRunning()` caller when none is under
    /// way), never from the frame queues: an observer may reconfigure or stop the session,
    /// which waits on those queues.
    private let notifications = DispatchQueue(label: "reel.capture.notifications")
    /// Marks the session's queues, so that a call made on one of them does not wait on it.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// The time frames and sound are due by (the uptime clock, or a test's manual clock).
    private let captureClock: any CaptureClock
    // Owned by the video queue (asserted).
    private var videoGeneration = 0
    private var clock = FrameClock(rate: 30)
    private var nextFrame: Int64 = 0
    private var pool: PixelBufferPool?
    private var monitor = SubjectAreaMonitor()
    private var lastCamera: CaptureDevice?
    // Owned by the audio queue (asserted).
    private var audioGeneration = 0
    private var audioStart: UInt64 = 0
    private var nextSample: Int64 = 0
    /// Whether a live microphone's first sound has been placed on the session clock.
    private var liveAudioPlaced = false

    public convenience init() {
        self.init(clock: SystemCaptureClock())
    }

    /// A session whose frames and sound fall due by `clock`.
    /// - Parameter clock: The uptime clock, or a ``ManualCaptureClock`` that a test moves.
    package init(clock: any CaptureClock) {
        captureClock = clock
        videoQueue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        audioQueue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        notifications.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Whether the caller is on this session's video, audio or notification queue.
    private var isOnOwnQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    // MARK: - Configuration

    private func read<T>(_ body: (Configuration) -> T) -> T { state.withLock { body($0.current) } }

    private func change(_ body: @Sendable (inout Configuration) -> Void) { state.withLock { $0.change(body) } }

    /// `sessionPreset`. Setting one the camera cannot do is ignored; check ``canSetSessionPreset(_:)``.
    public var sessionPreset: Preset {
        get { read(\.preset) }
        set { if canSetSessionPreset(newValue) { change { $0.preset = newValue } } }
    }

    /// Whether the camera has a format at least as large as the preset. `canSetSessionPreset(_:)`.
    /// - Parameter preset: The size wanted.
    /// - Returns: False when the camera cannot deliver that size, so that setting it would
    ///   leave ``sessionPreset`` unchanged; true without a camera.
    public func canSetSessionPreset(_ preset: Preset) -> Bool {
        let (width, height) = preset.size
        guard let camera = read(\.camera) else { return true }
        return camera.deviceType == .file || camera.formats.contains { $0.width >= width && $0.height >= height }
    }

    public var inputs: [CaptureDeviceInput] { read(\.inputs) }
    public var outputs: [CaptureOutput] { read(\.outputs) }
    public var isRunning: Bool { state.withLock { $0.isRunning } }
    /// Whether a device has gone away and frames have stopped. `isInterrupted`.
    public var isInterrupted: Bool { state.withLock { $0.isInterrupted } }

    /// Applied once to every frame before any output sees it (the seed's live filter).
    public var videoFilter: FilterChain? {
        get { state.withLock { $0.videoFilter } }
        set { state.withLock { $0.videoFilter = newValue } }
    }

    /// Frames the session rendered late and skipped.
    public var droppedFrames: Int { state.withLock { $0.droppedFrames } }
    /// Frames delivered since `startRunning()`.
    public var deliveredFrames: Int { state.withLock { $0.deliveredFrames } }
    /// The mean time from starting a frame to having handed it to every output: the
    /// camera's picture, the filter and the outputs' share (encoding runs on its own queue).
    public var averageFrameTime: Double {
        state.withLock { $0.deliveredFrames > 0 ? Double($0.pipelineNanoseconds) / 1e9 / Double($0.deliveredFrames) : 0 }
    }

    /// One input per medium (a file camera gives both). `canAddInput(_:)`.
    /// - Parameter input: The input to add.
    /// - Returns: False when the session already has an input for one of its media.
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
    /// - Parameter input: The input to add.
    @discardableResult
    public func addInput(_ input: CaptureDeviceInput) -> Bool {
        do throws(ReelError) { try add(input) } catch { return false }
        return true
    }

    /// Adds `input`, or says why not.
    /// - Parameter input: The input to add.
    /// - Throws: ``ReelError`` `.invalidState` when ``canAddInput(_:)`` is false.
    public func add(_ input: CaptureDeviceInput) throws(ReelError) {
        guard canAddInput(input) else {
            throw ReelError(.invalidState, "the session already has a \(input.device.mediaType) input", subject: input.device.uniqueID)
        }
        change { $0.inputs.append(input) }
    }

    /// `removeInput(_:)`: inside begin/commitConfiguration, the replacement takes over on the next frame.
    /// - Parameter input: The input to take out; one that is not in the session is ignored.
    public func removeInput(_ input: CaptureDeviceInput) { change { $0.inputs.removeAll { $0 === input } } }

    /// Whether `output` may be added: any output not already in the session. `canAddOutput(_:)`.
    /// - Parameter output: The output to add.
    /// - Returns: False when it is already in the session.
    public func canAddOutput(_ output: CaptureOutput) -> Bool { !outputs.contains { $0 === output } }

    /// Adds `output` when ``canAddOutput(_:)`` allows it, and does nothing otherwise (where
    /// AVFoundation raises an exception). `addOutput(_:)`.
    /// - Returns: whether the output was added.
    /// - Parameter output: The output to add.
    @discardableResult
    public func addOutput(_ output: CaptureOutput) -> Bool {
        do throws(ReelError) { try add(output) } catch { return false }
        return true
    }

    /// Adds `output`, or says why not.
    /// - Parameter output: The output to add.
    /// - Throws: ``ReelError`` `.invalidState` when the output is already in the session.
    public func add(_ output: CaptureOutput) throws(ReelError) {
        guard canAddOutput(output) else { throw ReelError(.invalidState, "the output is already in the session") }
        output.session = self
        change { $0.outputs.append(output) }
    }

    /// Takes `output` out of the session; inside begin/commitConfiguration, at the commit.
    /// `removeOutput(_:)`.
    /// - Parameter output: The output to take out; one that is not in the session is ignored.
    public func removeOutput(_ output: CaptureOutput) { change { $0.outputs.removeAll { $0 === output } } }

    /// Starts staging changes; they take effect together at ``commitConfiguration()``.
    /// Calls nest. `beginConfiguration()`.
    public func beginConfiguration() {
        state.withLock { $0.beginConfiguration() }
    }

    /// Applies the staged changes at the next frame. A new file camera is opened first,
    /// on the caller's thread, so that the switch costs the frames nothing. It never waits
    /// on the frame queues, so it may be called from a notification's observer.
    /// `commitConfiguration()`.
    public func commitConfiguration() {
        guard let pending = state.withLock({ $0.commitConfiguration() }) else { return }
        if let camera = pending.camera, case .file = camera.source {
            // At the size frames are being made at, which a recording keeps through the switch.
            let current = state.withLock { $0.frameSizeInUse }
            let recording = pending.outputs.contains { ($0 as? MovieFileOutput)?.isRecording == true }
            let size = recording ? current ?? pending.frameSize : pending.frameSize
            FileCamera.shared(for: camera)?.prepare(width: size.width, height: size.height)
        }
        let previous = state.withLock { ($0.committed.camera, $0.committed.microphone, $0.isRunning) }
        if previous.2 {
            if let camera = pending.camera, camera !== previous.0 { startLive(camera) }
            if let microphone = pending.microphone, microphone !== previous.1 { startLive(microphone) }
        }
        state.withLock { $0.applyCommit(pending) }
    }

    /// The size frames are made at: the preset's, within the camera's formats.
    public var frameSize: (width: Int, height: Int) { read(\.frameSize) }

    /// The frame rate of the camera.
    public var frameRate: Double { read(\.camera)?.activeFrameRate ?? 30 }

    // MARK: - Running

    /// Starts the devices; returns at once. `startRunning()`.
    public func startRunning() {
        guard case (let configuration, let run)? = state.withLock({ $0.start(atNanoseconds: captureClock.uptimeNanoseconds) })
        else { return }
        if let camera = configuration.camera { startLive(camera) }
        if let microphone = configuration.microphone, microphone !== configuration.camera { startLive(microphone) }
        var timers = run
        let stepped = captureClock.attach(self)
        if let camera = configuration.camera, !stepped {
            // The video queue starts its clock at the run's start when it sees the new generation.
            let timer = DispatchSource.makeTimerSource(queue: videoQueue)
            timer.schedule(deadline: .now(), repeating: Self.tickInterval(rate: camera.activeFrameRate), leeway: .milliseconds(1))
            timer.setEventHandler { [weak self] in self?.videoTick() }
            timers.video = timer
        }
        if configuration.microphone != nil, !stepped {
            let timer = DispatchSource.makeTimerSource(queue: audioQueue)
            timer.schedule(deadline: .now(), repeating: .milliseconds(10), leeway: .milliseconds(2))
            timer.setEventHandler { [weak self] in self?.audioTick() }
            timers.audio = timer
        }
        let started = timers
        // Queued with the change to running: a stop on another thread can only come after it.
        let announcement = CaptureSessionStateMachine.PendingNotification(name: Self.didStartRunningNotification, object: self)
        let (accepted, schedule) = state.withLock { machine in
            let accepted = machine.started(started, announcing: announcement)
            return (accepted, accepted && machine.requestDelivery())
        }
        let sources = [started.video, started.audio].compactMap { $0 }
        guard accepted else {
            // Stopped meanwhile: a source is resumed before it is cancelled and released.
            for timer in sources {
                timer.resume()
                timer.cancel()
            }
            return
        }
        for timer in sources { timer.resume() }
        if schedule { notifications.async { [self] in deliverNotifications() } }
    }

    /// Half a frame: the video timer looks twice a frame for the next one due.
    private static func tickInterval(rate: Double) -> DispatchTimeInterval {
        .nanoseconds(Int(min(1e9, max(1e5, 1e9 / max(rate, 1) / 2))))
    }

    /// Starts a live device's reader (a microphone, a screen or a V4L2 camera); nothing for the others.
    private func startLive(_ device: CaptureDevice) {
        guard let opening = device.source.opening(frameRate: device.activeFrameRate) else { return }
        LiveDevice.shared(for: device)?.start(opening)
    }

    /// Stops the devices and waits for the last frame to be delivered (unless called from
    /// a frame being delivered). Synchronous, as Apple's (it "blocks until the session stops
    /// running completely"): when it returns, every notification the session posted,
    /// `didStopRunningNotification` included, has been handed to its observers, on this thread
    /// if another was posting them. It never waits on an observer, which may itself be waiting
    /// for this call (a stop through a synchronous hop to another thread): it takes the posting
    /// over, so that observer may still be running beside the ones it calls (and a notification
    /// that thread had just taken may reach its observers after the stop's). Called from inside
    /// an observer on the same thread, or from the session's own queues, it returns first and
    /// the notification follows once that observer returns. `stopRunning()`.
    public func stopRunning() {
        let announcement = CaptureSessionStateMachine.PendingNotification(name: Self.didStopRunningNotification, object: self)
        // Queued with the change to stopped, held until the stop is done: a start on another
        // thread meanwhile announces itself after it.
        guard let (timers, hold) = state.withLock({ $0.stop(announcing: announcement) }) else { return }
        for timer in timers { timer.cancel() }
        let waits = !isOnOwnQueue
        if waits {
            videoQueue.sync {}
            audioQueue.sync {}
        }
        let devices = state.withLock { [$0.committed.camera, $0.committed.microphone] }
        for device in devices.compactMap({ $0 }) { LiveDevice.shared(for: device)?.stop() }
        for output in outputs { output.sessionDidStop() }
        let schedule = state.withLock { $0.release(hold) }
        // What the run posted reaches its observers before this returns: posted here, in
        // order, taking over from a thread that is posting (waiting for it could wait for
        // ourselves: its observer may be waiting for this stop).
        if waits {
            deliverNotifications(takingOver: true)
        } else if schedule {
            notifications.async { [self] in deliverNotifications() }
        }
    }

    /// Hands the next frame to `handler` as well as to the outputs, lit by the flash if
    /// `flash` (the photo output's way in).
    func requestStill(flash: Bool, _ handler: @escaping @Sendable (SampleBuffer) -> Void) throws(ReelError) {
        try state.withLock { (state) throws(ReelError) -> Void in
            guard state.isRunning, state.committed.camera != nil else {
                throw ReelError(.invalidState, "start the session, with a camera, before taking a photo")
            }
            state.stillRequests.append(StillRequest(flash: flash, handler: handler))
        }
    }

    // MARK: - Frames

    private func videoTick() {
        dispatchPrecondition(condition: .onQueue(videoQueue))
        let (configuration, filter, run) = state.withLock { ($0.committed, $0.videoFilter, $0.run) }
        guard let run, let camera = configuration.camera else { return }
        let rate = camera.activeFrameRate
        if run.generation != videoGeneration {
            // A new run: its clock starts at zero.
            videoGeneration = run.generation
            clock = FrameClock(rate: rate, startNanoseconds: run.startNanoseconds)
            nextFrame = 0
            monitor.reset()
            lastCamera = nil
        }
        let now = captureClock.uptimeNanoseconds
        if rate != clock.rate {
            clock = clock.rebased(at: nextFrame, rate: rate)
            run.video?.schedule(deadline: .now(), repeating: Self.tickInterval(rate: rate), leeway: .milliseconds(1))
        }
        let due = clock.frameIndex(atNanoseconds: now)
        // Behind by more than a few frames: skip ahead (a camera drops what it cannot deliver).
        if due - nextFrame > 8 {
            let skipped = Int(due - nextFrame - 1)
            state.withLock { $0.countDropped(skipped) }
            nextFrame = due - 1
        }
        while nextFrame <= due {
            deliverFrame(nextFrame, camera: camera, configuration: configuration, filter: filter)
            nextFrame += 1
        }
    }

    private func deliverFrame(_ index: Int64, camera: CaptureDevice, configuration: Configuration, filter: FilterChain?) {
        dispatchPrecondition(condition: .onQueue(videoQueue))
        var (width, height) = configuration.frameSize
        // A recording keeps its size through a camera switch: the new camera's picture is
        // made at the size the file has.
        if let pool, pool.width != width || pool.height != height,
           configuration.outputs.contains(where: { ($0 as? MovieFileOutput)?.isRecording == true }) {
            (width, height) = (pool.width, pool.height)
        }
        if pool?.width != width || pool?.height != height {
            pool = try? PixelBufferPool(width: width, height: height, pixelFormat: .yuv420p, maximumFreeBuffers: 24)
            let size = pool.map { (width: $0.width, height: $0.height) }
            state.withLock { $0.frameSizeInUse = size }
        }
        guard let pool else { return }
        let began = DispatchTime.now().uptimeNanoseconds
        if lastCamera !== camera {
            lastCamera = camera
            monitor.reset()
        }
        let stills = state.withLock { $0.takeStillRequests() }
        guard let source = camera.frameSource else {
            return camera.hasMediaType(.video) ? interrupt(camera, reason: .videoDeviceNotAvailable) : ()
        }
        let picture = pool.makePixelBuffer()
        switch source.draw(frame: index, at: clock.seconds(of: index), rate: clock.rate, flash: stills.contains(where: \.flash),
                           of: camera, into: picture) {
        case .drawn: break
        case .notYet:
            // A photo asked for waits for the first picture.
            return state.withLock { $0.stillRequests = stills + $0.stillRequests }
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
        for output in configuration.outputs { output.deliverThroughConnection(sample) }
        for still in stills { still.handler(sample) }
        let spent = DispatchTime.now().uptimeNanoseconds &- began
        state.withLock { $0.countDelivered(nanoseconds: spent) }
    }

    /// A device went away: frames stop, outputs finish what they were doing, and the app hears of it.
    private func interrupt(_ device: CaptureDevice, reason: InterruptionReason, error: ReelError? = nil) {
        guard let timers = state.withLock({ $0.interrupt() }) else { return }
        for timer in timers { timer.cancel() }
        let failure = error ?? ReelError(.io, "the device went away", subject: device.uniqueID)
        for output in outputs { output.sessionWasInterrupted(failure) }
        post(Self.wasInterruptedNotification, userInfo: [Self.interruptionReasonKey: reason.rawValue, Self.errorKey: failure])
    }

    private func audioTick() {
        dispatchPrecondition(condition: .onQueue(audioQueue))
        let (microphone, outputs, run) = state.withLock { ($0.committed.microphone, $0.committed.outputs, $0.run) }
        guard let run, let microphone else { return }
        if run.generation != audioGeneration {
            audioGeneration = run.generation
            audioStart = run.startNanoseconds
            nextSample = 0
            liveAudioPlaced = false
        }
        if let live = LiveDevice.shared(for: microphone) { return liveAudioTick(microphone, live, outputs: outputs) }
        let rate = Int64(VirtualMicrophone.sampleRate)
        let due = Int64(Double(captureClock.uptimeNanoseconds &- audioStart) / 1e9 * Double(rate))
        while nextSample + 1024 <= due {
            let samples: [Float]
            if case .file = microphone.source, let source = FileCamera.shared(for: microphone) {
                do throws(ReelError) {
                    samples = try source.samples(start: nextSample, count: 1024, sampleRate: Int(rate))
                } catch {
                    // A file whose sound cannot be read is a microphone gone, not silence.
                    return interrupt(microphone, reason: .audioDeviceNotAvailable, error: error)
                }
            } else {
                samples = VirtualMicrophone.samples(start: nextSample, count: 1024)
            }
            deliverSound(samples, sampleRate: rate, to: outputs)
        }
    }

    /// Hands on a live microphone's sound in 1024-sample buffers. The first sound is placed
    /// on the session clock where it was heard (now, less what has piled up); the rest
    /// follows on without gaps, as the device's own clock runs.
    private func liveAudioTick(_ microphone: CaptureDevice, _ live: LiveDevice, outputs: [CaptureOutput]) {
        if let failure = live.failure { return interrupt(microphone, reason: .audioDeviceNotAvailable, error: failure) }
        let rate = Int64(LiveInput.sampleRate)
        if !liveAudioPlaced {
            let waiting = Int64(live.bufferedSampleCount)
            guard waiting > 0 else { return }
            let heard = Int64(Double(captureClock.uptimeNanoseconds &- audioStart) / 1e9 * Double(rate))
            nextSample = max(0, heard - waiting)
            liveAudioPlaced = true
        }
        while let samples = live.takeSamples(1024) { deliverSound(samples, sampleRate: rate, to: outputs) }
    }

    /// One run of sound at the session clock's next sample, to every output.
    private func deliverSound(_ samples: [Float], sampleRate rate: Int64, to outputs: [CaptureOutput]) {
        dispatchPrecondition(condition: .onQueue(audioQueue))
        if let buffer = try? AudioBuffer.float(channels: [samples], sampleRate: Int(rate)) {
            let sample = SampleBuffer(audioBuffer: buffer, presentationTime: MediaTime(value: nextSample, timescale: Int32(rate)))
            for output in outputs { output.deliverThroughConnection(sample) }
        }
        nextSample += Int64(samples.count)
    }

    /// One turn of the frame and sound timers, for a clock that steps the session itself
    /// (``ManualCaptureClock``): what has fallen due is delivered before it returns.
    func step() {
        precondition(!isOnOwnQueue, "a manual capture clock is moved from outside the session's queues")
        guard state.withLock({ $0.run != nil }) else { return }
        videoQueue.sync { videoTick() }
        audioQueue.sync { audioTick() }
    }

    /// Posts on the session's notification queue, in order, never on a frame queue.
    func post(_ name: Notification.Name, object: (any AnyObject & Sendable)? = nil, userInfo: [String: any Sendable]? = nil) {
        let notification = CaptureSessionStateMachine.PendingNotification(name: name, object: object ?? self, userInfo: userInfo)
        guard state.withLock({ $0.enqueue(notification) }) else { return }
        notifications.async { [self] in deliverNotifications() }
    }

    /// Posts the waiting notifications on this thread, in order, if no thread is posting them
    /// (or, `takingOver`, if another is: it stops at its next one).
    private func deliverNotifications(takingOver: Bool = false) {
        let thread = pthread_self()
        guard let turn = state.withLock({ $0.beginDelivery(by: thread, takingOver: takingOver) }) else { return }
        while let next = state.withLock({ $0.nextNotification(turn: turn) }) {
            NotificationCenter.default.post(name: next.name, object: next.object, userInfo: next.userInfo)
        }
    }
}

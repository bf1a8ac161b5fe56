import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import ReelTestSupport
import Testing

/// Microphones and screens through libavdevice, against real servers the tests start:
/// a PulseAudio daemon with a null sink, and Xvfb.
@Suite(.serialized) struct LiveDeviceTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-live")
    }

    /// Collects what an audio data output hands on.
    final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var buffers: [SampleBuffer] = []
        var reasons: [String] = []
        func add(_ sample: SampleBuffer) { lock.withLock { buffers.append(sample) } }
    }

    @Test(.disabled(if: DeviceServer.pulseMissing != nil, "\(DeviceServer.pulseMissing ?? "")"))
    func pulseMonitorRecordsATone() throws {
        let server = try DeviceServer.pulseAudio(sink: "reeltest")
        defer { server.stop() }
        setenv("PULSE_SERVER", server.pulseServer, 1)
        defer { unsetenv("PULSE_SERVER") }

        let ids = CaptureDevice.devices.map(\.uniqueID)
        #expect(ids.contains("pulse:reeltest.monitor"), "\(ids)")
        #expect(ids.contains("pulse:default"), "\(ids)")

        // One second of 1000 Hz at half scale, made by ffmpeg and played by paplay.
        let tone = directory.appendingPathComponent("tone.wav")
        try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=48000:d=1", "-ac", "1",
                                  "-c:a", "pcm_s16le", tone.path])

        let microphone = try CaptureDevice.device(withUniqueID: "pulse:reeltest.monitor")
        #expect(microphone.deviceType == .microphone)
        let session = CaptureSession()
        try session.add(try CaptureDeviceInput(device: microphone))
        let output = AudioDataOutput()
        let collected = Collected()
        output.setSampleBufferHandler(queue: DispatchQueue(label: "pulse-test")) { collected.add($0) }
        try session.add(output)
        // And into a file, beside the virtual camera (a movie starts at its first picture).
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        camera.activeFormat = camera.formats.first { $0.width == 320 }
        try session.add(try CaptureDeviceInput(device: camera))
        session.sessionPreset = .low
        let movie = MovieFileOutput()
        try session.add(movie)
        let url = directory.appendingPathComponent("pulse.mp4")
        let finished = DispatchSemaphore(value: 0)
        session.startRunning()
        usleep(300_000)
        try movie.startRecording(to: url) { _, error in
            #expect(error == nil, "\(String(describing: error))")
            finished.signal()
        }
        usleep(200_000)
        let played = try ProcessRunner.run("/usr/bin/paplay", ["--device=reeltest", tone.path], timeout: 15,
                                           environment: ["PULSE_SERVER": server.pulseServer, "HOME": server.directory.path])
        usleep(500_000)
        movie.stopRecording()
        #expect(finished.wait(timeout: .now() + 20) == .success, "the recording did not finish")
        session.stopRunning()
        #expect(played.status == 0, "paplay: \(played.standardError)")

        let buffers = collected.lock.withLock { collected.buffers }.sorted { $0.presentationTime < $1.presentationTime }
        try #require(buffers.count > 10, "\(buffers.count) buffers")
        // Buffers follow on without gaps, on the session clock.
        for (a, b) in zip(buffers, buffers.dropFirst()) {
            #expect(a.timeRange.end == b.presentationTime, "\(a.timeRange.end) then \(b.presentationTime)")
        }
        let samples = buffers.flatMap { $0.audioBuffer?.floatSamples(channel: 0) ?? [] }
        let loud = samples.indices.filter { abs(samples[$0]) > 0.1 }
        let first = try #require(loud.first, "no tone in \(samples.count) samples (peak \(samples.map(abs).max() ?? 0))")
        let last = try #require(loud.last)
        let gaps = zip(loud, loud.dropFirst()).filter { $1 - $0 > 48 }.map { "\($0)-\($1)" }
        let length = Double(last - first + 1) / 48000
        let frequency = TestPatterns.frequency(of: Array(samples[first...last]), sampleRate: 48000)
        print("pulse tone: \(frequency) Hz, \(length) s long, starting at \(buffers[0].presentationTime.seconds + Double(first) / 48000) s")
        #expect(abs(frequency - 1000) <= 10, "frequency \(frequency) Hz")
        #expect(gaps.isEmpty, "silent gaps inside the tone at samples \(gaps)")
        #expect(abs(length - 1) <= 0.05, "length \(length) s")

        // The file holds the same tone, as ffprobe and a decode see it.
        let probe = try FFprobe.probe(url)
        #expect(probe.streams.contains { $0.codecType == "audio" && $0.sampleRate == 48000 && $0.channels == 1 })
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let audio = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .audio).first),
                                           audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar))
        try reader.add(audio)
        try reader.startReading()
        var recorded: [Float] = []
        while let sample = try audio.copyNextSampleBuffer() { recorded += sample.audioBuffer?.floatSamples(channel: 0) ?? [] }
        let loudInFile = recorded.indices.filter { abs(recorded[$0]) > 0.1 }
        let start = try #require(loudInFile.first, "no tone in the file's \(recorded.count) samples")
        let end = try #require(loudInFile.last)
        let fileLength = Double(end - start + 1) / 48000
        let fileFrequency = TestPatterns.frequency(of: Array(recorded[start...end]), sampleRate: 48000)
        print("pulse tone in the file: \(fileFrequency) Hz, \(fileLength) s long")
        #expect(abs(fileFrequency - 1000) <= 10, "file frequency \(fileFrequency) Hz")
        #expect(abs(fileLength - 1) <= 0.05, "file length \(fileLength) s")
    }

    @Test(.disabled(if: DeviceServer.pulseMissing != nil, "\(DeviceServer.pulseMissing ?? "")"))
    func aPulseServerThatGoesAwayInterruptsTheRecording() throws {
        let server = try DeviceServer.pulseAudio(sink: "reelgone")
        defer { server.stop() }
        setenv("PULSE_SERVER", server.pulseServer, 1)
        defer { unsetenv("PULSE_SERVER") }
        let session = CaptureSession()
        let camera = try CaptureDevice.device(withUniqueID: "virtual:camera")
        camera.activeFormat = camera.formats.first { $0.width == 320 }
        try session.add(try CaptureDeviceInput(device: camera))
        try session.add(try CaptureDeviceInput(device: try CaptureDevice.device(withUniqueID: "pulse:reelgone.monitor")))
        session.sessionPreset = .low
        let movie = MovieFileOutput()
        try session.add(movie)
        let reasons = Collected()
        let observer = NotificationCenter.default.addObserver(forName: CaptureSession.wasInterruptedNotification,
                                                              object: session, queue: nil) { note in
            let reason = note.userInfo?[CaptureSession.interruptionReasonKey] as? String ?? "?"
            let error = (note.userInfo?[CaptureSession.errorKey] as? ReelError)?.description ?? "?"
            print("pulse gone: \(reason): \(error)")
            reasons.lock.withLock { reasons.reasons.append(reason) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let url = directory.appendingPathComponent("gone.mp4")
        let finished = DispatchSemaphore(value: 0)
        session.startRunning()
        usleep(300_000)
        try movie.startRecording(to: url) { _, _ in finished.signal() }
        usleep(1_200_000)
        server.stop()
        #expect(finished.wait(timeout: .now() + 10) == .success, "the recording did not end when the server went away")
        session.stopRunning()
        // The notification comes on the session's notification queue, after the outputs have
        // finished (a loaded machine may deliver it after stopRunning() returns): waited for.
        let deadline = Date().addingTimeInterval(10)
        while reasons.lock.withLock({ reasons.reasons.isEmpty }), Date() < deadline { usleep(10_000) }
        #expect(reasons.lock.withLock { reasons.reasons } == ["audioDeviceNotAvailable"])
        let frames = try FFprobe.countFrames(url)
        print("pulse gone: \(frames) frames kept")
        #expect(frames >= 15, "\(frames) frames")
    }

    @Test func aMissingALSADeviceIsOneLine() {
        #expect {
            try CaptureDevice.device(withUniqueID: "alsa:reel_no_such_card")
        } throws: { error in
            let line = (error as? ReelError)?.description ?? ""
            print("alsa: \(line)")
            return line.hasPrefix("alsa:reel_no_such_card: ") && !line.contains("\n")
        }
        #expect(throws: ReelError.self) { try CaptureDevice.device(withUniqueID: "pulse:") }
    }

    /// A display number no X server here uses.
    static func freeDisplay() -> Int? {
        (90...99).first { !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
            && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)") }
    }

    @Test(.disabled(if: DeviceServer.xvfbMissing != nil, "\(DeviceServer.xvfbMissing ?? "")"))
    func screenRecordingShowsEachColourAtItsTime() async throws {
        let display = try #require(Self.freeDisplay(), "no free X display number in :90-:99")
        let server = try DeviceServer.xvfb(display: display, width: 320, height: 240)
        defer { server.stop() }
        func paint(_ colour: String) throws {
            let result = try ProcessRunner.run("/usr/bin/xsetroot", ["-display", ":\(display)", "-solid", colour], timeout: 10)
            guard result.status == 0 else { throw TestFailure("xsetroot: \(result.standardError)") }
        }
        try paint("red")

        let screen = try CaptureDevice.device(withUniqueID: "x11::\(display)")
        #expect(screen.formats.first.map { ($0.width, $0.height) } ?? (0, 0) == (320, 240))
        try screen.setFrameRate(10)
        let session = CaptureSession()
        try session.add(try CaptureDeviceInput(device: screen))
        let movie = MovieFileOutput()
        try session.add(movie)
        let url = directory.appendingPathComponent("screen.mp4")
        let finished = AsyncStream<ReelError?>.makeStream()
        session.startRunning()
        usleep(500_000)
        let started = Date()
        try movie.startRecording(to: url) { _, error in
            finished.continuation.yield(error)
            finished.continuation.finish()
        }
        usleep(1_500_000)
        // The screen turns blue while xsetroot runs (a process a loaded machine starts late):
        // between these two moments.
        let painting = Date().timeIntervalSince(started)
        try paint("blue")
        let changed = Date().timeIntervalSince(started)
        usleep(1_500_000)
        movie.stopRecording()
        session.stopRunning()
        for await error in finished.stream { #expect(error == nil, "\(String(describing: error))") }

        let probe = try FFprobe.probe(url)
        #expect(probe.streams.first?.width == 320)
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let video = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        try reader.add(video)
        try reader.startReading()
        var colours: [(time: Double, colour: String)] = []
        while let sample = try video.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
            let u = Int(picture.element(plane: 1, x: picture.planes[1].width / 2, y: picture.planes[1].height / 2)?[0] ?? 128)
            let v = Int(picture.element(plane: 2, x: picture.planes[2].width / 2, y: picture.planes[2].height / 2)?[0] ?? 128)
            let colour = v > 200 && u < 128 ? "red" : u > 200 && v < 160 ? "blue" : "other(\(u),\(v))"
            colours.append((sample.presentationTime.seconds, colour))
        }
        try #require(colours.count >= 25, "\(colours.count) frames in 3 s at 10 fps")
        let runs = colours.reduce(into: [(time: Double, colour: String)]()) { runs, frame in
            if runs.last?.colour != frame.colour { runs.append(frame) }
        }
        #expect(runs.map(\.colour) == ["red", "blue"], "\(runs)")
        let switchTime = runs.count == 2 ? runs[1].time - colours[0].time : -1
        print("screen: \(colours.count) frames, blue from \(switchTime) s, painted from \(painting) to \(changed) s")
        #expect(switchTime >= painting - 0.25 && switchTime <= changed + 0.25,
                "blue from \(switchTime) s, painted from \(painting) to \(changed) s")
    }

    /// A daemon a test starts holds none of the test process's descriptors: a pipe whose
    /// write end the test closes reads end-of-file at once, though the daemon still runs.
    /// Xvfb, because PulseAudio closes what it inherits on its own.
    @Test(.disabled(if: DeviceServer.xvfbMissing != nil, "\(DeviceServer.xvfbMissing ?? "")"))
    func aDaemonKeepsNoDescriptorOfTheTest() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let display = try #require(Self.freeDisplay(), "no free X display number in :90-:99")
        let server = try DeviceServer.xvfb(display: display, width: 64, height: 64)
        defer { server.stop() }
        close(ends[1])
        var reader = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        let ready = poll(&reader, 1, 2000)
        var byte: UInt8 = 0
        #expect(ready == 1 && read(ends[0], &byte, 1) == 0,
                "the pipe's write end is still open somewhere (poll \(ready)): the daemon inherited it")
    }
}

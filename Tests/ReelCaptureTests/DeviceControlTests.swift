@testable import ReelCapture
import ReelCore
import Testing

/// The controls act on the virtual camera's picture as they would through a lens.
@Suite struct DeviceControlTests {
    static let width = 640, height = 360

    /// Frame 5 (not a flash) through `controls`.
    func picture(_ controls: DeviceControls, frame: Int64 = 5) throws -> PixelBuffer {
        let picture = try PixelBuffer(width: Self.width, height: Self.height, pixelFormat: .yuv420p)
        VirtualCamera(frame: frame, rate: 30, width: Self.width, height: Self.height, zoom: controls.zoomFactor)
            .render(into: picture, controls: controls)
        return picture
    }

    func row(_ picture: PixelBuffer, y: Int, plane: Int = 0) -> [Int] {
        (0..<picture.planes[plane].width).map { Int(picture.element(plane: plane, x: $0, y: y)?[0] ?? 0) }
    }

    func column(_ picture: PixelBuffer, x: Int) -> [Int] {
        (20..<picture.height - 30).map { Int(picture.element(plane: 0, x: x, y: $0)?[0] ?? 0) }
    }

    func edges(_ values: [Int]) -> Int { zip(values, values.dropFirst()).filter { abs($0 - $1) > 8 }.count }
    func steepest(_ values: [Int]) -> Int { zip(values, values.dropFirst()).map { abs($0 - $1) }.max() ?? 0 }
    func mean(_ values: [Int]) -> Double { Double(values.reduce(0, +)) / Double(max(values.count, 1)) }

    var sharpBars: DeviceControls {
        var controls = DeviceControls()
        controls.focusMode = .locked
        controls.lensPosition = VirtualCamera.barsFocus
        controls.exposureMode = .locked
        return controls
    }

    @Test func zoomCropsIntoTheCentre() throws {
        var zoomed = sharpBars
        zoomed.zoomFactor = 2
        let wide = edges(row(try picture(sharpBars), y: 60)), close = edges(row(try picture(zoomed), y: 60))
        #expect(wide >= 5, "\(wide) bar edges at 1x")
        #expect(close <= 4 && close < wide, "\(close) bar edges at 2x, \(wide) at 1x")
    }

    @Test func lensBlursWhatIsOutOfFocus() throws {
        var near = sharpBars
        near.lensPosition = VirtualCamera.boxFocus
        let barsSharp = steepest(row(try picture(sharpBars), y: 60))
        let barsBlurred = steepest(row(try picture(near), y: 60))
        #expect(barsSharp > 40 && barsBlurred < 8, "bars' steepest step \(barsSharp) in focus, \(barsBlurred) out of it")
        // Down through the box (the bars are the same all the way down, so every step is
        // the box's edge): sharp only when the lens is near.
        let boxSharp = steepest(column(try picture(near), x: 60))
        let boxBlurred = steepest(column(try picture(sharpBars), x: 60))
        #expect(boxSharp > 35 && boxBlurred < boxSharp / 3, "box edge \(boxSharp) in focus, \(boxBlurred) out of it")
    }

    @Test func tapToFocusMovesTheLensToWhatIsThere() {
        let scene = VirtualCamera(frame: 5, rate: 30, width: Self.width, height: Self.height, zoom: 1)
        var controls = DeviceControls()
        controls.focusPointOfInterest = Point(x: 0.09, y: 0.5) // on the box
        for _ in 0..<30 { controls.advance(by: 1.0 / 30, format: nil, scene: scene) }
        #expect(controls.lensPosition == VirtualCamera.boxFocus)
        #expect(!controls.isAdjustingFocus)
        controls.focusPointOfInterest = Point(x: 0.8, y: 0.2) // on the bars
        controls.advance(by: 1.0 / 30, format: nil, scene: scene)
        #expect(controls.isAdjustingFocus)
        for _ in 0..<30 { controls.advance(by: 1.0 / 30, format: nil, scene: scene) }
        #expect(controls.lensPosition == VirtualCamera.barsFocus)
        // Single-shot auto focus locks once it gets there.
        controls.focusMode = .autoFocus
        controls.focusPointOfInterest = Point(x: 0.09, y: 0.5)
        for _ in 0..<30 { controls.advance(by: 1.0 / 30, format: nil, scene: scene) }
        #expect(controls.focusMode == .locked && controls.lensPosition == VirtualCamera.boxFocus)
    }

    @Test func exposureISOTorchAndWhiteBalanceActOnThePicture() throws {
        let base = try picture(sharpBars)
        var brighter = sharpBars
        brighter.exposureMode = .custom
        brighter.exposureSeconds = 0.02
        #expect(mean(row(try picture(brighter), y: 60)) > mean(row(base, y: 60)) + 20)

        var noisy = brighter
        noisy.exposureSeconds = 0.005
        noisy.iso = 1600
        let flat = Array(row(try picture(noisy), y: 60)[2...20]), quiet = Array(row(base, y: 60)[2...20])
        #expect(Set(flat).count > 5 && Set(quiet).count == 1, "noise at ISO 1600: \(flat)")

        var torch = sharpBars
        torch.torchMode = .on
        #expect(mean(row(try picture(torch), y: 60)) > mean(row(base, y: 60)) + 20)

        var tungsten = sharpBars
        tungsten.whiteBalanceMode = .locked
        tungsten.temperatureAndTint = .init(temperature: 3000, tint: 0)
        let blueShift = mean(row(try picture(tungsten), y: 30, plane: 1)) - mean(row(base, y: 30, plane: 1))
        #expect(blueShift > 10, "Cb rose by \(blueShift) with white balance set for 3000 K")
    }

    @Test func autoExposureMetersThePointOfInterest() {
        let scene = VirtualCamera(frame: 5, rate: 30, width: Self.width, height: Self.height, zoom: 1)
        let format = CaptureDevice.virtualCameraFormats[3]
        var dark = DeviceControls(), bright = DeviceControls()
        // At frame 5 the darkest bar (luma 28) sits near the right, the box near the left.
        dark.exposurePointOfInterest = Point(x: 0.92, y: 0.2)
        bright.exposurePointOfInterest = Point(x: 0.09, y: 0.5)
        #expect(scene.luma(at: dark.exposurePointOfInterest) < 60 && scene.luma(at: bright.exposurePointOfInterest) > 200)
        for _ in 0..<60 {
            dark.advance(by: 1.0 / 30, format: format, scene: scene)
            bright.advance(by: 1.0 / 30, format: format, scene: scene)
        }
        #expect(dark.exposureGain > 1.5 && bright.exposureGain < 0.8, "\(dark.exposureGain) \(bright.exposureGain)")
        #expect(dark.exposureSeconds <= format.maxExposureSeconds && dark.iso >= format.minISO)
    }

    @Test func zoomRampsAtItsRate() {
        var controls = DeviceControls()
        controls.zoomTarget = 4
        controls.zoomRate = 2 // two doublings a second
        controls.advance(by: 0.5, format: nil, scene: nil)
        #expect(abs(controls.zoomFactor - 2) < 1e-9 && controls.zoomTarget != nil)
        controls.advance(by: 0.5, format: nil, scene: nil)
        #expect(controls.zoomFactor == 4 && controls.zoomTarget == nil)
        controls.zoomTarget = 1
        controls.advance(by: 10, format: nil, scene: nil)
        #expect(controls.zoomFactor == 1)
    }

    @Test func deviceAPIChecksSupportAndRanges() throws {
        // A device of its own: other suites change the shared virtual camera's format.
        let camera = CaptureDevice.testCamera()
        #expect(camera.hasTorch && camera.isFocusPointOfInterestSupported && camera.isExposureModeSupported(.custom))
        #expect(camera.maxAvailableVideoZoomFactor == 8)
        func fails(_ code: ReelError.Code, _ body: () throws(ReelError) -> Void) {
            do throws(ReelError) {
                try body()
                Issue.record("no error")
            } catch {
                #expect(error.code == code, "\(error)")
                #expect(error.description.hasPrefix("virtual:camera") || error.description.hasPrefix("file:"), "\(error)")
            }
        }
        fails(.invalidArgument) { () throws(ReelError) in try camera.setVideoZoomFactor(9) }
        fails(.invalidArgument) { () throws(ReelError) in try camera.ramp(toVideoZoomFactor: 2, withRate: 0) }
        fails(.invalidArgument) { () throws(ReelError) in try camera.setFocusModeLocked(lensPosition: 1.5) }
        fails(.invalidArgument) { () throws(ReelError) in try camera.setExposureModeCustom(duration: MediaTime(value: 1, timescale: 1), iso: 100) }
        fails(.invalidArgument) { () throws(ReelError) in try camera.setExposureModeCustom(duration: CaptureDevice.currentExposureDuration, iso: 5000) }
        fails(.invalidArgument) { () throws(ReelError) in try camera.setTorchModeOn(level: 0) }
        fails(.invalidArgument) { () throws(ReelError) in try camera.setWhiteBalanceModeLocked(with: .init(temperature: 500, tint: 0)) }
        // The property form clamps instead.
        camera.videoZoomFactor = 20
        #expect(camera.videoZoomFactor == 8)
        camera.videoZoomFactor = 1

        let file = CaptureDevice.fileCamera(path: "/nonexistent.mp4")
        #expect(!file.hasTorch && !file.isFocusModeSupported(.autoFocus) && !file.isExposureModeSupported(.custom))
        #expect(!file.isWhiteBalanceModeSupported(.locked) && file.maxAvailableVideoZoomFactor == 4)
        fails(.unsupported) { () throws(ReelError) in try file.setTorchMode(.on) }
        fails(.unsupported) { () throws(ReelError) in try file.setFocusMode(.autoFocus) }
        fails(.unsupported) { () throws(ReelError) in try file.setExposureModeCustom(duration: .invalid, iso: 100) }
        file.torchMode = .on
        #expect(file.torchMode == .off)
    }

    @Test func slowMotionRecipePicksTheWidestFastFormatAndRestores() throws {
        let camera = CaptureDevice.fileCamera(path: "/x") // a fresh device, so as not to disturb other tests
        #expect(throws: ReelError.self) { try camera.configureForHighFrameRate(preferring: [240, 120]) }
        let virtual = CaptureDevice(uniqueID: "virtual:test", localizedName: "Test", deviceType: .camera, position: .back,
                                    formats: CaptureDevice.virtualCameraFormats, source: .virtualCamera, capabilities: .all)
        #expect(try virtual.configureForHighFrameRate() == 240)
        #expect(virtual.activeFormat?.width == 640 && virtual.activeVideoMinFrameDuration == MediaTime(value: 1, timescale: 240))
        #expect(try virtual.configureForHighFrameRate(preferring: [120]) == 120)
        #expect(virtual.activeFormat?.width == 1280)
        virtual.restoreDefaultFormat()
        #expect(virtual.activeFormat?.width == 1280 && virtual.activeFrameRate == 30)
    }

    @Test func discoveryByTypeAndPosition() {
        #expect(DiscoverySession(deviceTypes: [.camera], position: .back).devices.map(\.uniqueID) == ["virtual:camera"])
        #expect(DiscoverySession(deviceTypes: [.camera], position: .front).devices.map(\.uniqueID) == ["virtual:front-camera"])
        // Real microphones (a PulseAudio server another test started, say) may follow the virtual one.
        let microphones = DiscoverySession(deviceTypes: [.camera, .microphone], mediaType: .audio).devices
        #expect(microphones.first?.uniqueID == "virtual:microphone")
        #expect(microphones.allSatisfy { $0.deviceType == .microphone }, "\(microphones.map(\.uniqueID))")
        #expect(CaptureDevice.authorizationStatus(for: .video) == .authorized)
    }

    @Test func subjectAreaChangeNeedsALastingChange() throws {
        var monitor = SubjectAreaMonitor()
        var zoomed = sharpBars
        zoomed.zoomFactor = 4
        #expect(!monitor.observe(try picture(sharpBars)))
        // A one-frame flash is not a new subject.
        #expect(!monitor.observe(try picture(sharpBars, frame: 30)))
        #expect(!monitor.observe(try picture(sharpBars)))
        var fired = [Bool]()
        for _ in 0..<SubjectAreaMonitor.persistence { fired.append(monitor.observe(try picture(zoomed))) }
        #expect(fired == Array(repeating: false, count: SubjectAreaMonitor.persistence - 1) + [true])
        #expect(!monitor.observe(try picture(zoomed)))
    }

    @Test func timecodeCountsFrames() throws {
        #expect(CameraDisplay.timecode(35, rate: 30) == "00:00:01:05")
        #expect(CameraDisplay.timecode(30 * 3725, rate: 30) == "01:02:05:00")
        // The timecode is drawn: two frames a frame apart differ there, and only in the digits' corner.
        let a = try picture(sharpBars, frame: 5), b = try picture(sharpBars, frame: 6)
        let bottom = Self.height - 12
        #expect(row(a, y: bottom) != row(b, y: bottom) || row(a, y: bottom - 4) != row(b, y: bottom - 4))
    }

    /// The counter's blocks are white and black, not tinted by the bar under them, so a
    /// page reading the picture in RGB gets the frame number back (the studio's latency check).
    @Test func counterReadsInColourOverAnyScene() throws {
        for frame: Int64 in [5, 0b1010_0110_0101, 40_000] {
            let picture = try picture(sharpBars, frame: frame)
            var counter = 0
            for bit in 0..<VirtualCamera.counterBits {
                let x = bit * VirtualCamera.blockSize + VirtualCamera.blockSize / 2, y = VirtualCamera.blockSize / 2
                let luma = Int(picture.element(plane: 0, x: x, y: y)?[0] ?? 0)
                let cb = Int(picture.element(plane: 1, x: x / 2, y: y / 2)?[0] ?? 0)
                let cr = Int(picture.element(plane: 2, x: x / 2, y: y / 2)?[0] ?? 0)
                #expect(cb == 128 && cr == 128, "bit \(bit) of frame \(frame): Cb \(cb), Cr \(cr)")
                // BT.601 limited range to RGB: grey has R = G = B = 1.164 (Y - 16).
                if 1.164 * Double(luma - 16) * 3 > 384 { counter |= 1 << bit }
            }
            #expect(counter == Int(frame & 0xFFFF))
        }
    }
}

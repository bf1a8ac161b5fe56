import ReelCore

/// The virtual camera: its scene through the device's optics, and the flash's light.
struct VirtualCameraSource: FrameSource {
    func draw(frame index: Int64, at seconds: Double, rate: Double, flash: Bool, of device: CaptureDevice,
              into picture: PixelBuffer) -> FrameOutcome {
        if device.uniqueID == HandheldCamera.uniqueID {
            HandheldCamera.render(frame: index, rate: rate, into: picture)
            return .drawn
        }
        let (width, height) = (picture.width, picture.height)
        let scene = VirtualCamera(frame: index, rate: rate, width: width, height: height, zoom: device.videoZoomFactor)
        var controls = device.advanceControls(by: 1 / rate, scene: scene)
        if flash {
            controls.torchMode = .on
            controls.torchLevel = 1
        }
        VirtualCamera(frame: index, rate: rate, width: width, height: height, zoom: controls.zoomFactor)
            .render(into: picture, controls: controls)
        return .drawn
    }
}

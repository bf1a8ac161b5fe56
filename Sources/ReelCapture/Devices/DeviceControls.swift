import Foundation
import ReelCore

/// What a camera's optics can see of the scene: how far away the thing at a point is, and
/// how bright it is. The virtual camera answers from its scene; auto focus and auto
/// exposure ask it.
protocol SceneProbe {
    /// The lens position (0 near, 1 far) that brings the point into focus.
    func focusDistance(at point: Point) -> Float
    /// The scene's luma (16–235) around the point, before exposure.
    func luma(at point: Point) -> Double
}

/// The state of a camera's controls, and how the automatic ones move from frame to frame.
/// A value: the session takes a copy for each frame, so a frame never sees half a change.
struct DeviceControls: Sendable, Equatable {
    /// The exposure the scene is lit for: 1/100 s at ISO 100 gives gain 1.
    static let baseExposureSeconds = 0.01
    static let baseISO: Float = 100
    /// Lens travel per second while focusing, in lens-position units.
    static let focusSpeed: Float = 2.5
    /// How fast continuous auto exposure closes on its target, per second.
    static let exposureSpeed = 6.0

    var focusMode: CaptureDevice.FocusMode = .continuousAutoFocus
    var lensPosition: Float = 0.5
    var focusPointOfInterest = Point(x: 0.5, y: 0.5)
    var isAdjustingFocus = false

    var exposureMode: CaptureDevice.ExposureMode = .continuousAutoExposure
    var exposurePointOfInterest = Point(x: 0.5, y: 0.5)
    var exposureSeconds = DeviceControls.baseExposureSeconds
    var iso: Float = DeviceControls.baseISO
    var isAdjustingExposure = false

    var zoomFactor = 1.0
    var zoomTarget: Double?
    /// Doublings per second (AVFoundation's rate).
    var zoomRate = 0.0

    var torchMode: CaptureDevice.TorchMode = .off
    var torchLevel: Float = 1
    /// The device's own flash mode (`AVCaptureDevice.flashMode`): off until set, so a camera
    /// switched to starts without flash.
    var flashMode: CaptureDevice.FlashMode = .off

    var whiteBalanceMode: CaptureDevice.WhiteBalanceMode = .continuousAutoWhiteBalance
    var temperatureAndTint = CaptureDevice.WhiteBalanceTemperatureAndTintValues(temperature: 5500, tint: 0)

    var isSubjectAreaChangeMonitoringEnabled = false

    /// Brightness multiplier the exposure gives: exposure time and ISO against the base.
    var exposureGain: Double {
        exposureSeconds / Self.baseExposureSeconds * Double(iso / Self.baseISO)
    }

    /// Whether the torch lights the scene now.
    var isTorchActive: Bool { torchMode == .on }

    /// Moves the automatic controls on by `seconds` of capture, within `format`'s limits.
    mutating func advance(by seconds: Double, format: CaptureDevice.Format?, scene: (any SceneProbe)?) {
        if let target = zoomTarget {
            let step = pow(2, zoomRate * seconds)
            zoomFactor = target > zoomFactor ? min(target, zoomFactor * step) : max(target, zoomFactor / step)
            if zoomFactor == target { zoomTarget = nil }
        }
        if let scene, focusMode != .locked {
            let target = scene.focusDistance(at: focusPointOfInterest)
            let travel = Self.focusSpeed * Float(seconds)
            let distance = target - lensPosition
            lensPosition = abs(distance) <= travel ? target : lensPosition + (distance > 0 ? travel : -travel)
            isAdjustingFocus = lensPosition != target
            if focusMode == .autoFocus, !isAdjustingFocus { focusMode = .locked }
        } else {
            isAdjustingFocus = false
        }
        if let scene, exposureMode == .continuousAutoExposure || exposureMode == .autoExpose {
            // Meters around the point but, like a camera's centre-weighted metering, only part
            // of the way towards mid grey.
            let wanted = min(max((118 / max(scene.luma(at: exposurePointOfInterest), 16)).squareRoot(), 0.5), 2)
            let blend = min(1, Self.exposureSpeed * seconds)
            var gain = exposureGain + (wanted - exposureGain) * blend
            if abs(gain - wanted) < 0.01 { gain = wanted }
            isAdjustingExposure = gain != wanted
            setAutoExposure(gain: gain, format: format)
            if exposureMode == .autoExpose, !isAdjustingExposure { exposureMode = .locked }
        } else {
            isAdjustingExposure = false
        }
    }

    /// Reaches `gain` as a camera does: a longer exposure first, up to the frame's length,
    /// then more ISO.
    private mutating func setAutoExposure(gain: Double, format: CaptureDevice.Format?) {
        let longest = format.map { $0.maxExposureSeconds > 0 ? $0.maxExposureSeconds : 1 / 30 } ?? 1 / 30
        let shortest = format.map { $0.minExposureSeconds > 0 ? $0.minExposureSeconds : 1e-4 } ?? 1e-4
        exposureSeconds = min(max(Self.baseExposureSeconds * gain, shortest), longest)
        let wantedISO = Float(gain * Self.baseExposureSeconds / exposureSeconds) * Self.baseISO
        iso = format.map { $0.maxISO > 0 ? min(max(wantedISO, $0.minISO), $0.maxISO) : wantedISO } ?? wantedISO
    }
}

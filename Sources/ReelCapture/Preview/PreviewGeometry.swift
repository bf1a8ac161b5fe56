public import ReelCore

/// Where the camera's picture lands in a preview view, and the conversions between a
/// point in the view and the device's point of interest: the geometry of
/// `AVCaptureVideoPreviewLayer`, as a value, for any UI (the studio's page uses it).
///
/// Device points run from (0, 0) at the top left to (1, 1) at the bottom right of the
/// picture as the sensor delivers it, before rotation and mirroring.
public struct PreviewGeometry: Sendable, Hashable {
    /// How the picture fills the view. `AVLayerVideoGravity`.
    public enum VideoGravity: String, Sendable, Hashable, Codable, CaseIterable {
        /// Stretched to the view's bounds.
        case resize
        /// Fitted inside, letterboxed.
        case resizeAspect
        /// Filling the view, cropped.
        case resizeAspectFill
    }

    /// The view's size.
    public var bounds: Size
    /// The picture's size as the sensor delivers it.
    public var videoSize: Size
    public var videoGravity: VideoGravity
    /// Clockwise turn of the picture for display: 0, 90, 180 or 270. `videoRotationAngle`.
    public var rotationAngle: Int
    /// Flipped left to right after turning, as a front camera's preview is. `isVideoMirrored`.
    public var isMirrored: Bool

    /// A preview's geometry from its parts.
    /// - Parameters:
    ///   - bounds: The view's size.
    ///   - videoSize: The picture's size as the sensor delivers it.
    ///   - videoGravity: How the picture fills the view.
    ///   - rotationAngle: The clockwise turn for display: 0, 90, 180 or 270.
    ///   - isMirrored: Whether the picture is flipped left to right after turning.
    public init(bounds: Size, videoSize: Size, videoGravity: VideoGravity = .resizeAspect, rotationAngle: Int = 0,
                isMirrored: Bool = false) {
        self.bounds = bounds
        self.videoSize = videoSize
        self.videoGravity = videoGravity
        self.rotationAngle = ((rotationAngle % 360) + 360) % 360 / 90 * 90
        self.isMirrored = isMirrored
    }

    /// The geometry for `device`'s preview: mirrored when it faces the user, as
    /// `automaticallyAdjustsVideoMirroring` does.
    /// - Parameters:
    ///   - bounds: The view's size.
    ///   - videoSize: The picture's size as the sensor delivers it.
    ///   - videoGravity: How the picture fills the view.
    ///   - rotationAngle: The clockwise turn for display: 0, 90, 180 or 270.
    ///   - device: The camera previewed; its ``CaptureDevice/position`` decides the mirroring.
    public init(bounds: Size, videoSize: Size, videoGravity: VideoGravity = .resizeAspect, rotationAngle: Int = 0,
                device: CaptureDevice) {
        self.init(bounds: bounds, videoSize: videoSize, videoGravity: videoGravity, rotationAngle: rotationAngle,
                  isMirrored: device.position == .front)
    }

    /// The picture's size on screen, after turning.
    private var displayedSize: Size {
        rotationAngle % 180 == 0 ? videoSize : Size(width: videoSize.height, height: videoSize.width)
    }

    /// Where the picture lies in the view; larger than the view for aspect fill.
    public var videoRect: Rect {
        let shown = displayedSize
        guard shown.width > 0, shown.height > 0 else { return Rect(origin: Point(x: 0, y: 0), size: bounds) }
        switch videoGravity {
        case .resize:
            return Rect(origin: Point(x: 0, y: 0), size: bounds)
        case .resizeAspect, .resizeAspectFill:
            let across = bounds.width / shown.width, down = bounds.height / shown.height
            let scale = videoGravity == .resizeAspect ? min(across, down) : max(across, down)
            let size = Size(width: shown.width * scale, height: shown.height * scale)
            return Rect(origin: Point(x: (bounds.width - size.width) / 2, y: (bounds.height - size.height) / 2), size: size)
        }
    }

    /// The device point under `point` of the view. `captureDevicePointConverted(fromLayerPoint:)`.
    /// Points outside the picture give values outside 0–1.
    /// - Parameter point: A point in the view's coordinates (as a tap gives it).
    /// - Returns: The device point, for ``CaptureDevice/focusPointOfInterest`` and
    ///   ``CaptureDevice/exposurePointOfInterest``; (0.5, 0.5) for an empty picture.
    public func captureDevicePointOfInterest(for point: Point) -> Point {
        let rect = videoRect
        guard rect.size.width > 0, rect.size.height > 0 else { return Point(x: 0.5, y: 0.5) }
        var x = (point.x - rect.origin.x) / rect.size.width
        let y = (point.y - rect.origin.y) / rect.size.height
        if isMirrored { x = 1 - x }
        switch rotationAngle {
        case 90: return Point(x: y, y: 1 - x)
        case 180: return Point(x: 1 - x, y: 1 - y)
        case 270: return Point(x: 1 - y, y: x)
        default: return Point(x: x, y: y)
        }
    }

    /// The point of the view that shows device point `point`.
    /// `layerPointConverted(fromCaptureDevicePoint:)`.
    /// - Parameter point: A device point, (0, 0) to (1, 1) over the sensor's picture.
    /// - Returns: Where the view shows it, to draw a focus or face marker there.
    public func layerPoint(forCaptureDevicePointOfInterest point: Point) -> Point {
        var shown: Point
        switch rotationAngle {
        case 90: shown = Point(x: 1 - point.y, y: point.x)
        case 180: shown = Point(x: 1 - point.x, y: 1 - point.y)
        case 270: shown = Point(x: point.y, y: 1 - point.x)
        default: shown = point
        }
        if isMirrored { shown.x = 1 - shown.x }
        let rect = videoRect
        return Point(x: rect.origin.x + shown.x * rect.size.width, y: rect.origin.y + shown.y * rect.size.height)
    }
}

public import ReelCore

extension PreviewGeometry {
    /// The geometry of a preview that follows `connection`: turned by its
    /// `videoRotationAngle`, and mirrored as the preview layer's connection is — for a
    /// front camera while `automaticallyAdjustsVideoMirroring` is on, otherwise as
    /// `isVideoMirrored` says.
    /// - Parameters:
    ///   - bounds: the view's size.
    ///   - videoSize: the picture's size as the sensor delivers it.
    ///   - videoGravity: how the picture fills the view.
    ///   - connection: the connection whose orientation and mirroring the preview shows.
    ///   - device: the camera, whose position decides automatic mirroring.
    public init(bounds: Size, videoSize: Size, videoGravity: VideoGravity = .resizeAspect, connection: CaptureConnection,
                device: CaptureDevice) {
        let mirrored = connection.automaticallyAdjustsVideoMirroring ? device.position == .front : connection.isVideoMirrored
        self.init(bounds: bounds, videoSize: videoSize, videoGravity: videoGravity,
                  rotationAngle: connection.videoOrientation.rotationAngle, isMirrored: mirrored)
    }
}

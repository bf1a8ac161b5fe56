import ReelCapture
import ReelCore
import Testing

@Suite struct PreviewGeometryTests {
    static let angles = [0, 90, 180, 270]

    func close(_ a: Point, _ b: Point) -> Bool { abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 }

    @Test(arguments: PreviewGeometry.VideoGravity.allCases)
    func viewPointsAndDevicePointsRoundTrip(gravity: PreviewGeometry.VideoGravity) {
        for angle in Self.angles {
            for mirrored in [false, true] {
                let geometry = PreviewGeometry(bounds: Size(width: 390, height: 844), videoSize: Size(width: 1280, height: 720),
                                               videoGravity: gravity, rotationAngle: angle, isMirrored: mirrored)
                for point in [Point(x: 10, y: 20), Point(x: 195, y: 422), Point(x: 380, y: 800)] {
                    let device = geometry.captureDevicePointOfInterest(for: point)
                    #expect(close(geometry.layerPoint(forCaptureDevicePointOfInterest: device), point),
                            "\(gravity) \(angle)° mirrored \(mirrored): \(point) → \(device)")
                }
                // The centre of the view is the centre of the picture, whatever the geometry.
                #expect(close(geometry.captureDevicePointOfInterest(for: Point(x: 195, y: 422)), Point(x: 0.5, y: 0.5)))
            }
        }
    }

    @Test func cornersFollowTheTurnAndTheMirror() {
        // Unturned, resized: the view's top left is the sensor's top left.
        let flat = PreviewGeometry(bounds: Size(width: 640, height: 360), videoSize: Size(width: 1280, height: 720),
                                   videoGravity: .resize)
        #expect(close(flat.captureDevicePointOfInterest(for: Point(x: 0, y: 0)), Point(x: 0, y: 0)))
        #expect(close(flat.captureDevicePointOfInterest(for: Point(x: 640, y: 0)), Point(x: 1, y: 0)))
        let expected: [Int: (topLeft: Point, topRight: Point)] = [
            // Turned 90° clockwise for display, the sensor's bottom left shows at the view's top left.
            90: (Point(x: 0, y: 1), Point(x: 0, y: 0)),
            180: (Point(x: 1, y: 1), Point(x: 0, y: 1)),
            270: (Point(x: 1, y: 0), Point(x: 1, y: 1)),
        ]
        for (angle, corners) in expected {
            let geometry = PreviewGeometry(bounds: Size(width: 360, height: 640), videoSize: Size(width: 1280, height: 720),
                                           videoGravity: .resize, rotationAngle: angle)
            #expect(close(geometry.captureDevicePointOfInterest(for: Point(x: 0, y: 0)), corners.topLeft), "\(angle)°")
            #expect(close(geometry.captureDevicePointOfInterest(for: Point(x: 360, y: 0)), corners.topRight), "\(angle)°")
            // A front camera's preview is mirrored: its top left is the unmirrored top right.
            let front = PreviewGeometry(bounds: Size(width: 360, height: 640), videoSize: Size(width: 1280, height: 720),
                                        videoGravity: .resize, rotationAngle: angle, isMirrored: true)
            #expect(close(front.captureDevicePointOfInterest(for: Point(x: 0, y: 0)), corners.topRight), "\(angle)° mirrored")
        }
    }

    @Test func aspectFillCropsAndAspectFitLetterboxes() {
        // A 1280x720 sensor shown upright (turned 90°) on a 390x844 phone screen.
        let fill = PreviewGeometry(bounds: Size(width: 390, height: 844), videoSize: Size(width: 1280, height: 720),
                                   videoGravity: .resizeAspectFill, rotationAngle: 90)
        let scale = 844.0 / 1280
        #expect(abs(fill.videoRect.size.width - 720 * scale) < 1e-9 && abs(fill.videoRect.origin.x - (390 - 720 * scale) / 2) < 1e-9)
        let left = fill.captureDevicePointOfInterest(for: Point(x: 0, y: 422))
        #expect(abs(left.x - 0.5) < 1e-9 && abs(left.y - (1 - (720 * scale - 390) / 2 / (720 * scale))) < 1e-9)

        let fit = PreviewGeometry(bounds: Size(width: 390, height: 844), videoSize: Size(width: 1280, height: 720),
                                  videoGravity: .resizeAspect)
        #expect(abs(fit.videoRect.size.height - 390 * 720 / 1280) < 1e-9)
        // A tap on the letterbox lies outside the picture.
        #expect(fit.captureDevicePointOfInterest(for: Point(x: 195, y: 10)).y < 0)
    }
}

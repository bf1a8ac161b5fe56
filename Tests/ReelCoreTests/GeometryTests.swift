import ReelCore
import Testing

@Suite struct GeometryTests {
    @Test func quarterTurnsAreExact() {
        #expect(AffineTransform(rotationAngle: .pi / 2) == AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0))
        #expect(AffineTransform(rotationAngle: .pi) == AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: 0, ty: 0))
        #expect(AffineTransform(rotationAngle: -.pi / 2) == AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 0))
        #expect(AffineTransform(rotationAngle: 2 * .pi) == .identity)
    }

    @Test func positiveAngleTurnsClockwiseOnScreen() {
        // y points down: the point to the right of the origin moves below it.
        let turned = Point(x: 1, y: 0).applying(AffineTransform(rotationAngle: .pi / 2))
        #expect(turned == Point(x: 0, y: 1))
    }

    @Test func concatenationAppliesLeftThenRight() {
        let scale = AffineTransform(scaleX: 2, y: 3)
        let move = AffineTransform(translationX: 10, y: 20)
        #expect(Point(x: 1, y: 1).applying(scale.concatenating(move)) == Point(x: 12, y: 23))
        #expect(Point(x: 1, y: 1).applying(move.concatenating(scale)) == Point(x: 22, y: 63))
        #expect(scale.translatedBy(x: 1, y: 1) == AffineTransform(translationX: 1, y: 1).concatenating(scale))
    }

    @Test func inversionUndoes() throws {
        let t = AffineTransform(rotationAngle: 0.3).concatenating(AffineTransform(scaleX: 2, y: 0.5))
            .concatenating(AffineTransform(translationX: 7, y: -3))
        let inverse = try #require(t.inverted())
        let p = Point(x: 13, y: -4).applying(t).applying(inverse)
        #expect(abs(p.x - 13) < 1e-9 && abs(p.y + 4) < 1e-9)
        #expect(AffineTransform(scaleX: 0, y: 1).inverted() == nil)
    }

    @Test func sizesAndRects() {
        let portrait = AffineTransform(rotationAngle: .pi / 2)
        #expect(Size(width: 1920, height: 1080).applying(portrait) == Size(width: -1080, height: 1920))
        let box = Rect(x: 0, y: 0, width: 1920, height: 1080).applying(portrait)
        #expect(box == Rect(x: -1080, y: 0, width: 1080, height: 1920))
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).intersection(Rect(x: 5, y: 5, width: 10, height: 10))
                == Rect(x: 5, y: 5, width: 5, height: 5))
    }

    @Test(arguments: [(0, Orientation.up), (90, .right), (180, .down), (270, .left)])
    func orientationOfEachQuarterTurn(degrees: Int, orientation: Orientation) {
        let t = AffineTransform(rotationAngle: Double(degrees) * .pi / 180)
        #expect(t.orientation == orientation)
        #expect(orientation.rotationDegrees == degrees)
        #expect(!orientation.isMirrored)
        #expect(abs(t.rotationDegrees - Double(degrees)) < 1e-9)
        let mirrored = AffineTransform(scaleX: -1, y: 1).concatenating(t)
        #expect(mirrored.orientation?.isMirrored == true)
        #expect(mirrored.orientation?.rotationDegrees == degrees)
    }

    @Test func iPhonePortraitMatrixIsRight() {
        // What an iPhone writes for a portrait recording of a 1920x1080 sensor.
        let t = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0)
        #expect(t.orientation == .right)
        #expect(Orientation.right.transform(for: Size(width: 1920, height: 1080)) == t)
        #expect(Orientation.right.swapsDimensions)
    }

    @Test func orientationTransformsLandAtTheOrigin() {
        let size = Size(width: 640, height: 480)
        for orientation in Orientation.allCases {
            let box = Rect(origin: .zero, size: size).applying(orientation.transform(for: size))
            #expect(box.minX == 0 && box.minY == 0, "\(orientation)")
            #expect(orientation.transform(for: size).orientation == orientation)
        }
    }

    @Test func shearHasNoOrientation() {
        #expect(AffineTransform(a: 1, b: 0.5, c: 0, d: 1, tx: 0, ty: 0).orientation == nil)
        #expect(AffineTransform(rotationAngle: 0.4).orientation == nil)
    }
}

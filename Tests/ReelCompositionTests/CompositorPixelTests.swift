import Foundation
@testable import ReelComposition
import ReelCore
import Testing

/// The compositor's exact output, pinned by checksum: every draw path (whole-pixel moves,
/// axis-aligned scales, turns, crops, fills, RGBA overlays, each opaque and blended) on
/// seeded noise at a size that splits into bands. The sums were taken from the
/// single-threaded compositor before its kernels moved to ReelCore, so the banded one must
/// give the same bytes.
@Suite struct CompositorPixelTests {
    typealias AffineTransform = ReelCore.AffineTransform

    /// Deterministic noise: the same pictures on every run.
    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64) throws -> PixelBuffer {
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: format)
        var state = seed
        for (index, plane) in picture.planes.enumerated() {
            picture.withMutablePlane(index) { base, stride in
                for y in 0..<plane.height {
                    for x in 0..<plane.bytesPerRowOfPixels {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        base.storeBytes(of: UInt8(truncatingIfNeeded: state >> 33), toByteOffset: y * stride + x, as: UInt8.self)
                    }
                }
            }
        }
        return picture
    }

    /// FNV-1a over the pixels of every plane (not the padding).
    static func checksum(_ picture: PixelBuffer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, plane) in picture.planes.enumerated() {
            picture.withPlane(index) { base, stride in
                for y in 0..<plane.height {
                    for x in 0..<plane.bytesPerRowOfPixels {
                        hash = (hash ^ UInt64(base.load(fromByteOffset: y * stride + x, as: UInt8.self))) &* 0x100_0000_01b3
                    }
                }
            }
        }
        return hash
    }

    static func frame() throws -> PixelBuffer {
        let frame = try PixelBuffer(width: 640, height: 360, pixelFormat: .yuv420p)
        Compositor.clear(frame, red: 0.2, green: 0.4, blue: 0.6, matrix: .bt709)
        return frame
    }

    @Test func clearPaintsTheBackgroundColour() throws {
        let frame = try Self.frame()
        #expect(Self.checksum(frame) == 1_673_458_802_164_583_205)
    }

    @Test func wholePixelMovesCopyExactly() throws {
        let source = try Self.noise(width: 320, height: 180, format: .yuv420p, seed: 1)
        let frame = try Self.frame()
        Compositor.draw(source, into: frame, transform: AffineTransform(translationX: 100, y: 50), opacity: 1)
        Compositor.draw(source, into: frame, transform: AffineTransform(translationX: -61, y: 247), opacity: 0.4)
        #expect(Self.checksum(frame) == 995_453_653_263_871_826)
    }

    @Test func scalesAndCropsSampleBilinearly() throws {
        let source = try Self.noise(width: 320, height: 180, format: .yuv420p, seed: 2)
        let frame = try Self.frame()
        Compositor.draw(source, into: frame, transform: AffineTransform(scaleX: 2, y: 2), opacity: 1)
        Compositor.draw(source, into: frame, transform: AffineTransform(scaleX: 0.7, y: 1.3)
            .concatenating(AffineTransform(translationX: 33.25, y: 17.5)), opacity: 0.6,
                        crop: Rect(x: 20, y: 10, width: 200, height: 150))
        #expect(Self.checksum(frame) == 8_034_844_158_541_644_967)
    }

    @Test func turnsSampleThroughTheInverse() throws {
        let source = try Self.noise(width: 320, height: 180, format: .yuv420p, seed: 3)
        let frame = try Self.frame()
        let turn = AffineTransform(translationX: -160, y: -90).concatenating(AffineTransform(rotationAngle: 0.3))
            .concatenating(AffineTransform(scaleX: 1.5, y: 1.5)).concatenating(AffineTransform(translationX: 320, y: 180))
        Compositor.draw(source, into: frame, transform: turn, opacity: 1)
        Compositor.draw(source, into: frame, transform: turn.concatenating(AffineTransform(translationX: 40, y: -20)),
                        opacity: 0.5, crop: Rect(x: 10, y: 10, width: 250, height: 120))
        #expect(Self.checksum(frame) == 3_982_212_904_942_289_374)
    }

    @Test func fillsBlendRectangles() throws {
        let frame = try Self.frame()
        Compositor.fill(Rect(x: 10.4, y: 20.6, width: 300, height: 200), in: frame,
                        color: Compositor.yuv(red: 1, green: 0.8, blue: 0, matrix: .bt709), opacity: 1)
        Compositor.fill(Rect(x: 200, y: 100, width: 500, height: 400), in: frame,
                        color: Compositor.yuv(red: 0.1, green: 0.9, blue: 0.3, matrix: .bt709), opacity: 0.35)
        #expect(Self.checksum(frame) == 2_037_040_697_167_276_301)
    }

    @Test func rgbaOverlaysBlendByTheirAlpha() throws {
        let picture = try Self.noise(width: 200, height: 120, format: .rgba, seed: 4)
        let frame = try Self.frame()
        Compositor.drawRGBA(picture, into: frame, transform: AffineTransform(translationX: 31, y: 17), opacity: 1,
                            matrix: .bt709)
        let turn = AffineTransform(translationX: -100, y: -60).concatenating(AffineTransform(rotationAngle: -0.7))
            .concatenating(AffineTransform(scaleX: 1.8, y: 1.8)).concatenating(AffineTransform(translationX: 400, y: 200))
        Compositor.drawRGBA(picture, into: frame, transform: turn, opacity: 0.7, matrix: .bt709)
        #expect(Self.checksum(frame) == 13_648_573_415_883_954_023)
    }

    /// The sum the former `drawRGBA(_:into:origin:opacity:)` gave at origin (500.6, 290.2):
    /// a whole-pixel translation through the one `drawRGBA` lands the same bytes.
    @Test func rgbaOverlaysMovedByWholePixelsMatchTheFormerOriginDraw() throws {
        let picture = try Self.noise(width: 200, height: 120, format: .rgba, seed: 5)
        let frame = try Self.frame()
        Compositor.drawRGBA(picture, into: frame, transform: AffineTransform(translationX: 501, y: 290), opacity: 0.9,
                            matrix: .bt709)
        #expect(Self.checksum(frame) == 10_416_088_531_121_420_772)
    }
}

import Foundation
import ReelCore

/// A styled layer's chroma key (``LayerStyle/ChromaKey``) over an RGBA picture. The layer is
/// then drawn by ``Compositor/drawRGBA(_:into:transform:opacity:matrix:shape:)`` with its
/// corners and border.
enum LayerCompositor {
    /// `picture` with `key` applied: its alpha lowered where its colour is near the key's (by
    /// chroma distance, so shadows on a green screen key too), and the key's cast taken off the
    /// colours that stay. BT.709 chroma, each of Cb and Cr from -0.5 to 0.5; distances over
    /// √2, so 0 to 1.
    /// - Parameters:
    ///   - picture: An RGBA picture.
    ///   - key: The key.
    /// - Returns: A new RGBA picture of the same size.
    /// - Throws: ``ReelError`` when the picture cannot be made.
    static func keyed(_ picture: PixelBuffer, by key: LayerStyle.ChromaKey) throws(ReelError) -> PixelBuffer {
        let output = try PixelBuffer(width: picture.width, height: picture.height, pixelFormat: .rgba)
        func chroma(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double) {
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            return ((b - y) / 1.8556, (r - y) / 1.5748)
        }
        let (keyCb, keyCr) = chroma(key.red, key.green, key.blue)
        let keyLength = (keyCb * keyCb + keyCr * keyCr).squareRoot()
        let similarity = key.similarity, blend = key.blend, spill = min(max(key.spill, 0), 1)
        let width = picture.width
        picture.withPlane(0) { input, inStride in
            output.withMutablePlane(0) { out, outStride in
                ParallelRows.run(rows: picture.height) { band in
                    for row in band {
                        let from = input + row * inStride, to = out + row * outStride
                        for x in 0..<width {
                            let r = Double(from.load(fromByteOffset: 4 * x, as: UInt8.self)) / 255
                            let g = Double(from.load(fromByteOffset: 4 * x + 1, as: UInt8.self)) / 255
                            let b = Double(from.load(fromByteOffset: 4 * x + 2, as: UInt8.self)) / 255
                            let a = Double(from.load(fromByteOffset: 4 * x + 3, as: UInt8.self)) / 255
                            let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
                            var (cb, cr) = chroma(r, g, b)
                            let distance =
                                ((cb - keyCb) * (cb - keyCb) + (cr - keyCr) * (cr - keyCr)).squareRoot() / 2.0.squareRoot()
                            let kept =
                                blend > 0 ? min(max((distance - similarity) / blend, 0), 1) : (distance > similarity ? 1.0 : 0.0)
                            if spill > 0, keyLength > 1e-6 {
                                // The part of the pixel's chroma along the key's direction goes.
                                let along = (cb * keyCb + cr * keyCr) / keyLength
                                if along > 0 {
                                    cb -= spill * along * keyCb / keyLength
                                    cr -= spill * along * keyCr / keyLength
                                }
                            }
                            let nr = luma + 1.5748 * cr, nb = luma + 1.8556 * cb
                            let ng = (luma - 0.2126 * nr - 0.0722 * nb) / 0.7152
                            func byte(_ v: Double) -> UInt8 { UInt8(min(max((v * 255).rounded(), 0), 255)) }
                            to.storeBytes(of: byte(nr), toByteOffset: 4 * x, as: UInt8.self)
                            to.storeBytes(of: byte(ng), toByteOffset: 4 * x + 1, as: UInt8.self)
                            to.storeBytes(of: byte(nb), toByteOffset: 4 * x + 2, as: UInt8.self)
                            to.storeBytes(of: byte(a * kept), toByteOffset: 4 * x + 3, as: UInt8.self)
                        }
                    }
                }
            }
        }
        return output
    }

    /// `picture` laid on an opaque colour: each pixel's colour over `background` by its alpha,
    /// every alpha then 255 (``LayerStyle/isMattedOnBackground``).
    /// - Parameters:
    ///   - picture: An RGBA picture (straight alpha, as FFmpeg decodes a PNG).
    ///   - background: R, G, B from 0 to 1.
    /// - Returns: A new opaque RGBA picture of the same size.
    /// - Throws: ``ReelError`` when the picture cannot be made.
    static func matted(_ picture: PixelBuffer, on background: (red: Double, green: Double, blue: Double)) throws(ReelError)
        -> PixelBuffer {
        let output = try PixelBuffer(width: picture.width, height: picture.height, pixelFormat: .rgba)
        func level(_ v: Double) -> Int { Int((min(max(v, 0), 1) * 255).rounded()) }
        let under = [level(background.red), level(background.green), level(background.blue)]
        let width = picture.width
        picture.withPlane(0) { input, inStride in
            output.withMutablePlane(0) { out, outStride in
                ParallelRows.run(rows: picture.height) { band in
                    for row in band {
                        let from = input + row * inStride, to = out + row * outStride
                        for x in 0..<width {
                            let a = Int(from.load(fromByteOffset: 4 * x + 3, as: UInt8.self))
                            for c in 0..<3 {
                                let v = Int(from.load(fromByteOffset: 4 * x + c, as: UInt8.self))
                                // Rounded: (v a + u (255 - a) + 127) / 255, from 0 to 255.
                                let mixed = (v * a + under[c] * (255 - a) + 127) / 255
                                to.storeBytes(of: UInt8(truncatingIfNeeded: mixed), toByteOffset: 4 * x + c, as: UInt8.self)
                            }
                            to.storeBytes(of: 255 as UInt8, toByteOffset: 4 * x + 3, as: UInt8.self)
                        }
                    }
                }
            }
        }
        return output
    }
}

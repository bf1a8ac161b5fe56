import Foundation
import ReelCore

/// Draws a styled layer (``LayerStyle``): an RGBA picture with its own alpha, laid over a
/// yuv420p frame through any transform with bilinear sampling of premultiplied colour, inside
/// a rectangle with rounded corners whose edges are covered by the fraction of each pixel they
/// cover, with a border inside the edge; and keys a colour out of an RGBA picture.
enum LayerCompositor {
    /// Lays `picture` (RGBA, straight alpha) over `target` (yuv420p).
    /// - Parameters:
    ///   - picture: The layer's picture.
    ///   - target: The frame.
    ///   - transform: Picture pixels to frame pixels.
    ///   - opacity: The layer's opacity, 0 to 1.
    ///   - crop: The part of the picture shown, in picture pixels; all of it when nil.
    ///   - cornerRadius: The corners' radius in frame pixels.
    ///   - borderWidth: The border's width in frame pixels, inside the edge.
    ///   - borderColor: The border's colour, R, G, B from 0 to 1.
    ///   - matrix: The frame's YCbCr matrix (the output's, ``ColorMatrix``): the picture's RGB
    ///     is converted by it, so an untouched pixel keeps its colour in the output.
    static func draw(
        _ picture: PixelBuffer, into target: PixelBuffer, transform: ReelCore.AffineTransform, opacity: Double,
        crop: Rect?, cornerRadius: Double, borderWidth: Double, borderColor: (red: Double, green: Double, blue: Double),
        matrix: ColorMatrix
    ) {
        guard opacity > 0.001, picture.pixelFormat == .rgba, target.pixelFormat == .yuv420p,
            let inverse = transform.inverted(), Compositor.isDrawable(transform, inverse)
        else { return }
        let whole = Rect(x: 0, y: 0, width: Double(picture.width), height: Double(picture.height))
        let shape = crop.map { $0.intersection(whole) } ?? whole
        guard shape.width > 0, shape.height > 0 else { return }
        // Frame pixels per picture pixel (the mean of the two axes' scales).
        let scale = abs(transform.determinant).squareRoot()
        guard scale > 1e-9 else { return }
        let radius = min(max(cornerRadius, 0) / scale, shape.width / 2, shape.height / 2)
        let border = max(borderWidth, 0)
        let box = shape.applying(transform)
        let x0 = max(0, Compositor.pixel(box.minX.rounded(.down))),
            x1 = min(target.width, Compositor.pixel(box.maxX.rounded(.up)))
        let y0 = max(0, Compositor.pixel(box.minY.rounded(.down))),
            y1 = min(target.height, Compositor.pixel(box.maxY.rounded(.up)))
        guard x1 > x0, y1 > y0 else { return }
        let edge = (r: borderColor.red * 255, g: borderColor.green * 255, b: borderColor.blue * 255)
        let lowX = shape.minX, lowY = shape.minY, highX = shape.maxX, highY = shape.maxY
        let maxX = picture.width - 1, maxY = picture.height - 1
        picture.withPlane(0) { input, inStride in
            target.withMutablePlane(0) { luma, lumaStride in
                target.withMutablePlane(1) { cbPlane, cbStride in
                    target.withMutablePlane(2) { crPlane, crStride in
                        // A chroma sample is written only under an even luma row, so bands never share one.
                        ParallelRows.run(rows: y1 - y0) { band in
                            for y in band.lowerBound + y0..<band.upperBound + y0 {
                                for x in x0..<x1 {
                                    let p = Point(x: Double(x) + 0.5, y: Double(y) + 0.5).applying(inverse)
                                    // Signed distance to the rounded rectangle, in frame pixels (negative inside).
                                    let qx = max(lowX + radius - p.x, p.x - (highX - radius), 0)
                                    let qy = max(lowY + radius - p.y, p.y - (highY - radius), 0)
                                    let insideX = min(p.x - lowX, highX - p.x), insideY = min(p.y - lowY, highY - p.y)
                                    let distance: Double
                                    if qx > 0, qy > 0 {
                                        distance = ((qx * qx + qy * qy).squareRoot() - radius) * scale
                                    } else {
                                        distance = -min(insideX, insideY) * scale
                                    }
                                    let coverage = min(max(0.5 - distance, 0), 1)
                                    guard coverage > 0 else { continue }
                                    // Bilinear, premultiplied, clamped to the part shown.
                                    let sx = min(max(p.x, lowX + 0.5), highX - 0.5) - 0.5,
                                        sy = min(max(p.y, lowY + 0.5), highY - 0.5) - 0.5
                                    let ix = min(max(Int(sx.rounded(.down)), 0), maxX),
                                        iy = min(max(Int(sy.rounded(.down)), 0), maxY)
                                    let jx = min(ix + 1, maxX), jy = min(iy + 1, maxY)
                                    let fx = min(max(sx - Double(ix), 0), 1), fy = min(max(sy - Double(iy), 0), 1)
                                    var red = 0.0, green = 0.0, blue = 0.0, alpha = 0.0
                                    for (px, py, weight) in [
                                        (ix, iy, (1 - fx) * (1 - fy)), (jx, iy, fx * (1 - fy)),
                                        (ix, jy, (1 - fx) * fy), (jx, jy, fx * fy),
                                    ] where weight > 0 {
                                        let pixel = input + py * inStride + 4 * px
                                        let a = Double(pixel.load(fromByteOffset: 3, as: UInt8.self)) * weight
                                        red += Double(pixel.load(as: UInt8.self)) * a
                                        green += Double(pixel.load(fromByteOffset: 1, as: UInt8.self)) * a
                                        blue += Double(pixel.load(fromByteOffset: 2, as: UInt8.self)) * a
                                        alpha += a
                                    }
                                    // Premultiplied by alpha / 255 from here.
                                    red /= 255
                                    green /= 255
                                    blue /= 255
                                    alpha /= 255
                                    if border > 0 {
                                        let inBorder = min(max(distance + border + 0.5, 0), 1)
                                        red += (edge.r - red) * inBorder
                                        green += (edge.g - green) * inBorder
                                        blue += (edge.b - blue) * inBorder
                                        alpha += (1 - alpha) * inBorder
                                    }
                                    let shown = alpha * coverage * opacity
                                    guard shown > 0.002, alpha > 1e-6 else { continue }
                                    let (ly, cb, cr) = YCbCr.videoRange(
                                        red: red / alpha / 255, green: green / alpha / 255, blue: blue / alpha / 255,
                                        matrix: matrix)
                                    let weight = Int32((min(shown, 1) * 256).rounded())
                                    mix(luma + y * lumaStride, x, ly, weight)
                                    if x % 2 == 0, y % 2 == 0 {
                                        mix(cbPlane + (y / 2) * cbStride, x / 2, cb, weight)
                                        mix(crPlane + (y / 2) * crStride, x / 2, cr, weight)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func mix(_ row: UnsafeMutableRawPointer, _ column: Int, _ value: UInt8, _ weight: Int32) {
        let old = Int32(row.load(fromByteOffset: column, as: UInt8.self))
        let mixed = (Int32(value) * weight + old * (256 - weight) + 128) >> 8
        row.storeBytes(of: UInt8(min(max(mixed, 0), 255)), toByteOffset: column, as: UInt8.self)
    }

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
}

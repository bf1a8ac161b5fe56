import Foundation
import ReelCore

/// Draws layers into a yuv420p frame: fills, straight copies for whole-pixel moves,
/// and bilinear sampling through the inverse transform for everything else, each
/// blended by opacity. Plane by plane, each plane's rows in one band per core
/// (``ParallelRows``): every band writes only its own rows.
enum Compositor {
    /// A pixel coordinate from a rounded Double, held to ±2^40 (far off any frame) so that
    /// an overlay placed at 1e300 is simply not drawn instead of trapping the conversion.
    static func pixel(_ value: Double) -> Int {
        value.isNaN ? 0 : Int(min(max(value, -0x1p40), 0x1p40))
    }

    /// Whether a transform and its inverse stay in a range where every sampled coordinate
    /// fits an `Int`: a layer scaled past a million or below a millionth covers no pixel
    /// sensibly and is skipped.
    static func isDrawable(_ transform: ReelCore.AffineTransform, _ inverse: ReelCore.AffineTransform) -> Bool {
        [transform.a, transform.b, transform.c, transform.d, inverse.a, inverse.b, inverse.c, inverse.d].allSatisfy { abs($0) <= 1e6 }
            && [transform.tx, transform.ty, inverse.tx, inverse.ty].allSatisfy { abs($0) <= 1e12 }
    }

    /// Fills the frame with a colour (black unless told), in video range.
    /// - Parameters:
    ///   - frame: A yuv420p frame.
    ///   - red: 0 to 1.
    ///   - green: 0 to 1.
    ///   - blue: 0 to 1.
    ///   - matrix: The frame's YCbCr matrix (the output's: BT.601 below 720 lines).
    static func clear(_ frame: PixelBuffer, red: Double = 0, green: Double = 0, blue: Double = 0, matrix: ColorMatrix) {
        let (y, cb, cr) = yuv(red: red, green: green, blue: blue, matrix: matrix)
        frame.fill(planeValues: [y, cb, cr])
    }

    /// Video-range YCbCr of an RGB colour given from 0 to 1, by the frame's matrix (``YCbCr`` in ReelCore).
    static func yuv(red: Double, green: Double, blue: Double, matrix: ColorMatrix) -> (UInt8, UInt8, UInt8) {
        YCbCr.videoRange(red: red, green: green, blue: blue, matrix: matrix)
    }

    /// Draws `source` into `target` through `transform` (source pixels → target pixels)
    /// at `opacity`, optionally only the `crop` part of the source.
    static func draw(_ source: PixelBuffer, into target: PixelBuffer, transform: ReelCore.AffineTransform,
                     opacity: Double, crop: Rect? = nil) {
        guard opacity > 0.001, let inverse = transform.inverted(), isDrawable(transform, inverse) else { return }
        let alpha = Int32((min(opacity, 1) * 256).rounded())
        let clip = crop ?? Rect(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        // A pure move (a push in progress, a clip placed in a frame) lands on the nearest even
        // pixel, so every plane copies exactly: a sub-pixel blur buys nothing at 25 moves a second.
        let nearlyUnit = abs(transform.a - 1) < 1e-9 && abs(transform.d - 1) < 1e-9 && transform.b == 0 && transform.c == 0
        if nearlyUnit, crop == nil {
            let dx = pixel((transform.tx / 2).rounded()) * 2, dy = pixel((transform.ty / 2).rounded()) * 2
            for plane in 0..<3 {
                let scale = plane == 0 ? 1 : 2
                copyShifted(source, target, plane: plane, dx: dx / scale, dy: dy / scale, alpha: alpha)
            }
            return
        }
        let axisAligned = transform.b == 0 && transform.c == 0
        for plane in 0..<3 {
            let scale = plane == 0 ? 1.0 : 0.5
            let sourcePlane = source.planes[plane], targetPlane = target.planes[plane]
            // Plane coordinates: chroma samples sit at twice the distance.
            let a = inverse.a, b = inverse.b, c = inverse.c, d = inverse.d
            let tx = inverse.tx * scale, ty = inverse.ty * scale
            let limitX = min(Double(sourcePlane.width), clip.maxX * scale), limitY = min(Double(sourcePlane.height), clip.maxY * scale)
            let lowX = max(0, clip.minX * scale), lowY = max(0, clip.minY * scale)
            // The target rows and columns the transformed source can reach.
            let box = Rect(x: lowX, y: lowY, width: limitX - lowX, height: limitY - lowY)
                .applying(ReelCore.AffineTransform(a: transform.a, b: transform.b, c: transform.c, d: transform.d,
                                                   tx: transform.tx * scale, ty: transform.ty * scale))
            let rowStart = max(0, pixel(box.minY.rounded(.down))), rowEnd = min(targetPlane.height, pixel(box.maxY.rounded(.up)) + 1)
            let columnStart = max(0, pixel(box.minX.rounded(.down))), columnEnd = min(targetPlane.width, pixel(box.maxX.rounded(.up)) + 1)
            guard rowEnd > rowStart, columnEnd > columnStart else { continue }
            if axisAligned {
                drawScaled(source, into: target, plane: plane, a: a, d: d, tx: tx, ty: ty, rows: rowStart..<rowEnd,
                           columns: columnStart..<columnEnd, low: (lowX, lowY), limit: (limitX, limitY), alpha: alpha)
                continue
            }
            source.withPlane(plane) { input, inStride in
                target.withMutablePlane(plane) { output, outStride in
                    let maxX = Int(sourcePlane.width) - 1, maxY = Int(sourcePlane.height) - 1
                    ParallelRows.run(rows: rowEnd - rowStart) { band in
                    for row in band.lowerBound + rowStart..<band.upperBound + rowStart {
                        let out = output + row * outStride
                        let py = Double(row) + 0.5
                        for column in columnStart..<columnEnd {
                            let px = Double(column) + 0.5
                            let sx = a * px + c * py + tx - 0.5, sy = b * px + d * py + ty - 0.5
                            guard sx >= lowX - 0.5, sy >= lowY - 0.5, sx <= limitX - 0.5, sy <= limitY - 0.5 else { continue }
                            let x0 = min(max(Int(sx.rounded(.down)), 0), maxX), y0 = min(max(Int(sy.rounded(.down)), 0), maxY)
                            let x1 = min(x0 + 1, maxX), y1 = min(y0 + 1, maxY)
                            let fx = Int32(((sx - Double(x0)) * 256).rounded()), fy = Int32(((sy - Double(y0)) * 256).rounded())
                            let clampedFx = min(max(fx, 0), 256), clampedFy = min(max(fy, 0), 256)
                            let p00 = Int32(input.load(fromByteOffset: y0 * inStride + x0, as: UInt8.self))
                            let p10 = Int32(input.load(fromByteOffset: y0 * inStride + x1, as: UInt8.self))
                            let p01 = Int32(input.load(fromByteOffset: y1 * inStride + x0, as: UInt8.self))
                            let p11 = Int32(input.load(fromByteOffset: y1 * inStride + x1, as: UInt8.self))
                            let top = p00 * 256 + (p10 - p00) * clampedFx, bottom = p01 * 256 + (p11 - p01) * clampedFx
                            let value = (top * 256 + (bottom - top) * clampedFy + 32_768) >> 16
                            blend(out, column, value, alpha)
                        }
                    }
                    }
                }
            }
        }
    }

    /// Bilinear sampling for scales and moves without a turn: the source column and weight of
    /// every target column are worked out once per plane, the row once per row.
    private static func drawScaled(_ source: PixelBuffer, into target: PixelBuffer, plane: Int, a: Double, d: Double,
                                   tx: Double, ty: Double, rows: Range<Int>, columns: Range<Int>,
                                   low: (Double, Double), limit: (Double, Double), alpha: Int32) {
        let sourcePlane = source.planes[plane]
        let maxX = sourcePlane.width - 1, maxY = sourcePlane.height - 1
        var x0s: [Int] = [], x1s: [Int] = [], fxs: [Int32] = [], inside: [Bool] = []
        x0s.reserveCapacity(columns.count)
        for column in columns {
            let sx = a * (Double(column) + 0.5) + tx - 0.5
            inside.append(sx >= low.0 - 0.5 && sx <= limit.0 - 0.5)
            let x0 = min(max(Int(sx.rounded(.down)), 0), maxX)
            x0s.append(x0)
            x1s.append(min(x0 + 1, maxX))
            fxs.append(min(max(Int32(((sx - Double(x0)) * 256).rounded()), 0), 256))
        }
        source.withPlane(plane) { input, inStride in
            target.withMutablePlane(plane) { output, outStride in
                ParallelRows.run(rows: rows.count) { band in
                for row in band.lowerBound + rows.lowerBound..<band.upperBound + rows.lowerBound {
                    let sy = d * (Double(row) + 0.5) + ty - 0.5
                    guard sy >= low.1 - 0.5, sy <= limit.1 - 0.5 else { continue }
                    let y0 = min(max(Int(sy.rounded(.down)), 0), maxY), y1 = min(y0 + 1, maxY)
                    let fy = min(max(Int32(((sy - Double(y0)) * 256).rounded()), 0), 256)
                    let top = input + y0 * inStride, bottom = input + y1 * inStride
                    let out = output + row * outStride
                    for (index, column) in columns.enumerated() where inside[index] {
                        let x0 = x0s[index], x1 = x1s[index], fx = fxs[index]
                        let p00 = Int32(top.load(fromByteOffset: x0, as: UInt8.self))
                        let p10 = Int32(top.load(fromByteOffset: x1, as: UInt8.self))
                        let p01 = Int32(bottom.load(fromByteOffset: x0, as: UInt8.self))
                        let p11 = Int32(bottom.load(fromByteOffset: x1, as: UInt8.self))
                        let upper = p00 * 256 + (p10 - p00) * fx, lower = p01 * 256 + (p11 - p01) * fx
                        blend(out, column, (upper * 256 + (lower - upper) * fy + 32_768) >> 16, alpha)
                    }
                }
                }
            }
        }
    }

    @inline(__always)
    private static func blend(_ row: UnsafeMutableRawPointer, _ column: Int, _ value: Int32, _ alpha: Int32) {
        if alpha >= 256 {
            row.storeBytes(of: UInt8(min(max(value, 0), 255)), toByteOffset: column, as: UInt8.self)
        } else {
            let old = Int32(row.load(fromByteOffset: column, as: UInt8.self))
            let mixed = (value * alpha + old * (256 - alpha) + 128) >> 8
            row.storeBytes(of: UInt8(min(max(mixed, 0), 255)), toByteOffset: column, as: UInt8.self)
        }
    }

    /// Whole-pixel moves: rows copied (or blended) with an offset, exact.
    private static func copyShifted(_ source: PixelBuffer, _ target: PixelBuffer, plane: Int, dx: Int, dy: Int, alpha: Int32) {
        let sourcePlane = source.planes[plane], targetPlane = target.planes[plane]
        let columnStart = max(0, dx), columnEnd = min(targetPlane.width, sourcePlane.width + dx)
        let rowStart = max(0, dy), rowEnd = min(targetPlane.height, sourcePlane.height + dy)
        guard columnEnd > columnStart, rowEnd > rowStart else { return }
        source.withPlane(plane) { input, inStride in
            target.withMutablePlane(plane) { output, outStride in
                ParallelRows.run(rows: rowEnd - rowStart) { band in
                for row in band.lowerBound + rowStart..<band.upperBound + rowStart {
                    let from = input + (row - dy) * inStride + (columnStart - dx)
                    let to = output + row * outStride + columnStart
                    if alpha >= 256 {
                        to.copyMemory(from: from, byteCount: columnEnd - columnStart)
                    } else {
                        for x in 0..<(columnEnd - columnStart) {
                            blend(to, x, Int32(from.load(fromByteOffset: x, as: UInt8.self)), alpha)
                        }
                    }
                }
                }
            }
        }
    }

    /// Fills `rect` (render pixels) with a colour at `opacity`.
    static func fill(_ rect: Rect, in target: PixelBuffer, color: (UInt8, UInt8, UInt8), opacity: Double) {
        guard opacity > 0.001 else { return }
        let alpha = Int32((min(opacity, 1) * 256).rounded())
        let values = [color.0, color.1, color.2]
        for plane in 0..<3 {
            let scale = plane == 0 ? 1.0 : 0.5
            let p = target.planes[plane]
            let x0 = max(0, pixel((rect.minX * scale).rounded())), x1 = min(p.width, pixel((rect.maxX * scale).rounded()))
            let y0 = max(0, pixel((rect.minY * scale).rounded())), y1 = min(p.height, pixel((rect.maxY * scale).rounded()))
            guard x1 > x0, y1 > y0 else { continue }
            let value = Int32(values[plane])
            target.withMutablePlane(plane) { output, stride in
                ParallelRows.run(rows: y1 - y0) { band in
                    for row in band.lowerBound + y0..<band.upperBound + y0 {
                        for column in x0..<x1 { blend(output + row * stride, column, value, alpha) }
                    }
                }
            }
        }
    }

    /// What a styled layer (``LayerStyle``) adds to an RGBA draw, in frame pixels: the part of
    /// the picture shown, rounded corners and a border inside the edge.
    struct LayerShape {
        /// The part of the picture shown, in picture pixels; all of it when nil.
        var crop: Rect?
        /// The corners' radius in frame pixels.
        var cornerRadius: Double
        /// The border's width in frame pixels, inside the edge; 0 for none.
        var borderWidth: Double
        /// The border's colour, R, G, B from 0 to 1.
        var borderColor: (red: Double, green: Double, blue: Double)
    }

    /// Lays an RGBA picture (straight alpha) over the frame through `transform` (picture pixels
    /// → frame pixels: any turn, scale or move), blended by its alpha times `opacity`, its
    /// colours converted by `matrix` (the frame's), over the transformed picture's bounds only.
    ///
    /// Without a `shape` (an overlay), nearest sampling through the inverse transform. With one
    /// (a styled layer), bilinear sampling of premultiplied colour, clamped to the crop, inside a
    /// rectangle with rounded corners whose edges cover the fraction of each pixel they cover,
    /// with the border inside the edge.
    /// - Parameters:
    ///   - picture: An RGBA picture.
    ///   - target: A yuv420p frame.
    ///   - transform: Picture pixels to frame pixels.
    ///   - opacity: 0 to 1.
    ///   - matrix: The frame's YCbCr matrix (the output's, ``ColorMatrix``).
    ///   - shape: A styled layer's crop, corners and border; nil for an overlay.
    static func drawRGBA(_ picture: PixelBuffer, into target: PixelBuffer, transform: ReelCore.AffineTransform,
                         opacity: Double, matrix: ColorMatrix, shape: LayerShape? = nil) {
        guard opacity > 0.001, picture.pixelFormat == .rgba, target.pixelFormat == .yuv420p,
              let inverse = transform.inverted(), isDrawable(transform, inverse) else { return }
        let whole = Rect(x: 0, y: 0, width: Double(picture.width), height: Double(picture.height))
        let area = shape?.crop.map { $0.intersection(whole) } ?? whole
        guard area.width > 0, area.height > 0 else { return }
        let box = area.applying(transform)
        let columns = max(0, pixel(box.minX.rounded(.down)))..<min(target.width, pixel(box.maxX.rounded(.up)))
        let rows = max(0, pixel(box.minY.rounded(.down)))..<min(target.height, pixel(box.maxY.rounded(.up)))
        guard !columns.isEmpty, !rows.isEmpty else { return }
        guard let shape else {
            let width = picture.width, height = picture.height
            blendRGBA(picture, into: target, columns: columns, rows: rows, matrix: matrix) { input, inStride, x, y in
                let p = Point(x: Double(x) + 0.5, y: Double(y) + 0.5).applying(inverse)
                let sx = Int(p.x.rounded(.down)), sy = Int(p.y.rounded(.down))
                guard sx >= 0, sy >= 0, sx < width, sy < height else { return nil }
                let pixel = input + sy * inStride + 4 * sx
                let a = Double(pixel.load(fromByteOffset: 3, as: UInt8.self)) / 255 * opacity
                guard a > 0.004 else { return nil }
                return (Double(pixel.load(as: UInt8.self)) / 255, Double(pixel.load(fromByteOffset: 1, as: UInt8.self)) / 255,
                        Double(pixel.load(fromByteOffset: 2, as: UInt8.self)) / 255, a)
            }
            return
        }
        // Frame pixels per picture pixel (the mean of the two axes' scales).
        let scale = abs(transform.determinant).squareRoot()
        guard scale > 1e-9 else { return }
        let radius = min(max(shape.cornerRadius, 0) / scale, area.width / 2, area.height / 2)
        let border = max(shape.borderWidth, 0)
        let edge = (r: shape.borderColor.red * 255, g: shape.borderColor.green * 255, b: shape.borderColor.blue * 255)
        let lowX = area.minX, lowY = area.minY, highX = area.maxX, highY = area.maxY
        let maxX = picture.width - 1, maxY = picture.height - 1
        blendRGBA(picture, into: target, columns: columns, rows: rows, matrix: matrix) { input, inStride, x, y in
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
            guard coverage > 0 else { return nil }
            // Bilinear, premultiplied, clamped to the part shown.
            let sx = min(max(p.x, lowX + 0.5), highX - 0.5) - 0.5, sy = min(max(p.y, lowY + 0.5), highY - 0.5) - 0.5
            let ix = min(max(Int(sx.rounded(.down)), 0), maxX), iy = min(max(Int(sy.rounded(.down)), 0), maxY)
            let jx = min(ix + 1, maxX), jy = min(iy + 1, maxY)
            let fx = min(max(sx - Double(ix), 0), 1), fy = min(max(sy - Double(iy), 0), 1)
            var red = 0.0, green = 0.0, blue = 0.0, alpha = 0.0
            for (px, py, weight) in [(ix, iy, (1 - fx) * (1 - fy)), (jx, iy, fx * (1 - fy)), (ix, jy, (1 - fx) * fy), (jx, jy, fx * fy)]
            where weight > 0 {
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
            guard shown > 0.002, alpha > 1e-6 else { return nil }
            return (red / alpha / 255, green / alpha / 255, blue / alpha / 255, shown)
        }
    }

    /// The one loop of ``drawRGBA(_:into:transform:opacity:matrix:shape:)``: for each frame pixel
    /// in `columns` × `rows`, `sample` gives the colour there (R, G, B from 0 to 1) and its
    /// weight (0 to 1), or nil for none; it is converted by `matrix` and blended into the luma,
    /// and into the chroma under even rows and columns. Rows in bands (``ParallelRows``): a
    /// chroma sample is written only under an even luma row, so bands never share one.
    @inline(__always)
    private static func blendRGBA(
        _ picture: PixelBuffer, into target: PixelBuffer, columns: Range<Int>, rows: Range<Int>, matrix: ColorMatrix,
        _ sample: (UnsafeRawPointer, Int, Int, Int) -> (red: Double, green: Double, blue: Double, weight: Double)?
    ) {
        picture.withPlane(0) { input, inStride in
        target.withMutablePlane(0) { luma, lumaStride in
        target.withMutablePlane(1) { cbPlane, cbStride in
        target.withMutablePlane(2) { crPlane, crStride in
            ParallelRows.run(rows: rows.count) { band in
                for y in band.lowerBound + rows.lowerBound..<band.upperBound + rows.lowerBound {
                    for x in columns {
                        guard let colour = sample(input, inStride, x, y) else { continue }
                        let (ly, cb, cr) = YCbCr.videoRange(red: colour.red, green: colour.green, blue: colour.blue,
                                                            matrix: matrix)
                        let alpha = Int32((min(colour.weight, 1) * 256).rounded())
                        blend(luma + y * lumaStride, x, Int32(ly), alpha)
                        if x % 2 == 0, y % 2 == 0 {
                            blend(cbPlane + (y / 2) * cbStride, x / 2, Int32(cb), alpha)
                            blend(crPlane + (y / 2) * crStride, x / 2, Int32(cr), alpha)
                        }
                    }
                }
            }
        }
        }
        }
        }
    }
}

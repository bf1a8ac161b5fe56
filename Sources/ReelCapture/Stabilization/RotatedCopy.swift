import Foundation
import ReelCore

/// Copies a turned and moved window of one picture into another, as rows of whole bytes.
///
/// Target pixel `q` (from the target's centre) takes the source pixel nearest to
/// `centre + R(angle)·q`. A small turn is done as two shears, the whole picture at once:
/// the target's columns are cut into strips whose rows all come from one source row
/// offset (`round(centre.y + qx·sin)`), and within a strip each row is one `memcpy` from a
/// source column offset (`round(centre.x − (sourceRow − centre.y)·sin)`). Strips are about
/// `1/sin(angle)` columns wide (57 at 1°), so a turn costs little more than a plain copy, and
/// with no turn it is one copy per row. The two shears scale `x` by `cos²` instead of `cos`:
/// 0.07 pixels at the edge of a 1080p picture at 1°, far under the nearest pixel's rounding.
/// Meant for turns of a few degrees at most (a camera's roll); every read is held inside
/// the source.
enum RotatedCopy {
    /// One plane of the copy.
    /// - Parameters:
    ///   - source: the source plane's first byte and bytes per row, and its size in samples.
    ///   - target: the target plane's first byte and bytes per row, and its size in samples.
    ///   - centre: the source point (in samples, from the source's top-left pixel's centre)
    ///     that lands on the target's centre.
    ///   - angle: the turn, in radians (x right, y down: positive turns clockwise on screen).
    static func copy(from source: UnsafeRawPointer, stride sourceStride: Int, width sourceWidth: Int, height sourceHeight: Int,
                     to target: UnsafeMutableRawPointer, stride targetStride: Int, width targetWidth: Int,
                     height targetHeight: Int, centre: (x: Double, y: Double), angle: Double) {
        guard sourceWidth > 0, sourceHeight > 0, targetWidth > 0, targetHeight > 0 else { return }
        let sine = angle.isFinite ? sin(angle) : 0
        let centreX = centre.x.isFinite ? centre.x : Double(sourceWidth - 1) / 2
        let centreY = centre.y.isFinite ? centre.y : Double(sourceHeight - 1) / 2
        let halfWidth = Double(targetWidth - 1) / 2, halfHeight = Double(targetHeight - 1) / 2
        let copyWidth = min(targetWidth, sourceWidth)
        // Source rows are offset from target rows by a whole number for each strip of columns.
        func rowOffset(_ column: Int) -> Int {
            Self.whole(centreY - halfHeight + (Double(column) - halfWidth) * sine, bound: sourceHeight + targetHeight)
        }
        var start = 0
        while start < copyWidth {
            let offset = rowOffset(start)
            var end = start + 1
            while end < copyWidth, rowOffset(end) == offset { end += 1 }
            let length = end - start
            for row in 0..<targetHeight {
                let sourceRow = min(max(row + offset, 0), sourceHeight - 1)
                let along = centreX - halfWidth - (Double(sourceRow) - centreY) * sine
                let sourceColumn = min(max(start + Self.whole(along, bound: sourceWidth + targetWidth), 0),
                                       sourceWidth - length)
                (target + row * targetStride + start).copyMemory(
                    from: source + sourceRow * sourceStride + sourceColumn, byteCount: length)
            }
            start = end
        }
    }

    /// `value` rounded to the nearest whole number, held within ±`bound`.
    private static func whole(_ value: Double, bound: Int) -> Int {
        let limit = Double(bound)
        return Int(min(max(value, -limit), limit).rounded())
    }

    /// All three planes of a yuv420p picture: the chroma planes at half the centre.
    static func copy(from source: PixelBuffer, into target: PixelBuffer, centre: (x: Double, y: Double), angle: Double) {
        for plane in 0..<min(3, source.planes.count, target.planes.count) {
            let scale = plane == 0 ? 1.0 : 2.0
            let from = source.planes[plane], to = target.planes[plane]
            // The chroma sample (i, j) sits at luma (2i + 0.5, 2j + 0.5).
            let planeCentre = plane == 0 ? centre : ((centre.x - 0.5) / scale, (centre.y - 0.5) / scale)
            source.withPlane(plane) { sourceBase, sourceStride in
                target.withMutablePlane(plane) { targetBase, targetStride in
                    copy(from: sourceBase, stride: sourceStride, width: from.width, height: from.height,
                         to: targetBase, stride: targetStride, width: to.width, height: to.height,
                         centre: planeCentre, angle: angle)
                }
            }
        }
    }
}

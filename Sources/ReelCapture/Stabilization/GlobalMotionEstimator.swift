public import ReelCore

/// Measures how far the whole picture moved from one frame to the next, from its luma.
///
/// Each frame is reduced to a small copy: the mean luma of every column (down every fourth
/// row) and of every row (along every fourth pixel), the picture's two integral projections. The
/// shift between two frames is where their projections match best (the least mean absolute
/// difference over the part they share, within ``searchRange``), refined to a fraction of
/// a pixel by a parabola through the best match and its neighbours. Translation only.
public struct GlobalMotionEstimator: Sendable {
    /// One frame's projections.
    public struct Signature: Sendable {
        /// The mean luma of each column.
        let columns: [Float]
        /// The mean luma of each row.
        let rows: [Float]
    }

    /// The largest shift looked for, in pixels, as a fraction of the picture's height.
    public var searchRange: Double

    public init(searchRange: Double = 0.08) {
        self.searchRange = searchRange
    }

    /// The projections of `picture`'s luma plane.
    public func signature(of picture: PixelBuffer) -> Signature {
        let width = picture.width, height = picture.height
        var columns = [Float](repeating: 0, count: width)
        var rows = [Float](repeating: 0, count: height)
        // Every fourth row makes the columns' means and every fourth pixel the rows': a
        // quarter of the picture read twice over, plenty for a textured scene.
        let step = 4
        picture.withPlane(0) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            columns.withUnsafeMutableBufferPointer { columnSums in
                rows.withUnsafeMutableBufferPointer { rowMeans in
                    for y in 0..<height {
                        let line = base + y * stride
                        var rowSum: UInt32 = 0
                        var x = 0
                        while x < width {
                            rowSum &+= UInt32(line[x])
                            x += step
                        }
                        rowMeans[y] = Float(rowSum) / Float((width + step - 1) / step)
                        if y % step == 0 {
                            for x in 0..<width { columnSums[x] += Float(line[x]) }
                        }
                    }
                }
            }
        }
        let sampledRows = Float((height + step - 1) / step)
        for x in 0..<width { columns[x] /= sampledRows }
        return Signature(columns: columns, rows: rows)
    }

    /// How far the content moved from `previous` to `current`, in pixels (x right, y down):
    /// a point at (x, y) in the previous frame is near (x + dx, y + dy) in the current one.
    public func motion(from previous: Signature, to current: Signature) -> (dx: Double, dy: Double) {
        let reach = max(2, Int((searchRange * Double(current.rows.count)).rounded()))
        return (Self.shift(previous.columns, current.columns, reach: reach), Self.shift(previous.rows, current.rows, reach: reach))
    }

    /// The shift of `b` against `a` that matches best, to a fraction of a sample.
    static func shift(_ a: [Float], _ b: [Float], reach: Int) -> Double {
        let count = min(a.count, b.count)
        let reach = min(reach, count / 4)
        guard reach > 0 else { return 0 }
        // Each profile's mean removed, so that a change of brightness is not taken for motion.
        let meanA = a.prefix(count).reduce(0, +) / Float(count), meanB = b.prefix(count).reduce(0, +) / Float(count)
        var costs = [Float](repeating: 0, count: 2 * reach + 1)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                for (index, s) in (-reach...reach).enumerated() {
                    // b[i + s] against a[i] over the span both have.
                    let low = max(0, -s) + reach, high = min(count, count - s) - reach
                    var sum: Float = 0
                    for i in low..<max(low, high) { sum += abs((pb[i + s] - meanB) - (pa[i] - meanA)) }
                    costs[index] = sum / Float(max(1, high - low))
                }
            }
        }
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }) else { return 0 }
        var offset = 0.0
        if best > 0, best < costs.count - 1 {
            let left = Double(costs[best - 1]), centre = Double(costs[best]), right = Double(costs[best + 1])
            let curvature = left - 2 * centre + right
            if curvature > 1e-9 { offset = max(-0.5, min(0.5, 0.5 * (left - right) / curvature)) }
        }
        return Double(best - reach) + offset
    }
}

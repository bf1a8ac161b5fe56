public import ReelCore

/// Measures how far the whole picture moved from one frame to the next, from its luma.
///
/// Each frame is reduced to a small copy: for each of eight horizontal bands the mean luma
/// of every column (down every other row of the band), and for each of eight vertical
/// stripes the mean luma of every row (along every other pixel): the picture's integral
/// projections, piece by piece, so that a fine texture does not average away. A band's
/// shift between two frames is where its projections match best (the least mean absolute
/// difference over the part they share, within ``searchRange``), refined to a fraction of
/// a pixel by a parabola through the best match and its neighbours; the frame's motion is
/// the median of the bands' (so a thing moving through part of the picture is outvoted).
/// Translation only.
public struct GlobalMotionEstimator: Sendable {
    /// One frame's projections.
    public struct Signature: Sendable {
        /// Per horizontal band, the mean luma of each column.
        let columns: [[Float]]
        /// Per vertical stripe, the mean luma of each row.
        let rows: [[Float]]
    }

    /// The bands (and stripes) a picture is cut into.
    static let bands = 8
    /// The largest shift looked for, in pixels, as a fraction of the picture's height.
    public var searchRange: Double

    public init(searchRange: Double = 0.08) {
        self.searchRange = searchRange
    }

    /// The projections of `picture`'s luma plane.
    public func signature(of picture: PixelBuffer) -> Signature {
        let width = picture.width, height = picture.height, bands = Self.bands
        var columns = [[Float]](repeating: [Float](repeating: 0, count: width), count: bands)
        var rows = [[Float]](repeating: [Float](repeating: 0, count: height), count: bands)
        var bandRows = [Int](repeating: 0, count: bands)
        picture.withPlane(0) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            var y = 0
            while y < height {
                let line = base + y * stride
                let band = min(bands - 1, y * bands / height)
                bandRows[band] += 1
                columns[band].withUnsafeMutableBufferPointer { sums in
                    for x in 0..<width { sums[x] += Float(line[x]) }
                }
                y += 2
            }
            for stripe in 0..<bands {
                let low = stripe * width / bands, high = (stripe + 1) * width / bands
                let count = Float(max(1, (high - low + 1) / 2))
                rows[stripe].withUnsafeMutableBufferPointer { means in
                    for y in 0..<height {
                        let line = base + y * stride
                        var sum: UInt32 = 0
                        var x = low
                        while x < high {
                            sum &+= UInt32(line[x])
                            x += 2
                        }
                        means[y] = Float(sum) / count
                    }
                }
            }
        }
        for band in 0..<bands where bandRows[band] > 0 {
            let count = Float(bandRows[band])
            for x in 0..<width { columns[band][x] /= count }
        }
        return Signature(columns: columns, rows: rows)
    }

    /// How far the content moved from `previous` to `current`, in pixels (x right, y down):
    /// a point at (x, y) in the previous frame is near (x + dx, y + dy) in the current one.
    public func motion(from previous: Signature, to current: Signature) -> (dx: Double, dy: Double) {
        let reach = max(2, Int((searchRange * Double(current.rows.first?.count ?? 0)).rounded()))
        let dx = zip(previous.columns, current.columns).map { Self.shift($0, $1, reach: reach) }
        let dy = zip(previous.rows, current.rows).map { Self.shift($0, $1, reach: reach) }
        return (Self.median(dx), Self.median(dy))
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted(), middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
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

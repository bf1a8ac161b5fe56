public import ReelCore

/// Measures how far the whole picture moved from one frame to the next, from its luma.
///
/// Each frame is reduced to a small copy: for each of eight horizontal bands the mean luma
/// of every column (down every other row of the band, every fourth from 1080 lines), and for
/// each of eight vertical stripes the mean luma of every row (along every other pixel, or
/// fourth): the picture's integral
/// projections, piece by piece, so that a fine texture does not average away. A band's
/// shift between two frames is where its projections match best (the least mean absolute
/// difference over the part they share, within ``searchRange``), refined to a fraction of
/// a pixel by a parabola through the best match and its neighbours; the frame's motion is
/// the median of the bands' (so a thing moving through part of the picture is outvoted).
///
/// ``rigidMotion(from:to:)`` also finds the turn: a picture turned by a small angle θ about
/// its centre moves each band sideways by `−θ·y` (y its distance below the centre) and each
/// stripe down by `θ·x`, so the bands' and stripes' shifts are fitted with a translation and
/// a turn: first by consensus (each two bands and each two stripes propose a turn, and the
/// proposal that most shifts agree with within a pixel is kept), then by least squares over
/// the shifts that agree, so that bands that matched wrongly (a repeating texture can alias
/// several) or a thing moving through part of the picture are left out.
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

    /// An estimator looking for shifts up to `searchRange` of the picture's height.
    /// - Parameter searchRange: The largest shift found, as a fraction of the picture's
    ///   height; larger finds faster shakes and costs more.
    public init(searchRange: Double = 0.08) {
        self.searchRange = searchRange
    }

    /// The projections of `picture`'s luma plane.
    /// - Parameter picture: A frame (its first plane is taken as luma).
    /// - Returns: What ``motion(from:to:)`` compares: a few thousand floats, so that each frame
    ///   is summed once and compared with its successor cheaply.
    public func signature(of picture: PixelBuffer) -> Signature {
        let width = picture.width, height = picture.height, bands = Self.bands
        var columns = [[Float]](repeating: [Float](repeating: 0, count: width), count: bands)
        var rows = [[Float]](repeating: [Float](repeating: 0, count: height), count: bands)
        var bandRows = [Int](repeating: 0, count: bands)
        // Every other row and pixel up to 540 lines, every fourth at 1080: about 30 rows a band.
        let step = max(2, height / 270)
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
                y += step
            }
            for stripe in 0..<bands {
                let low = stripe * width / bands, high = (stripe + 1) * width / bands
                let count = Float(max(1, (high - low + step - 1) / step))
                rows[stripe].withUnsafeMutableBufferPointer { means in
                    for y in 0..<height {
                        let line = base + y * stride
                        var sum: UInt32 = 0
                        var x = low
                        while x < high {
                            sum &+= UInt32(line[x])
                            x += step
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
    /// - Parameters:
    ///   - previous: The earlier frame's signature.
    ///   - current: The later frame's signature, of a picture the same size.
    /// - Returns: The shift, to sub-pixel precision, within ``searchRange``.
    public func motion(from previous: Signature, to current: Signature) -> (dx: Double, dy: Double) {
        let reach = max(2, Int((searchRange * Double(current.rows.first?.count ?? 0)).rounded()))
        let dx = zip(previous.columns, current.columns).map { Self.shift($0, $1, reach: reach) }
        let dy = zip(previous.rows, current.rows).map { Self.shift($0, $1, reach: reach) }
        return (Self.median(dx), Self.median(dy))
    }

    /// How far the content moved and turned from `previous` to `current`, about the picture's
    /// centre: a point at `p` from the centre in the previous frame is near `R(angle)·p + (dx, dy)`
    /// in the current one (pixels, x right, y down; the angle in radians, positive clockwise on screen).
    public func rigidMotion(from previous: Signature, to current: Signature) -> (dx: Double, dy: Double, angle: Double) {
        let width = current.columns.first?.count ?? 0, height = current.rows.first?.count ?? 0
        let reach = max(2, Int((searchRange * Double(height)).rounded()))
        let dx = zip(previous.columns, current.columns).map { Self.shift($0, $1, reach: reach) }
        let dy = zip(previous.rows, current.rows).map { Self.shift($0, $1, reach: reach) }
        // Each band's shift is measured along its middle line, each stripe's down its middle.
        let bandY = dx.indices.map { (Double($0) + 0.5) * Double(height) / Double(dx.count) - Double(height) / 2 }
        let stripeX = dy.indices.map { (Double($0) + 0.5) * Double(width) / Double(dy.count) - Double(width) / 2 }
        // A start that wrongly matched bands cannot move (a repeating texture can alias a
        // good part of them): every two bands, and every two stripes, propose a turn and a
        // shift on their axis, the other axis's shift is the median under that turn, and the
        // proposal most shifts agree with (within a pixel) wins.
        func miss(_ fit: (dx: Double, dy: Double, angle: Double)) -> (x: [Double], y: [Double]) {
            (dx.indices.map { abs(dx[$0] - (fit.dx - fit.angle * bandY[$0])) },
             dy.indices.map { abs(dy[$0] - (fit.dy + fit.angle * stripeX[$0])) })
        }
        var fit = (dx: Self.median(dx), dy: Self.median(dy), angle: 0.0)
        var best = (agreeing: -1, total: Double.infinity)
        func propose(_ candidate: (dx: Double, dy: Double, angle: Double)) {
            let (x, y) = miss(candidate)
            let agreeing = (x + y).filter { $0 <= 1 }.count, total = (x + y).map { min($0, 1) }.reduce(0, +)
            if agreeing > best.agreeing || (agreeing == best.agreeing && total < best.total) {
                best = (agreeing, total)
                fit = candidate
            }
        }
        propose(fit)
        for i in dx.indices {
            for j in dx.indices where j > i {
                let angle = -(dx[j] - dx[i]) / (bandY[j] - bandY[i])
                propose((dx[i] + angle * bandY[i], Self.median(dy.indices.map { dy[$0] - angle * stripeX[$0] }), angle))
            }
        }
        for i in dy.indices {
            for j in dy.indices where j > i {
                let angle = (dy[j] - dy[i]) / (stripeX[j] - stripeX[i])
                propose((Self.median(dx.indices.map { dx[$0] + angle * bandY[$0] }), dy[i] - angle * stripeX[i], angle))
            }
        }
        // Then least squares over the shifts that agree, twice more.
        var keepX: [Bool] = [], keepY: [Bool] = []
        for _ in 0..<3 {
            let (missX, missY) = miss(fit)
            let nextX = missX.map { $0 <= 1 }, nextY = missY.map { $0 <= 1 }
            if nextX == keepX && nextY == keepY { break }
            keepX = nextX
            keepY = nextY
            guard let solved = Self.fit(dx: dx, at: bandY, keeping: keepX, dy: dy, at: stripeX, keeping: keepY) else { break }
            fit = solved
        }
        return fit
    }

    /// Over the kept `shifts` at `positions`: their count, Σp, Σp², Σd and Σp·d (the sums
    /// the normal equations of `fit` take, for each axis).
    private static func sums(of shifts: [Double], at positions: [Double],
                             keeping keep: [Bool]) -> (Double, Double, Double, Double, Double) {
        var n = 0.0, sp = 0.0, spp = 0.0, sd = 0.0, spd = 0.0
        for i in shifts.indices where keep[i] {
            n += 1
            sp += positions[i]
            spp += positions[i] * positions[i]
            sd += shifts[i]
            spd += positions[i] * shifts[i]
        }
        return (n, sp, spp, sd, spd)
    }

    /// The least-squares translation and turn through the kept shifts: `dx[i] ≈ tx − θ·y[i]`,
    /// `dy[j] ≈ ty + θ·x[j]`. Nil when the kept shifts cannot decide them (fewer than two on an axis).
    private static func fit(dx: [Double], at bandY: [Double], keeping keepX: [Bool],
                            dy: [Double], at stripeX: [Double], keeping keepY: [Bool]) -> (dx: Double, dy: Double, angle: Double)? {
        // Normal equations in (tx, ty, θ).
        let (nx, sy, syy, sdx, sydx) = sums(of: dx, at: bandY, keeping: keepX)
        let (ny, sx, sxx, sdy, sxdy) = sums(of: dy, at: stripeX, keeping: keepY)
        guard nx >= 2, ny >= 2 else { return nil }
        // tx = (sdx + θ·sy) / nx, ty = (sdy − θ·sx) / ny; substituted into the θ equation.
        let a = syy + sxx - sy * sy / nx - sx * sx / ny
        guard a > 1e-9 else { return nil }
        let angle = (sxdy - sydx + sy * sdx / nx - sx * sdy / ny) / a
        return ((sdx + angle * sy) / nx, (sdy - angle * sx) / ny, angle)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted(), middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The shift of `b` against `a` that matches best, to a fraction of a sample: first on
    /// the profiles averaged four samples to one over the whole reach, then at full
    /// resolution around the coarse answer.
    static func shift(_ a: [Float], _ b: [Float], reach: Int) -> Double {
        let count = min(a.count, b.count)
        let reach = min(reach, count / 4)
        guard reach > 0 else { return 0 }
        // Each profile's mean removed, so that a change of brightness is not taken for motion.
        let meanA = a.prefix(count).reduce(0, +) / Float(count), meanB = b.prefix(count).reduce(0, +) / Float(count)
        let a = a.prefix(count).map { $0 - meanA }, b = b.prefix(count).map { $0 - meanB }
        var candidates = [-reach...reach]
        let factor = 4
        if reach >= 4 * factor {
            let coarseA = decimated(a, by: factor), coarseB = decimated(b, by: factor)
            let coarseReach = (reach + factor - 1) / factor
            let coarse = costs(coarseA, coarseB, shifts: -coarseReach...coarseReach, margin: coarseReach)
            // The two best coarse answers are both refined: a fine texture can alias at a quarter.
            candidates = coarse.indices.sorted { coarse[$0] < coarse[$1] }.prefix(2).map { best in
                let centre = (best - coarseReach) * factor
                return max(-reach, centre - factor - 1)...min(reach, centre + factor + 1)
            }
        }
        var shifts = -reach...reach
        var fine: [Float] = []
        for candidate in candidates {
            let tried = costs(a, b, shifts: candidate, margin: reach)
            if fine.isEmpty || (tried.min() ?? .infinity) < (fine.min() ?? .infinity) {
                fine = tried
                shifts = candidate
            }
        }
        guard let best = fine.indices.min(by: { fine[$0] < fine[$1] }) else { return 0 }
        var offset = 0.0
        if best > 0, best < fine.count - 1 {
            let left = Double(fine[best - 1]), centre = Double(fine[best]), right = Double(fine[best + 1])
            let curvature = left - 2 * centre + right
            if curvature > 1e-9 { offset = max(-0.5, min(0.5, 0.5 * (left - right) / curvature)) }
        }
        return Double(shifts.lowerBound + best) + offset
    }

    /// The mean absolute difference of `b[i + s]` and `a[i]` for each shift `s`, over the
    /// samples `margin` in from each end (the same span for every shift).
    private static func costs(_ a: [Float], _ b: [Float], shifts: ClosedRange<Int>, margin: Int) -> [Float] {
        let count = min(a.count, b.count)
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                shifts.map { s in
                    let low = max(0, -s) + margin, high = min(count, count - s) - margin
                    var sum: Float = 0
                    var i = low
                    while i < high {
                        sum += abs(pb[i + s] - pa[i])
                        i += 1
                    }
                    return sum / Float(max(1, high - low))
                }
            }
        }
    }

    /// `values` averaged `factor` samples to one.
    private static func decimated(_ values: [Float], by factor: Int) -> [Float] {
        stride(from: 0, to: values.count - factor + 1, by: factor).map { start in
            values[start..<start + factor].reduce(0, +) / Float(factor)
        }
    }
}

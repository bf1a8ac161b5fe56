import ReelCore

/// Notices when the picture has changed a lot and stays changed: a coarse grid of mean
/// luma, compared with the grid from when the subject was last settled. A one-frame
/// flash does not count; the change must last ``persistence`` frames.
struct SubjectAreaMonitor {
    static let columns = 8, rows = 6
    /// Mean luma difference, over the grid, that counts as a new subject.
    static let threshold = 18.0
    static let persistence = 6

    private var reference: [Double]?
    private var changedFrames = 0

    /// Feeds one frame; true when the subject area has just changed.
    mutating func observe(_ picture: PixelBuffer) -> Bool {
        let grid = Self.grid(of: picture)
        guard let reference else {
            self.reference = grid
            return false
        }
        let difference = zip(grid, reference).map { abs($0 - $1) }.reduce(0, +) / Double(grid.count)
        changedFrames = difference > Self.threshold ? changedFrames + 1 : 0
        guard changedFrames >= Self.persistence else { return false }
        self.reference = grid
        changedFrames = 0
        return true
    }

    /// Starts again from the next frame (after focusing on a new point, say).
    mutating func reset() { reference = nil }

    static func grid(of picture: PixelBuffer) -> [Double] {
        var cells = [Double](repeating: 0, count: columns * rows)
        let width = picture.planes[0].width, height = picture.planes[0].height
        guard width >= columns, height >= rows else { return cells }
        picture.withPlane(0) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            // Every 8th pixel of every 8th row is plenty for the mean of a cell.
            for y in Swift.stride(from: 0, to: height, by: 8) {
                let row = y * rows / height
                for x in Swift.stride(from: 0, to: width, by: 8) {
                    cells[row * columns + x * columns / width] += Double(base[y * stride + x])
                }
            }
        }
        let samples = Double(((width + 7) / 8) * ((height + 7) / 8)) / Double(columns * rows)
        return cells.map { $0 / max(samples, 1) }
    }
}

import Foundation
public import ReelCore

/// A grid of frames taken at even intervals, each labelled with its timecode, under
/// a header naming the file: what a person reads faster than a probe.
public struct ContactSheet: Sendable {
    public var columns: Int
    public var rows: Int
    /// Width of each frame in the grid, in pixels.
    public var thumbnailWidth: Int

    /// A sheet of `columns` × `rows` frames.
    /// - Parameters:
    ///   - columns: Frames across.
    ///   - rows: Frames down; the sheet shows `columns × rows` frames spread evenly over the file.
    ///   - thumbnailWidth: Each frame's width in pixels (its height keeps the aspect).
    public init(columns: Int = 4, rows: Int = 3, thumbnailWidth: Int = 320) {
        self.columns = columns
        self.rows = rows
        self.thumbnailWidth = thumbnailWidth
    }

    /// The sheet's size for `track`, from its displayed aspect, before anything is decoded:
    /// a sheet more than ``PixelBuffer/maximumDimension`` on a side cannot be made.
    /// - Parameter track: the video track the cells come from.
    /// - Returns: the sheet's width and height in pixels.
    public func estimatedSize(of track: AssetTrack) -> (width: Int, height: Int) {
        let padding = 8, label = 24, header = 44
        let shown = track.displaySize
        let aspect = shown.width > 0 && shown.height > 0 && (shown.height / shown.width).isFinite ? min(shown.height / shown.width, 4) : 9.0 / 16
        let cellHeight = Int((Double(thumbnailWidth) * aspect).rounded())
        return (padding + columns * (thumbnailWidth + padding), header + rows * (cellHeight + label + padding) + padding)
    }

    /// Renders the sheet of `asset` as an RGBA picture.
    /// - Parameter asset: a movie with a video track.
    /// - Returns: `columns`×`rows` frames spread evenly over the asset, each `thumbnailWidth` wide.
    /// - Throws: ``ReelError`` for an asset without video, or a decode error.
    public func render(_ asset: Asset) throws(ReelError) -> PixelBuffer {
        guard columns >= 1, rows >= 1, columns * rows <= 400, (32...1920).contains(thumbnailWidth) else {
            throw ReelError(.invalidArgument, "a sheet of \(columns)x\(rows) frames \(thumbnailWidth) pixels wide is out of range")
        }
        guard let track = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: asset.url.path)
        }
        let estimate = estimatedSize(of: track)
        guard estimate.width <= PixelBuffer.maximumDimension, estimate.height <= PixelBuffer.maximumDimension else {
            throw ReelError(.invalidArgument,
                            "a sheet of \(columns)x\(rows) frames \(thumbnailWidth) pixels wide would be \(estimate.width)x\(estimate.height), more than \(PixelBuffer.maximumDimension) on a side")
        }
        let count = columns * rows
        let end = track.timeRange.end.isNumeric && track.timeRange.end > .zero ? track.timeRange.end : asset.duration
        let times = (0..<count).map { MediaTime(seconds: end.seconds * (Double($0) + 0.5) / Double(count), preferredTimescale: 1000) }
        let cells: [(PixelBuffer, MediaTime)]
        if end.seconds / Double(count) > 20 {
            // Cells far apart: seeking to each is cheaper than decoding everything between.
            let generator = ImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            generator.maximumSize = Size(width: Double(thumbnailWidth), height: Double(thumbnailWidth) * 4)
            cells = try times.map { (time) throws(ReelError) in try generator.image(at: time) }
        } else {
            cells = try frames(of: asset, track: track, at: times)
        }
        let cellWidth = thumbnailWidth
        let cellHeight = cells.map(\.0.height).max() ?? thumbnailWidth * 9 / 16
        let padding = 8, label = 24, header = 44
        let width = padding + columns * (cellWidth + padding)
        let height = header + rows * (cellHeight + label + padding) + padding
        let sheet = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
        sheet.fillRect(x: 0, y: 0, width: width, height: height, rgba: (28, 28, 30, 255))

        let name = asset.url.lastPathComponent
        let facts = String(format: "%.3f s", asset.duration.seconds)
            + "  \(Int(track.displaySize.width))x\(Int(track.displaySize.height)) \(track.codec)"
            + String(format: "  %.2f fps", track.nominalFrameRate)
        try sheet.draw(try TextImage.render("\(name)   \(facts)", width: width - 2 * padding, height: header - 8,
                                            fontSize: 20, color: "#f0f0f0", x: 0, y: 8), x: padding, y: 4)
        for (index, (picture, time)) in cells.enumerated() {
            let column = index % columns, row = index / columns
            let x = padding + column * (cellWidth + padding)
            let y = header + row * (cellHeight + label + padding)
            sheet.fillRect(x: x, y: y, width: cellWidth, height: cellHeight, rgba: (0, 0, 0, 255))
            try sheet.draw(picture, x: x + (cellWidth - picture.width) / 2, y: y + (cellHeight - picture.height) / 2)
            let stamp = try TextImage.render(Self.timecode(time), width: cellWidth, height: label, fontSize: 16,
                                             color: "#d8d8d8", x: 2, y: 4)
            try sheet.draw(stamp, x: x, y: y + cellHeight)
        }
        return sheet
    }

    /// The frames on screen at `times` (ascending), in one pass over the video: cheaper
    /// than seeking back to a distant keyframe for every cell when the cells are close.
    private func frames(of asset: Asset, track: AssetTrack, at times: [MediaTime]) throws(ReelError) -> [(PixelBuffer, MediaTime)] {
        let natural = track.naturalSize
        let turned = track.orientation?.swapsDimensions ?? false
        let shownWidth = turned ? natural.height : natural.width
        let scale = min(1, Double(thumbnailWidth) / max(shownWidth, 1))
        let width = max(2, Int((natural.width * scale / 2).rounded()) * 2)
        let height = max(2, Int((natural.height * scale / 2).rounded()) * 2)
        let reader = try AssetReader(asset: asset)
        // Every frame is read as decoded (a plain copy); only the chosen ones are scaled to RGBA and turned.
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p))
        // Only the pictures on screen at a cell's time are copied out (and those before the
        // first cell, in case the track starts after it); the rest are decoded only when
        // another picture is predicted from them.
        let first = times.first ?? .zero
        output.picturesWanted = { interval in
            interval.start <= first || times.contains { interval.start <= $0 && $0 < interval.end }
        }
        try reader.add(output)
        try reader.startReading()
        var result: [(PixelBuffer, MediaTime)] = []
        var current = try output.copyNextSampleBuffer()
        var upcoming = try output.copyNextSampleBuffer()
        for time in times {
            while let next = upcoming, next.presentationTime <= time {
                current = next
                upcoming = try output.copyNextSampleBuffer()
            }
            guard let frame = current, let picture = frame.pixelBuffer else {
                throw ReelError(.invalidData, "has no video frames to draw", subject: asset.url.path)
            }
            var thumbnail = try PixelScaler.converted(picture, to: .rgba, width: width, height: height)
            if let orientation = track.orientation, orientation != .up { thumbnail = try thumbnail.oriented(orientation) }
            result.append((thumbnail, frame.presentationTime))
        }
        reader.cancelReading()
        return result
    }

    /// `HH:MM:SS.mmm`.
    static func timecode(_ time: MediaTime) -> String {
        let millis = Int((max(time.seconds, 0) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60,
                      millis % 1000)
    }
}

public import Foundation
import ReelAV
import ReelAsset
public import ReelCore

/// A movie's pictures as an animated GIF, an animated WebP or a numbered PNG sequence:
/// what `reel compose SPEC -o out.gif` (or `.webp`, or `frame-%04d.png`) writes after
/// rendering the composition. A GIF's palette comes from FFmpeg's `palettegen` and
/// `paletteuse`, made from the whole file's colours or from each scene's, with the
/// dithering asked for; every picture keeps its time (a GIF's to the hundredth of a second).
public enum AnimatedExport {
    /// What to write.
    public enum Format: Sendable, Equatable {
        case gif
        case webp
        /// One PNG per picture, named by a `printf` pattern with one `%d` (`frame-%04d.png`), numbered from 1.
        case pngSequence
    }

    /// Where a GIF's palettes come from.
    public enum Palette: String, Sendable, CaseIterable {
        /// One palette from every picture's colours.
        case file
        /// A palette per scene (clip): each made from its own pictures' colours.
        case scene
    }

    /// How a GIF's palette is applied, as `paletteuse`'s `dither` names it.
    public static let ditherings = ["sierra2_4a", "sierra2", "floyd_steinberg", "bayer", "heckbert", "none"]

    /// The output's format by its name: `.gif`, `.webp`, or a `.png` name with a `%d` pattern.
    /// - Parameter url: The output file.
    /// - Returns: The format, or nil for a movie.
    public static func format(of url: URL) -> Format? {
        switch url.pathExtension.lowercased() {
        case "gif": .gif
        case "webp": .webp
        case "png" where url.lastPathComponent.contains("%"): .pngSequence
        default: nil
        }
    }

    /// Writes `movie`'s pictures to `url`.
    /// - Parameters:
    ///   - movie: A rendered movie (the composition exported).
    ///   - url: The GIF or WebP file, or the PNG name pattern.
    ///   - format: What to write.
    ///   - palette: For a GIF: one palette, or one per scene.
    ///   - dither: For a GIF: one of ``ditherings``.
    ///   - sceneStarts: When each scene after the first starts (the clips' starts), for
    ///     palettes per scene.
    ///   - loop: How many more times it plays; 0 for ever.
    /// - Returns: How many pictures were written.
    /// - Throws: ``ReelError`` for an unknown dithering, a bad pattern, or a read or write failure.
    ///   A GIF or WebP appears only when complete.
    @discardableResult
    public static func write(_ movie: URL, to url: URL, format: Format, palette: Palette = .file, dither: String = "sierra2_4a",
                             sceneStarts: [MediaTime] = [], loop: Int = 0) throws(ReelError) -> Int {
        guard ditherings.contains(dither) else {
            throw ReelError(.invalidArgument, "is \(ditherings.joined(separator: ", ")), not '\(ReelError.quoted(dither))'",
                            subject: "dither")
        }
        let asset = try Asset(url: movie)
        guard let video = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: movie.path)
        }
        let width = Int(video.naturalSize.width) & ~1, height = Int(video.naturalSize.height) & ~1
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: video, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p,
                                                                                              width: width, height: height))
        try reader.add(output)
        try reader.startReading()
        if format == .pngSequence {
            return try writeSequence(output, to: try SequencePattern(url))
        }
        let partial = TemporaryOutput(beside: url)
        defer { partial.release() }
        do throws(ReelError) {
            let timeBase = format == .gif ? Rational(1, 100) : Rational(1, 1000)
            // The movie's pictures are in its own matrix (ColorMatrix's rule at its height, as its
            // encoder tagged it): a GIF's palette is RGB from them, and WebP's VP8 is BT.601.
            let matrix = ColorMatrix(height: height)
            let chain = format == .gif
                ? "scale=in_color_matrix=\(matrix.scaleFilterName):in_range=tv:out_range=pc,split[a][b];"
                    + "[a]palettegen=stats_mode=full[p];[b][p]paletteuse=dither=\(dither)"
                : matrix == .bt601 ? "null" : "scale=in_color_matrix=bt709:out_color_matrix=bt601"
            let writer = try AnimatedImageWriter(path: partial.url.path, kind: format == .gif ? .gif : .webp, width: width,
                                                 height: height, timeBase: timeBase, chain: chain, loop: loop)
            var scenes = sceneStarts.filter { $0 > .zero }.sorted()[...]
            var count = 0
            var last: Int64 = -1
            while let sample = try output.copyNextSampleBuffer() {
                guard let picture = sample.pixelBuffer else { continue }
                if palette == .scene, format == .gif, let next = scenes.first, sample.presentationTime >= next {
                    while let next = scenes.first, sample.presentationTime >= next { scenes.removeFirst() }
                    try writer.startScene()
                }
                let scaled = sample.presentationTime.convertScale(timeBase.denominator, method: .roundHalfAwayFromZero)
                // Two pictures closer than the time base: the later one alone is kept.
                guard scaled.isNumeric, scaled.value > last else { continue }
                last = scaled.value
                try writer.append(picture, at: scaled.value)
                count += 1
            }
            try writer.finish()
            try AssetWriter.moveIntoPlace(partial.url, destination: url)
            return count
        } catch {
            partial.discard()
            throw error.renamingSubject(partial.url.path, to: url.path)
        }
    }

    /// The pictures as PNG files named by `pattern`, numbered from 1. They are written into a
    /// hidden folder beside, then moved into place once every one is written, so that a failure
    /// or an interruption leaves nothing half done.
    private static func writeSequence(_ output: AssetReaderTrackOutput, to pattern: SequencePattern) throws(ReelError) -> Int {
        let staging = pattern.folder.appendingPathComponent(".\(pattern.name(0)).reel-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw ReelError(.io, "cannot write the pictures here: \((error as NSError).localizedDescription)", subject: pattern.folder.path)
        }
        InProgressFiles.add(staging)
        defer {
            try? FileManager.default.removeItem(at: staging)
            InProgressFiles.remove(staging)
        }
        var count = 0
        while let sample = try output.copyNextSampleBuffer() {
            guard let picture = sample.pixelBuffer else { continue }
            count += 1
            try ImageFile.write(picture, to: staging.appendingPathComponent(pattern.name(count)), format: .png)
        }
        for number in stride(from: 1, through: count, by: 1) {
            let name = pattern.name(number)
            try AssetWriter.moveIntoPlace(staging.appendingPathComponent(name), destination: pattern.folder.appendingPathComponent(name))
        }
        return count
    }
}

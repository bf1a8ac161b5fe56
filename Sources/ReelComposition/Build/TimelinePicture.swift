import Foundation
import ReelAsset
public import ReelCore

/// A picture of a composition over time: a row per track with its clips (named),
/// the overlaps where transitions happen, a row per overlay showing what it draws and when
/// it animates or reveals its words, and a row of subtitle cues.
public enum TimelinePicture {
    /// Renders the timeline `width` pixels wide as RGBA.
    /// - Parameters:
    ///   - composition: The edit to draw.
    ///   - video: Its video composition, for the overlays' rows; nil for none.
    ///   - width: The picture's width in pixels (the height follows the rows).
    ///   - lanes: Names for tracks that are layers over the main track (`layer 0`,
    ///     `layer 0 sound`, as ``BuiltComposition/layerTracks`` gives them): drawn as lanes
    ///     of their own, with where each layer sits, and not counted as transitions.
    ///   - subtitles: Subtitle cues to draw in a row of their own (a spec's `subtitles`,
    ///     burned or not); none for no row.
    ///   - audioMix: The sound's volumes over time (a spec's clip volumes and fades, the
    ///     transitions' crossfades, `audio.volume`): drawn over each sound clip as a volume
    ///     line, as an editor draws it, its fades as ramps. Nil draws every clip at 1.
    /// - Returns: The picture, to look at an edit without playing it.
    /// - Throws: ``ReelError`` when the picture cannot be made or its text drawn.
    public static func render(_ composition: MutableComposition, video: VideoComposition?, width: Int = 1600,
                              lanes: [Int: String] = [:], subtitles: [SubtitleDocument.Cue] = [],
                              audioMix: AudioMix? = nil) throws(ReelError) -> PixelBuffer {
        let duration = max(composition.duration.seconds, 0.001)
        let overlays = video?.animationTool?.sublayers ?? []
        let rows = composition.tracks.count + overlays.count + (subtitles.isEmpty ? 0 : 1)
        let margin = 110, rowHeight = 44, axis = 30
        let height = axis + rows * rowHeight + 20
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
        picture.fillRect(x: 0, y: 0, width: width, height: height, rgba: (24, 24, 28, 255))
        let span = Double(width - margin - 20)
        // Held to the drawn span: an animation that begins past the end sits at the end
        // (and a begin of 1e19 seconds cannot overflow the conversion).
        func x(_ seconds: Double) -> Int {
            margin + Int((min(max(seconds.isNaN ? 0 : seconds, 0), duration) / duration * span).rounded())
        }

        // Axis: a tick and label every few seconds.
        let step = [1.0, 2, 5, 10, 30, 60, 300].first { duration / $0 <= 12 } ?? 600
        var tick = 0.0
        while tick <= duration + 1e-9 {
            picture.fillRect(x: x(tick), y: axis - 8, width: 1, height: height - axis, rgba: (60, 60, 66, 255))
            try picture.draw(try TextImage.render(String(format: tick.rounded() == tick ? "%.0f s" : "%.1f s", tick), width: 70,
                                                  height: 22, fontSize: 13, color: "#a0a0a8"), x: x(tick) + 2, y: 2)
            tick += step
        }
        let palette: [(UInt8, UInt8, UInt8)] = [(70, 130, 200), (220, 140, 60), (90, 170, 110), (190, 90, 160), (200, 190, 80)]
        var row = 0
        var clipColour: [URL: (UInt8, UInt8, UInt8)] = [:]
        for track in composition.tracks {
            let y = axis + row * rowHeight
            let lane = lanes[track.trackID]
            if lane != nil { picture.fillRect(x: 0, y: y + 2, width: width, height: rowHeight - 4, rgba: (34, 34, 44, 255)) }
            try picture.draw(try TextImage.render(lane ?? "\(track.mediaType) \(track.trackID)", width: margin - 8, height: 24,
                                                  fontSize: 14, color: lane == nil ? "#e0e0e0" : "#c0c0ff"), x: 6, y: y + 10)
            for segment in track.segments where !segment.isEmpty {
                guard let url = segment.sourceURL else { continue }
                let colour = clipColour[url] ?? palette[clipColour.count % palette.count]
                clipColour[url] = colour
                let start = x(segment.timeMapping.target.start.seconds), end = x(segment.timeMapping.target.end.seconds)
                let shade: UInt8 = track.mediaType == .audio ? 40 : 0
                picture.fillRect(x: start, y: y + 6, width: max(1, end - start - 1), height: rowHeight - 12,
                                 rgba: (colour.0 &- shade, colour.1 &- shade, colour.2 &- shade, 255))
                var label = url.lastPathComponent
                // A still's one frame is held for its duration: that is no speed to show.
                // (A PNG sequence, f-%04d.png, is a movie.)
                let still = ["jpg", "jpeg", "png", "webp", "bmp", "tif", "tiff"].contains(url.pathExtension.lowercased())
                    && !Asset.isImageSequence(url)
                if still {
                    label += " (still)"
                } else if segment.timeMapping.source.duration <= MediaTime(value: 1, timescale: 1000), segment.rate < 1 {
                    label += " (freeze)"
                } else if abs(segment.rate - 1) > 1e-6 {
                    label += String(format: " ×%.2g", segment.rate)
                }
                label += Self.styleNote(of: track, at: segment.timeMapping.target, in: video, lane: lane != nil)
                try picture.draw(try TextImage.render(label, width: max(1, end - start - 6), height: 22, fontSize: 13,
                                                      color: "#101010"), x: start + 4, y: y + 14)
                if track.mediaType == .audio {
                    drawVolumeLine(on: picture, over: segment.timeMapping.target, of: track.trackID, mix: audioMix,
                                   columns: start..<max(start + 1, end - 1), top: y + volumeInset,
                                   bottom: y + rowHeight - volumeInset) { column in
                        (Double(column - margin) / span) * duration
                    }
                }
            }
            row += 1
        }
        // Transitions: where two video layers share an instruction.
        // (Layers over the main track are drawn in lanes of their own, not as transitions.)
        for instruction in video?.instructions ?? [] where instruction.layerInstructions.filter({ lanes[$0.trackID] == nil }).count > 1 {
            let start = x(instruction.timeRange.start.seconds), end = x(instruction.timeRange.end.seconds)
            let top = axis, bottom = axis + composition.tracks(withMediaType: .video).filter({ lanes[$0.trackID] == nil }).count * rowHeight
            for stripe in stride(from: start, to: end, by: 8) {
                picture.fillRect(x: stripe, y: top + 2, width: 1, height: bottom - top - 4, rgba: (235, 235, 240, 255))
            }
        }
        for (index, layer) in overlays.enumerated() {
            let y = axis + row * rowHeight
            try picture.draw(try TextImage.render("overlay \(index)", width: margin - 8, height: 24, fontSize: 14,
                                                  color: "#e0e0e0"), x: 6, y: y + 10)
            // What it draws, over the whole edit (an overlay shows throughout unless animated).
            picture.fillRect(x: x(0), y: y + 14, width: max(2, x(duration) - x(0)), height: rowHeight - 28, rgba: (58, 58, 74, 255))
            try picture.draw(try TextImage.render(contentNote(layer), width: max(1, x(duration) - x(0) - 4), height: 20,
                                                  fontSize: 12, color: "#c8c8d8"), x: x(0) + 3, y: y + 12)
            for animation in layer.animations {
                let start = x(animation.beginTime), end = x(min(duration, animation.beginTime + animation.duration))
                picture.fillRect(x: start, y: y + 10, width: max(2, end - start), height: rowHeight - 20, rgba: (240, 220, 60, 255))
                try picture.draw(try TextImage.render(animation.keyPath.rawValue, width: max(1, end - start - 4), height: 20,
                                                      fontSize: 12, color: "#101010"), x: start + 3, y: y + 12)
            }
            if let reveal = layer.textReveal, case .text(let text, _, _) = layer.content {
                // A tick where each word or line starts to appear, over the reveal's span.
                let units = reveal.unit == .word ? text.split(whereSeparator: \.isWhitespace).count
                    : text.split(separator: "\n", omittingEmptySubsequences: true).count
                let last = reveal.beginTime + reveal.interval * Double(max(0, units - 1))
                let start = x(reveal.beginTime), end = x(min(duration, last + reveal.duration))
                picture.fillRect(x: start, y: y + rowHeight - 12, width: max(2, end - start), height: 6, rgba: (110, 190, 250, 255))
                for unit in 0..<min(units, 1000) {
                    let tick = x(reveal.beginTime + reveal.interval * Double(unit))
                    picture.fillRect(x: tick, y: y + rowHeight - 16, width: 2, height: 10, rgba: (210, 235, 255, 255))
                }
            }
            row += 1
        }
        if !subtitles.isEmpty {
            let y = axis + row * rowHeight
            try picture.draw(try TextImage.render("subtitles", width: margin - 8, height: 24, fontSize: 14, color: "#e0e0e0"),
                             x: 6, y: y + 10)
            for cue in subtitles.prefix(10_000) {
                let start = x(Double(cue.start) / 1000), end = x(Double(cue.end) / 1000)
                picture.fillRect(x: start, y: y + 10, width: max(2, end - start), height: rowHeight - 20, rgba: (236, 236, 236, 255))
                // SubRip's <i>, <b> and <u> tags are the cue's style, not its words.
                let words = ["<i>", "</i>", "<b>", "</b>", "<u>", "</u>"]
                    .reduce(cue.text.replacingOccurrences(of: "\n", with: " ")) { $0.replacingOccurrences(of: $1, with: "") }
                if end - start > 12 {
                    try picture.draw(try TextImage.render(String(words.prefix(80)), width: end - start - 4, height: 20, fontSize: 12,
                                                          color: "#101010"), x: start + 3, y: y + 12)
                }
            }
        }
        return picture
    }

    /// The volume line's colour.
    static let volumeLineColour: (UInt8, UInt8, UInt8, UInt8) = (255, 228, 64, 255)
    /// How far inside a row the volume line's 0 and 4 lie.
    static let volumeInset = 8

    /// Where volume `gain` sits between a sound clip's 0 (0) and its top (1): unity at three
    /// quarters of the height, as an editor leaves room above it, and up to 4 (`clips[].audio.volume`'s
    /// most) in the last quarter.
    /// - Parameter gain: The volume, 0 silent, 1 unchanged.
    /// - Returns: The height as a fraction, 0 to 1.
    static func volumeHeight(_ gain: Double) -> Double {
        let v = gain.isFinite ? max(gain, 0) : 0
        return v <= 1 ? 0.75 * v : 0.75 + 0.25 * min(v - 1, 3) / 3
    }

    /// A volume line over a sound clip's bar, two pixels thick, joined from column to column so
    /// a ramp or a step reads as one line.
    static func drawVolumeLine(on picture: PixelBuffer, over range: MediaTimeRange, of trackID: Int, mix: AudioMix?,
                               columns: Range<Int>, top: Int, bottom: Int, seconds: (Int) -> Double) {
        var previous: Int?
        for column in columns {
            // Inside the clip: at its very end a fade-out's volume is already set back for what follows.
            let inside = min(max(seconds(column), range.start.seconds), range.end.seconds - 0.001)
            let time = MediaTime(seconds: inside, preferredTimescale: 90000)
            let gain = mix?.volume(ofTrack: trackID, at: time) ?? 1
            let y = bottom - Int((volumeHeight(gain) * Double(bottom - top)).rounded())
            let from = min(y, previous ?? y), to = max(y, previous ?? y)
            picture.fillRect(x: column, y: from - 1, width: 1, height: to - from + 2, rgba: volumeLineColour)
            previous = y
        }
    }

    /// What an overlay draws, for its row: its text (shortened), a picture, a colour.
    static func contentNote(_ layer: OverlayLayer) -> String {
        switch layer.content {
        case .text(let text, _, _):
            let line = text.replacingOccurrences(of: "\n", with: " ")
            return "text \u{201C}" + (line.count > 40 ? String(line.prefix(39)) + "\u{2026}" : line) + "\u{201D}"
        case .image: return "picture"
        case .color: return "colour"
        case .none: return layer.sublayers.isEmpty ? "group" : "group of \(layer.sublayers.count)"
        }
    }

    /// What a segment's layer instruction adds to its label: a layer's rectangle, and a look,
    /// key, corners or border.
    static func styleNote(of track: CompositionTrack, at range: MediaTimeRange, in video: VideoComposition?, lane: Bool) -> String {
        guard track.mediaType == .video, let video else { return "" }
        let middle = range.start + range.duration.multiplied(byRatio: 1, divisor: 2)
        guard let layer = video.instruction(at: middle)?.layerInstructions.first(where: { $0.trackID == track.trackID }) else {
            return ""
        }
        var notes: [String] = []
        if lane {
            let box = Rect(origin: .zero, size: track.naturalSize).applying(layer.transform(at: middle))
            notes.append(String(format: "at %.0f,%.0f %.0fx%.0f", box.minX, box.minY, box.width, box.height))
        }
        if let style = layer.style {
            if !style.filterName.isEmpty { notes.append(style.filterName.count > 24 ? "look" : style.filterName) }
            if style.chromaKey != nil { notes.append("key") }
            if style.cornerRadius > 0 || style.borderWidth > 0 { notes.append("framed") }
        }
        return notes.isEmpty ? "" : " [" + notes.joined(separator: ", ") + "]"
    }
}

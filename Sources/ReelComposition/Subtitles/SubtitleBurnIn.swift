import Foundation
import ReelAV
public import ReelCore

/// Subtitles burned into a composition's pictures by libass: a checked subtitle file and,
/// for SubRip, how its text looks. Set as ``VideoComposition/subtitleBurnIn``; each
/// picture whose time falls inside a cue goes through libass (the others are left as
/// they are, and smart render may copy them).
public struct SubtitleBurnIn: Sendable {
    public var document: SubtitleDocument
    /// SubRip's look (an ASS file keeps its own styles).
    public var style: SubtitleWriter.Style

    /// - Parameters:
    ///   - document: The cues, their times on the composition's timeline.
    ///   - style: Font, size, colours, outline and margin for SubRip text.
    public init(document: SubtitleDocument, style: SubtitleWriter.Style = SubtitleWriter.Style()) {
        self.document = document
        self.style = style
    }

    /// Whether a cue shows at `milliseconds` on the timeline (from its start, up to its end).
    /// - Parameter milliseconds: The picture's time, in whole milliseconds rounded down.
    /// - Returns: True when some cue covers it.
    public func shows(atMilliseconds milliseconds: Int64) -> Bool {
        document.cues.contains { $0.start <= milliseconds && milliseconds < $0.end }
    }

    /// Whether a cue shows at `time`.
    /// - Parameter time: A time on the timeline.
    /// - Returns: True when some cue covers it.
    public func shows(at time: MediaTime) -> Bool {
        time.isNumeric && shows(atMilliseconds: Self.milliseconds(time))
    }

    /// `time` in whole milliseconds, rounded down.
    static func milliseconds(_ time: MediaTime) -> Int64 {
        time.convertScale(1000, method: .roundTowardNegativeInfinity).value
    }

    /// ASS style fields for FFmpeg's SubRip reading (its script is 384×288, so sizes given in
    /// render pixels are scaled to 288 lines).
    func forceStyle(renderHeight: Double) -> String {
        let toScript = 288 / max(renderHeight, 1)
        let size = (style.fontSize > 0 ? style.fontSize : renderHeight / 18) * toScript
        let outline = (style.outline > 0 ? style.outline : (style.box ? size / toScript / 5 : size / toScript / 16)) * toScript
        let margin = (style.marginV > 0 ? style.marginV : renderHeight / 20) * toScript
        return [
            "FontName=\(style.font.replacingOccurrences(of: ",", with: " "))",
            String(format: "FontSize=%.2f", size),
            "PrimaryColour=\(SubtitleWriter.assColor(style.color))",
            "OutlineColour=\(SubtitleWriter.assColor(style.outlineColor))",
            "BackColour=\(SubtitleWriter.assColor(style.outlineColor))",
            "BorderStyle=\(style.box ? 3 : 1)",
            String(format: "Outline=%.2f", outline),
            "Shadow=0",
            String(format: "MarginV=%.0f", margin),
            "Alignment=2",
        ].joined(separator: ",")
    }
}

/// The libass burner of one render, made when the first cue is drawn, with its copy of the
/// subtitle file (removed when the render closes).
final class SubtitleBurnInRenderer {
    private let burnIn: SubtitleBurnIn
    private let renderHeight: Double
    private var burner: SubtitleBurner?
    private var file: URL?

    init(_ burnIn: SubtitleBurnIn, renderHeight: Double) {
        self.burnIn = burnIn
        self.renderHeight = renderHeight
    }

    deinit { close() }

    /// Draws the cues shown at `time` on `frame` (yuv420p), if any.
    func burn(_ frame: PixelBuffer, at time: MediaTime) throws(ReelError) {
        guard time.isNumeric else { return }
        let milliseconds = SubtitleBurnIn.milliseconds(time)
        guard burnIn.shows(atMilliseconds: milliseconds) else { return }
        if burner == nil {
            // A copy under a plain name: the filter takes the name in its options, and reads
            // SubRip as Reel read it (cues checked, in order), ASS as it is.
            let isASS = burnIn.document.format == .ass
            let copy = FileManager.default.temporaryDirectory
                .appendingPathComponent("reel-subtitles-\(UUID().uuidString.prefix(8)).\(isASS ? "ass" : "srt")")
            let text = isASS ? burnIn.document.contents : SubtitleWriter.srt(burnIn.document.cues)
            do {
                try Data(text.utf8).write(to: copy)
            } catch {
                throw ReelError(.io, "cannot write a copy of the subtitles: \(error.localizedDescription)", subject: copy.path)
            }
            file = copy
            do {
                burner = try SubtitleBurner(file: copy.path, forceStyle: isASS ? nil : burnIn.forceStyle(renderHeight: renderHeight),
                                            width: frame.width, height: frame.height)
            } catch {
                throw ReelError(error.code, error.message, subject: burnIn.document.url.path, operation: error.operation)
            }
        }
        try burner?.burn(frame, atMilliseconds: milliseconds)
    }

    func close() {
        burner = nil
        if let file { try? FileManager.default.removeItem(at: file) }
        file = nil
    }
}

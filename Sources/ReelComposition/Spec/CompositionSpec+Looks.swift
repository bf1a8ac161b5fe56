import Foundation
import ReelCore
import ReelFilters

extension CompositionSpec {
    /// A colour keyed out of a clip or layer: `{color, similarity, blend, spill}`.
    public struct ChromaKeySpec: Codable, Sendable {
        /// `#RRGGBB` (default `#00ff00`, a green screen).
        public var color: String?
        /// How near the key (chroma distance 0–1) a pixel vanishes (default 0.2).
        public var similarity: Double?
        /// Over how much more distance it comes back (default 0.1).
        public var blend: Double?
        /// How much of the key's cast is taken off what stays, 0–1 (default 0.5).
        public var spill: Double?
    }

    /// A clip's or layer's `filters` and `chromaKey` as a ``LayerStyle`` (nil when it has neither).
    /// - Parameters:
    ///   - filters: The filter chain's text (`PhotoEffectMono,ColorControls:saturation=1.2`).
    ///   - key: The chroma key.
    ///   - path: The clip's or layer's spec path, for errors.
    ///   - resolve: Turns a spec path into a file URL (a `ColorCube`'s `file=`).
    /// - Returns: The style, or nil.
    /// - Throws: ``ReelError`` naming `\(path).filters` or `\(path).chromaKey.…`.
    static func look(
        filters: String?, key: ChromaKeySpec?, at path: String, resolve: (String) -> URL
    ) throws(ReelError)
        -> LayerStyle?
    {
        guard filters != nil || key != nil else { return nil }
        var style = LayerStyle()
        if let key {
            let (r, g, b) = try colour(key.color ?? "#00ff00", at: "\(path).chromaKey.color")
            let unit = NumberRule(range: 0...1, words: "from 0 to 1")
            let values = [("similarity", key.similarity ?? 0.2), ("blend", key.blend ?? 0.1), ("spill", key.spill ?? 0.5)]
            for (name, value) in values where !unit.admits(value) { throw unit.refusal(value, at: "\(path).chromaKey.\(name)") }
            style.chromaKey = LayerStyle.ChromaKey(
                red: r, green: g, blue: b, similarity: values[0].1, blend: values[1].1,
                spill: values[2].1)
        }
        if let filters {
            guard !filters.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ReelError(.invalidArgument, "names no filter (reel filters lists them)", subject: "\(path).filters")
            }
            var text = filters
            // A ColorCube's file is relative to the spec, as every other file in it.
            for file in FilterChain.cubeFiles(in: filters) where !file.hasPrefix("/") {
                text = text.replacingOccurrences(of: "file=\(file)", with: "file=\(resolve(file).path)")
            }
            let chain: FilterChain
            do {
                chain = try FilterChain(spec: text)
            } catch {
                throw ReelError(
                    error.code, "\(error.subject.map { "\($0): " } ?? "")\(error.message)", subject: "\(path).filters")
            }
            style.filterName = filters
            style.filterHandler = { request throws(ReelError) in try chain.apply(request.sourceImage) }
        }
        return style
    }

    /// Gives the layer instructions of every clip with a look its style: clip `i` is on the
    /// sequence's video track `i % 2`, in each instruction that starts inside its range.
    /// - Parameters:
    ///   - video: The sequence's video composition.
    ///   - tracks: The sequence's two video track IDs.
    ///   - clipRanges: Where each clip sits on the timeline.
    ///   - resolve: Turns a spec path into a file URL.
    /// - Throws: ``ReelError`` naming the clip's `filters` or `chromaKey`.
    func applyClipLooks(
        to video: inout VideoComposition, tracks: [Int], clipRanges: [MediaTimeRange],
        resolve: (String) -> URL
    ) throws(ReelError) {
        guard !tracks.isEmpty else { return }
        for (index, clip) in clips.enumerated() where index < clipRanges.count {
            guard let style = try Self.look(filters: clip.filters, key: clip.chromaKey, at: "clips[\(index)]", resolve: resolve)
            else {
                continue
            }
            let trackID = tracks[index % tracks.count], range = clipRanges[index]
            for position in video.instructions.indices where range.contains(video.instructions[position].timeRange.start) {
                for layer in video.instructions[position].layerInstructions.indices
                where video.instructions[position].layerInstructions[layer].trackID == trackID {
                    // A clip with alpha stays laid on the background (``ClipSequence``) under its look.
                    var styled = style
                    styled.isMattedOnBackground = video.instructions[position].layerInstructions[layer].style?.isMattedOnBackground ?? false
                    video.instructions[position].layerInstructions[layer].style = styled
                }
            }
        }
    }
}

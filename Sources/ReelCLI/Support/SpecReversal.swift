import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// A composition spec's `clips[].reverse`: each such clip's range written backwards, picture
/// and sound (``ReversedCopy``), into a temporary copy that takes the clip's place (its
/// range now the whole copy), so the composition plays it backwards. The copies go when
/// this does.
final class SpecReversal {
    /// The spec with the reversed copies in place of the clips' files and ranges.
    let spec: CompositionSpec
    private let copies: SpecClipCopies

    /// Reverses every clip that asks for it.
    /// - Parameters:
    ///   - description: The spec, its ranges already checked (it has been built once).
    ///   - folder: What the spec's relative paths are relative to.
    ///   - subject: What errors start with (the spec file's path).
    /// - Throws: ``ReelError`` naming the clip's spec path when its range cannot be reversed;
    ///   the copies made until then are removed.
    init(_ description: CompositionSpec, relativeTo folder: URL, subject: String) throws(ReelError) {
        var spec = description
        var copies = SpecClipCopies()
        do throws(ReelError) {
            for (index, clip) in description.clips.enumerated() where clip.reverse == true {
                let input = clip.file.hasPrefix("/") ? URL(fileURLWithPath: clip.file) : folder.appendingPathComponent(clip.file)
                let copy = copies.make("reverse", clip: index)
                do throws(ReelError) {
                    // An image sequence at the clip's rate (its copy is a movie, which has no fps).
                    let asset = Asset.isImageSequence(input) ? try Asset(imageSequence: input, frameRate: clip.fps ?? 25)
                        : try Asset(url: input)
                    let pictureEnd = ClipSequence.Clip.pictureRange(of: asset)?.end ?? asset.duration
                    let start = MediaTime(seconds: clip.range?.start ?? 0, preferredTimescale: 90000)
                    let end = clip.range?.end.map { MediaTime(seconds: $0, preferredTimescale: 90000) } ?? pictureEnd
                    try ReversedCopy.write(asset, range: MediaTimeRange(start: start, end: min(end, pictureEnd)), to: copy)
                } catch {
                    throw ReelError(error.code, error.message, subject: "\(subject): clips[\(index)].reverse \(input.path)")
                }
                spec.clips[index].file = copy.path
                spec.clips[index].range = nil
                spec.clips[index].reverse = nil
                spec.clips[index].fps = nil
            }
        } catch {
            copies.removeAll()
            throw error
        }
        self.spec = spec
        self.copies = copies
    }

    deinit { copies.removeAll() }
}

import Foundation
import ReelAsset
import ReelComposition
import ReelCore

/// A composition spec's `clips[].stabilize`: each such clip's file steadied first (the two
/// passes of `reel stabilize`) into a temporary copy that takes its place in the spec, so
/// the composition is built from steadied pictures. The copies keep the files' timestamps
/// and sound, so the clips' ranges, speeds and the sync stay as written.
final class SpecStabilization {
    /// The spec with the steadied copies in place of the clips' files.
    let spec: CompositionSpec
    private let copies: SpecClipCopies

    /// Steadies every clip that asks for it; the same file with the same strength once.
    /// - Parameters:
    ///   - description: The spec as loaded.
    ///   - folder: What the spec's relative paths are relative to.
    ///   - subject: What errors start with (the spec file's path).
    /// - Throws: ``ReelError`` naming the clip's spec path when its file cannot be steadied;
    ///   the copies made until then are removed.
    init(_ description: CompositionSpec, relativeTo folder: URL, subject: String, console: Console,
         json: Bool) async throws(ReelError) {
        var spec = description
        var made: [String: URL] = [:]
        var copies = SpecClipCopies()
        do throws(ReelError) {
            for (index, clip) in description.clips.enumerated() {
                guard let strength = clip.stabilize else { continue }
                let input = clip.file.hasPrefix("/") ? clip.file : folder.appendingPathComponent(clip.file).path
                let key = "\(strength) \(clip.fps ?? 25) \(input)"
                if let copy = made[key] {
                    spec.clips[index].file = copy.path
                } else {
                    let copy = copies.make("stabilize", clip: index)
                    do throws(ReelError) {
                        // Nearly lossless, as it is encoded again by the composition.
                        // An image sequence at the clip's rate; its copy is a movie, which takes no fps.
                        let job = try MediaCopyJob(input: input, output: copy, fileType: .mov, quality: 12, preset: "veryfast",
                                                   imageSequenceFrameRate: clip.fps)
                        let progress = ProgressReporter(console: console, json: json, total: job.duration,
                                                        label: "stabilize clips[\(index)]")
                        _ = try await StabilizeCommand.steady(job, strength: strength, progress: progress)
                        progress.finish()
                    } catch {
                        throw ReelError(error.code, error.message, subject: "\(subject): clips[\(index)].stabilize \(input)")
                    }
                    made[key] = copy
                    spec.clips[index].file = copy.path
                }
                spec.clips[index].stabilize = nil
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

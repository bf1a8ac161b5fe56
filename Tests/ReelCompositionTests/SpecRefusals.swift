import Foundation
import ReelComposition
import Testing

/// Checks shared by the spec tests that feed one bad clip and expect it refused.
enum SpecRefusals {
    /// Expects a spec of the one clip `clip` (its JSON object) to be refused when built
    /// relative to `directory`, by a single-line error containing `expected` (the clip's spec
    /// path and the cause).
    /// - Parameters:
    ///   - clip: The clip's JSON object.
    ///   - directory: What the clip's relative file is relative to.
    ///   - expected: Text the error must contain.
    ///   - sourceLocation: Where a failure is reported.
    static func expectClip(_ clip: String, relativeTo directory: URL, refusedWith expected: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try CompositionSpec(data: Data(#"{"clips": [\#(clip)]}"#.utf8), name: "t.json").build(relativeTo: directory)
            Issue.record("accepted \(clip)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description.contains(expected), "\(error.description)", sourceLocation: sourceLocation)
            #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
        }
    }
}

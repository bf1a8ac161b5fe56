public import Foundation

/// The bad-input corpus in `Tests/Corpus/files`, made by `Tests/Corpus/make-corpus.sh`.
public enum Corpus {
    public static let folder = Paths.packageRoot.appendingPathComponent("Tests/Corpus/files")

    /// The corpus files' names, sorted.
    public static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// Copies `name` into `directory`, so a test can never damage the committed file.
    public static func copy(_ name: String, to directory: URL) throws -> URL {
        let target = directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: url(name), to: target)
        return target
    }
}
